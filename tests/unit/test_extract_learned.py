"""The learned fallback of the rules extractor (issue 14, ``memory/extract_learned.py``).

A clause no rule reads is stored when the shipped clause model finds a salient customer fact
in it; small talk is not, a rule fact is not restated, and a value the note corrects does not
come back through the fallback. The phrasings here are the test's own (none is in the labelled
sets the weights were trained on).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import numpy as np
import pytest

from memagent.core.types import Turn
from memagent.evals.eval_dataset import Dialog, GoldItem
from memagent.evals.eval_metrics import score_dialog
from memagent.evals.eval_replay import replay
from memagent.memory import extract_learned
from memagent.memory.extract_learned import (
    CATEGORIES,
    DIM,
    SUFFIX,
    ClauseModel,
    clause_input,
    folded_features,
    learned_facts,
    learned_model,
    word_grams,
)
from memagent.memory.extractors import rules_extractor
from memagent.memory.poison_ngram import features
from memagent.memory.write_path import Candidate

AT = "2026-12-02T10:00:00+08:00"


def _extract(text: str, *, learned: bool = True) -> list[Candidate]:
    ex = rules_extractor() if learned else rules_extractor(learned=None)
    return asyncio.run(ex([Turn("user", text, "m1", AT)])).candidates


def test_the_shipped_model_loads() -> None:
    model = learned_model()
    assert model is not None
    assert model.weights.shape == (1 + len(CATEGORIES), DIM)
    assert np.isfinite([model.threshold, model.threshold_cjk]).all()
    assert np.abs(model.weights).max() > 0


def _accept_all() -> ClauseModel:
    model = learned_model()
    assert model is not None
    return replace(model, threshold=-1e9, threshold_cjk=-1e9)


@pytest.mark.parametrize(
    ("note", "clause"),
    [
        (
            "Corvell Plastics, budget is 200k. Scrap on line 3 is running at 9% and the plant manager is "
            "under pressure from head office.",
            "Scrap on line 3 is running at 9%",
        ),
        (
            "和瑞丰医药开了会，预算80万。他们的质量部门对现在的系统意见很大，批记录经常要返工。",
            "批记录经常要返工",
        ),
    ],
)
def test_a_clause_the_rules_miss_becomes_a_fact(note: str, clause: str) -> None:
    assert not any(clause in c.content for c in _extract(note, learned=False))
    learned = [c for c in _extract(note) if c.attribute.endswith(SUFFIX)]
    assert [clause in c.content for c in learned] == [True]
    fact = learned[0]
    assert fact.attribute.removesuffix(SUFFIX).split(":")[0] in CATEGORIES
    assert fact.value is None  # many-valued: never versions another record
    assert fact.message_ids == ["m1"]
    assert fact.confidence >= 0.6  # confirmed, not pending


@pytest.mark.parametrize(
    "chat",
    [
        "Had a lovely chat about hiking in Yunnan, the weather was great.",
        "I went to a pottery class yesterday, it was so relaxing!",
        "Caroline: Hey Mel! Good to see you! How have you been? Melanie: Pretty busy, "
        "took the kids camping last weekend and we roasted marshmallows.",
        "周末去爬山了，天气特别好，风景很美。",
        "哈哈，昨天看了场电影，挺好看的，你最近怎么样？",
    ],
)
def test_small_talk_stores_nothing(chat: str) -> None:
    assert _extract(chat) == []


def test_a_rule_fact_is_not_restated() -> None:
    rule = Candidate(
        content="Nicole Hart: Director of Procurement.", attribute="stakeholder:nicole_hart"
    )
    turn = Turn("user", "Buyer is Nicole Hart, Director of Procurement", "m1", AT)
    assert learned_facts([turn], [rule], model=_accept_all()) == []
    other = Turn("user", "Scrap on line 3 is running at 9%, head office is furious", "m2", AT)
    assert [c.message_ids for c in learned_facts([other], [rule], model=_accept_all())] == [["m2"]]


def test_a_corrected_value_does_not_come_back() -> None:
    turn = Turn("user", "Licence budget for the pilot is now €80k, not €60k as I said", "m1", AT)
    found = learned_facts([turn], [], model=_accept_all())
    assert found and all("80" in c.content and "60" not in c.content for c in found)


def test_no_duplicate_and_no_stale_value_through_the_write_path() -> None:
    dialog = Dialog(
        id="learned-1",
        customer="corvell",
        now=AT,
        turns=(
            {
                "role": "user",
                "content": "Corvell Plastics: budget is 2 million CNY. Scrap on "
                "line 3 is running at 9% and the plant manager is under pressure from head office.",
            },
            {"role": "user", "content": "Correction: budget is 2.5 million CNY, not 2 million."},
        ),  # fmt: skip
        gold=(
            GoldItem((("2.5 million", "2500000"),), "budget"),
            GoldItem((("9%",),), "pain_point"),
        ),
        stale=("2 million CNY.",),
    )
    score = score_dialog(dialog, replay(rules_extractor(), dialog).confirmed)
    assert score.total.gold_found == 2, score.memories
    assert score.total.duplicates == 0 and score.leaks == [], score.memories


def test_a_message_the_rules_read_nothing_in_gets_no_learned_fact() -> None:
    # Chat the rules find no fact in is rarely a sales note (LoCoMo chit-chat: 85 of 2760
    # turns stored a learned fact without this gate, 8 with it); its own clause alone
    # gets nothing, beside a rule fact it is kept.
    alone = "Scrap on line 3 is running at 9% and the plant manager is under pressure."
    assert _extract(alone, learned=False) == [] and _extract(alone) == []
    beside = _extract("Corvell Plastics, budget is 200k. " + alone)
    assert any(c.attribute.endswith(SUFFIX) for c in beside)


def test_a_correction_the_rules_left_is_not_stored_as_a_new_fact() -> None:
    first = "Corvell Plastics, budget is 200k. They need 80 seats."
    found = _extract(first + " Correction: the scrap rate on line 3 is 9%, not 12%.")
    assert not any("Correction" in c.content for c in found if c.attribute.endswith(SUFFIX))


def test_two_learned_facts_of_one_kind_are_two_memories_in_the_real_store() -> None:
    # One key per learned fact: with a shared ``stakeholder:learned`` key the second
    # write retried against the first on the Qdrant engine until WriteConflictError
    # (a LoCoMo pipeline job failed so).
    from memagent.memory.extract_learned import learned_key
    from memagent.memory.write_path import write_memory
    from memagent.stores.embeddings import hash_embeddings
    from memagent.stores.qdrant_store import QdrantStore

    facts = ["Ines Moreau runs the night shift", "Their COO Paulo Reis pushes for the pilot"]
    index = {"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]}
    with QdrantStore.from_location(":memory:", index=index) as store:
        for text in facts:
            cand = Candidate(content=text, attribute=learned_key("stakeholder", text))
            write_memory(store, "u1", "corvell", cand)
        stored = [i.value["content"] for i in store.search(("memagent", "u1", "corvell", "facts"))]
    assert sorted(stored) == sorted(facts)
    assert learned_key("stakeholder", facts[0]) != learned_key("stakeholder", facts[1])
    assert learned_key("stakeholder", facts[0]).endswith(SUFFIX)


def test_a_chinese_clause_is_scored_on_its_words_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # jieba words of the Chinese runs, Traditional folded to Simplified, with their bigrams
    assert word_grams("客戶說預算 budget 五十萬") == [
        "zw:客户",
        "zw:说",
        "zw:预算",
        "zw2:客户 说",
        "zw2:说 预算",
        "zw:五十万",
    ]
    assert word_grams("Budget is 200k.") == []
    plain, _ = features(clause_input("预算大概五十万"))
    assert folded_features("预算大概五十万")[0].tolist() == (plain & (DIM - 1)).tolist()  # shipped
    monkeypatch.setattr(extract_learned, "ZH_WORDS", True)
    idx, val = folded_features("预算大概五十万")
    assert len(set(idx.tolist()) - set((plain & (DIM - 1)).tolist())) > 0
    assert np.isclose(float(val @ val), 1.0)
    en, en_val = folded_features("Budget is 200k.")
    ref, ref_val = features(clause_input("Budget is 200k."))
    assert en.tolist() == (ref & (DIM - 1)).tolist() and np.allclose(en_val, ref_val)
