"""What counts as read by the rules in the hybrid extractor: a clause a rule fact only
partly reads (its place, a figure, a name left out) still reaches the model, and a
label, a name or a figure alone is not dropped as saying nothing."""

from __future__ import annotations

import json

from graph_fakes import scripted

from memagent.core.types import Turn
from memagent.memory.extract_rules import extract_rules
from memagent.memory.extractors import llm_extractor
from memagent.memory.llm_cover import covered, read_whole, salient
from memagent.memory.llm_hybrid import uncovered_lines
from memagent.memory.write_path import Candidate

AT = "2026-11-12T10:00:00+08:00"


def _sent(text: str) -> list[str]:
    turn = Turn("user", text, "m1", AT)
    return [line.text for line in uncovered_lines([turn], extract_rules([turn])[0])]


def test_a_clause_a_rule_fact_reads_only_in_part_reaches_the_model() -> None:
    # the rules keep "Tomás Reyes: plant manager."; the site is in no rule fact
    text = "Tomás Reyes is the plant manager at the Monterrey site."
    assert any("Monterrey" in line for line in _sent(text)), _sent(text)


def test_a_figure_the_rule_fact_left_out_reaches_the_model() -> None:
    fact = Candidate(content="Ana Lima: Director of Clinical IT.", attribute="stakeholder")
    clause = "Ana Lima (Director of Clinical IT): Nine, Greg"
    assert not covered(clause, [fact])
    assert covered("Ana Lima (Director of Clinical IT)", [fact])


def test_a_clause_whose_salient_content_a_fact_holds_is_read() -> None:
    fact = Candidate(content="Budget: EUR 450,000 for year one", attribute="budget",
                     value="450000 EUR")  # fmt: skip
    assert covered("budget EUR 450,000 for year one", [fact])
    assert salient("the FD (Richard Osei) signs off over 50k")[:2] == (
        {"50"}, {"fd", "richard", "osei"})  # fmt: skip
    assert not read_whole("anything", [])


def test_a_chinese_clause_most_of_whose_characters_no_fact_holds_is_sent() -> None:
    fact = Candidate(content="王建国：财务总监，关注ROI", attribute="stakeholder")
    assert covered("财务总监，关注ROI", [fact])
    assert not covered("华东区财务总监下个月换人", [fact])


def test_a_labelled_word_a_name_or_a_figure_alone_is_sent() -> None:
    # a label and one word the rules do not read reaches the model (it used to be dropped
    # as saying nothing); one they read as an account detail is theirs
    assert "Carrier: Raben" in _sent("Carrier: Raben")
    assert _sent("HQ: Gdansk") == []
    assert any("RouteMaster" in line for line in _sent("Carla: RouteMaster."))
    turn = Turn("user", "王经理：18家", "m1", AT)  # as when the rules read none of it
    assert any("18家" in line.text for line in uncovered_lines([turn], []))


def test_a_detail_left_open_does_not_drop_the_fact() -> None:
    said = _sent("They host a reference visit in Porto for our team, date TBD.")
    assert any("Porto" in line for line in said), said
    assert _sent("Date: TBD") == []


async def test_the_model_line_of_a_partly_read_clause_adds_no_twin() -> None:
    # the rules read the role; the model's stakeholder line for the same sentence is
    # dropped (the rules read this sentence's stakeholder), its place kept as a fact
    text = "Tomás Reyes is the plant manager at the Monterrey site."
    model = scripted(json.dumps({"items": [{"n": 1, "c": "stakeholder"}]}))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert len(model.seen) == 1
    assert [c.content for c in res.candidates] == [
        c.content for c in extract_rules([Turn("user", text, "m1", AT)])[0]
    ]
