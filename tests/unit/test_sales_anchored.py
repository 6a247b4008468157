"""Corrections that name the old value but not the attribute, and old values left in a
corrected memory's text, on sentences written for these tests (not from a labelled set)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from langgraph.store.memory import InMemoryStore

from memagent.core.types import Turn
from memagent.memory.extract_corrections import old_values
from memagent.memory.extract_rules import extract_rules
from memagent.memory.namespaces import namespace
from memagent.memory.write_path import Candidate, write_memory
from memagent.stores.embeddings import hash_embeddings

AT = "2026-10-05T09:00:00+08:00"
T0 = datetime(2026, 10, 5, tzinfo=UTC)
NS = namespace("u1", "c1", "facts")


def _cands(*texts: str) -> list[Candidate]:
    turns = [Turn("user", t, id=f"m{i}", at=AT) for i, t in enumerate(texts)]
    return extract_rules(turns)[0]


def _replay(*messages: str) -> list[dict]:
    """Each message written as the worker would, one job per message."""
    store = InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})
    for i, text in enumerate(messages):
        turn = Turn("user", text, id=f"m{i}", at=AT)
        for c in extract_rules([turn])[0]:
            write_memory(store, "u1", "c1", c, now=T0)
    return [i.value for i in store.search(NS, filter={"status": "active"}, limit=100)]


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("改一下，不是60万，是90万。", ["600000"]),
        ("Sorry, it's 2.4M not 2.1M.", ["2100000"]),
        ("更正：用户是120个，不是100个。", ["100"]),
        ("The budget is 700k.", []),
    ],
)
def test_old_values_of_a_correction(text: str, old: list[str]) -> None:
    assert old_values(text) == old


@pytest.mark.parametrize(
    ("first", "fix", "new", "gone"),
    [
        (
            "华达物流：预算60万，年底前定。",
            "改一下，不是60万，是90万，集团追加了。",
            "900000",
            "600000",
        ),
        ("Budget for Kestrel is 2.1M.", "Sorry, it's 2.4M not 2.1M.", "2400000", "2100000"),
    ],
)
def test_a_correction_without_the_attribute_versions_the_memory_it_corrects(
    first: str, fix: str, new: str, gone: str
) -> None:
    active = _replay(first, fix)
    budgets = [v for v in active if v["attribute"] == "budget"]
    assert [v["value"].split()[0] for v in budgets] == [new], active
    assert not [v for v in active if gone in str(v.get("value"))], active


def test_an_old_value_two_memories_hold_is_not_guessed() -> None:
    active = _replay("预算60万，竞品报了60万。", "改一下，不是60万，是90万。")
    assert [v for v in active if v["attribute"] == "budget" and v["value"].startswith("600000")]
    assert [v for v in active if "90万" in v["content"]], active


def test_a_count_named_before_its_figure_is_read_and_corrects() -> None:
    active = _replay("东华化工要100个账号。", "更正：账号是120个，不是100个。")
    seats = [v for v in active if v["attribute"] == "seats"]
    assert [v["value"] for v in seats] == ["120"], active


@pytest.mark.parametrize(
    ("text", "kept", "gone"),
    [
        ("更正一下，最后拍板的是总经理吴敏，不是周董。", "吴敏", "周董"),
        ("Correction: the final call is with Nadia Park, not Leo.", "Nadia", "Leo"),
        ("项目上线原定4月，现在推迟到6月了。", "6月", "4月"),
        ("The pilot was originally set for Nov 3, now Nov 17.", "Nov 17", "Nov 3"),
    ],
)
def test_a_corrected_memory_does_not_keep_the_old_value(text: str, kept: str, gone: str) -> None:
    texts = [c.content for c in _cands(text)]
    assert [t for t in texts if kept in t], texts
    assert not [t for t in texts if gone in t], texts


def test_a_not_clause_outside_a_correction_is_part_of_the_fact() -> None:
    texts = [c.content for c in _cands("Hosting must be in their own data centre, not AWS.")]
    assert [t for t in texts if "not AWS" in t], texts


def test_a_decimal_old_value_goes_whole() -> None:
    texts = [c.content for c in _cands("Correction: the budget is 800k, not 1.4M, my mistake.")]
    assert [t for t in texts if "800k" in t], texts
    assert not [t for t in texts if ".4M" in t or "1.4" in t], texts


@pytest.mark.parametrize(
    "text",
    [
        "Budget 900k for phase one, Nora Quinn (CFO) approves.",
        "They have 700k set aside, Omar Haddad signs off.",
    ],
)
def test_a_budget_and_who_approves_it_are_two_memories(text: str) -> None:
    cands = _cands(text)
    budget = [c for c in cands if c.attribute == "budget"]
    dm = [c for c in cands if c.attribute == "decision_maker"]
    assert len(budget) == 1 and len(dm) == 1, [(c.attribute, c.content) for c in cands]
    assert not any(ch.isdigit() for ch in dm[0].content), dm
