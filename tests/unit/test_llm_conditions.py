"""The hybrid LLM extractor and conditions: a condition governs only its own clause
("budget ~600k, could stretch to 650 if ..." states the budget), an "if" that states no
condition ("in German if possible") is none, and a sentence a condition governs whole
("If legal approves, kickoff in May") reaches the model whole, its fact kept with its
condition."""

from __future__ import annotations

import json

from graph_fakes import scripted

from memagent.core.types import Turn
from memagent.memory.extract_rules import extract_rules
from memagent.memory.extractors import llm_extractor
from memagent.memory.llm_hybrid import uncovered_lines
from memagent.memory.llm_sentences import conditional_sentences, statement_sentences

AT = "2026-11-12T10:00:00+08:00"


def _turn(text: str) -> Turn:
    return Turn("user", text, "m1", AT)


def _sent(text: str) -> list[str]:
    turn = _turn(text)
    return [line.text for line in uncovered_lines([turn], extract_rules([turn])[0])]


def _labels(text: str) -> list[tuple[str, str]]:
    return [(s, label) for s, label, _ in statement_sentences([_turn(text)])]


def test_a_trailing_condition_governs_only_its_own_part() -> None:
    labels = _labels("- bdgt ~£600k, could stretch to 650 if we incl training (not confirmed)")
    assert ("- bdgt ~£600k", "statement") in labels, labels
    assert any(label == "hypothetical" and "650" in s for s, label in labels), labels


def test_an_if_that_states_no_condition_leaves_a_statement() -> None:
    text = "Stefan wants all technical questions in writing, in German if possible."
    assert _labels(text) == [(text, "statement")]
    assert _labels("If legal approves, kickoff in May.")[1] == ("kickoff in May", "hypothetical")


def test_a_sentence_a_condition_governs_whole_is_sent_whole() -> None:
    assert conditional_sentences([_turn("If legal approves, kickoff in May.")]) == [
        "If legal approves, kickoff in May."
    ]
    assert _sent("If legal approves, kickoff in May.") == ["If legal approves, kickoff in May"]
    # a joke, our own quota: nothing for the model
    assert _sent("lol he said they'd pay 10 million if we fix their printer") == []
    assert _sent("I hit 80% of quota if this closes") == []


async def test_the_model_fact_of_a_conditional_sentence_keeps_its_condition() -> None:
    model = scripted(json.dumps({"items": [{"n": 1, "c": "timeline"}]}))
    res = await llm_extractor(model)([_turn("If legal approves, kickoff in May.")])
    assert len(model.seen) == 1
    assert [c.content.startswith("If legal approves, kickoff in May") for c in res.candidates] == [
        True
    ]
    assert "2027-05" in res.candidates[0].content


async def test_a_conditional_budget_never_replaces_the_budget() -> None:
    text = "如果董事会批准，试点给80万。"  # the rules read no budget here
    model = scripted(json.dumps({"items": [{"n": 1, "c": "budget"}]}))
    res = await llm_extractor(model)([_turn(text)])
    assert [(c.attribute.split(":")[0], c.value) for c in res.candidates] == [
        ("conditional", None)
    ], res


async def test_the_budget_before_a_stretch_condition_reaches_the_model() -> None:
    text = "Beth controls the budget and said there is about $400k in the 2027 opex plan, could stretch if ROI is proven."
    model = scripted(json.dumps({"items": [{"n": 1, "c": "budget"}]}))
    res = await llm_extractor(model)([_turn(text)])
    assert any("400k" in c.content for c in res.candidates), res
