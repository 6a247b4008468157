"""One memory per person, and channels that are reports rather than preferences, on
sentences written for these tests (not taken from any labelled set)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from langgraph.store.memory import InMemoryStore

from memagent.core.types import Turn
from memagent.memory.extract_rules import extract_rules
from memagent.memory.namespaces import namespace
from memagent.memory.write_path import Candidate, write_memory
from memagent.stores.embeddings import hash_embeddings

AT = "2026-10-05T09:00:00+08:00"


def _cands(*texts: str) -> list[Candidate]:
    turns = [Turn("user", t, id=f"m{i}", at=AT) for i, t in enumerate(texts)]
    return extract_rules(turns)[0]


def _facts(*texts: str) -> list[str]:
    return [f"{c.attribute} | {c.value} | {c.content}" for c in _cands(*texts)]


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("Their COO Priya Nair is the decision maker.", "priya", "coo"),
        ("Final call rests with Tomas Berg, the CFO.", "tomas", "cfo"),
        ("最后拍板的是财务总监孙丽。", "孙丽", "财务总监"),
        ("老板陈总（董事长）拍板。", "陈总", "董事长"),
    ],
)
def test_a_decision_maker_named_with_their_role_is_one_memory(
    text: str, name: str, role: str
) -> None:
    facts = _facts(text)
    about = [f for f in facts if name in f.lower()]
    assert len(about) == 1, facts
    assert "decision_maker" in about[0] and role in about[0].lower(), facts


def _store() -> InMemoryStore:
    return InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})


def test_a_superseded_decision_maker_keeps_their_role() -> None:
    store, ns = _store(), namespace("u1", "c1", "facts")
    t0 = datetime(2026, 10, 5, tzinfo=UTC)
    for i, text in enumerate(
        [
            "Their COO Priya Nair is the decision maker.",
            "Update: the decision maker is now Ola Lund.",
        ]
    ):
        for c in _cands(text):
            write_memory(store, "u1", "c1", c.model_copy(update={"message_ids": [f"m{i}"]}), now=t0)
    active = [i.value for i in store.search(ns, filter={"status": "active"}, limit=50)]
    dm = [v for v in active if v["attribute"] == "decision_maker"]
    assert [v["value"] for v in dm] == ["ola lund"], active
    roles = [v for v in active if v["attribute"] == "stakeholder:priya_nair:role"]
    assert len(roles) == 1 and roles[0]["value"] == "coo", active
    assert roles[0]["source"]["message_ids"] == ["m0"]


def test_the_same_decision_maker_again_writes_no_role() -> None:
    store, ns = _store(), namespace("u1", "c1", "facts")
    t0 = datetime(2026, 10, 5, tzinfo=UTC)
    for text in [
        "Their COO Priya Nair is the decision maker.",
        "Priya Nair (COO) makes the final call.",
    ]:
        for c in _cands(text):
            write_memory(store, "u1", "c1", c, now=t0)
    active = [i.value for i in store.search(ns, filter={"status": "active"}, limit=50)]
    assert not [v for v in active if v["attribute"].endswith(":role")], active


@pytest.mark.parametrize(
    "text",
    [
        "华星物流 电话沟通",
        "今天和刘经理打电话，说仓库要扩到三个。",
        "刚才王总又发微信了，说合同下周寄过来。",
        "周五跟他们微信沟通了一下进度。",
    ],
)
def test_a_call_or_message_reported_is_no_contact_preference(text: str) -> None:
    facts = _facts(text)
    assert not [f for f in facts if f.startswith("contact")], facts


@pytest.mark.parametrize(
    "text",
    [
        "刘经理喜欢微信沟通。",
        "有事直接打电话找他，他不看邮件。",
        "请优先用邮件联系她。",
    ],
)
def test_a_stated_channel_is_still_a_contact_preference(text: str) -> None:
    facts = _facts(text)
    assert [f for f in facts if f.startswith("contact")], facts


@pytest.mark.parametrize(
    ("text", "bad", "good"),
    [
        ("跟华远的采购经理刘洋通了个电话。", "刘洋通", "刘洋"),
        ("见了财务处的吴主任吴静，吴主任说处长比较看重售后。", "任说", "吴静"),
    ],
)
def test_a_verb_after_a_chinese_name_is_not_part_of_it(text: str, bad: str, good: str) -> None:
    facts = _facts(text)
    assert not [f for f in facts if bad in f], facts
    assert [f for f in facts if good in f], facts


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("他们现在用飞书做项目协同，不太满意。", "飞书"),
        ("目前用金蝶来管库存。", "金蝶"),
    ],
)
def test_a_chinese_product_used_for_a_purpose_is_the_incumbent(text: str, word: str) -> None:
    facts = _facts(text)
    assert [f for f in facts if f.startswith(("incumbent", "current_vendor")) and word in f], facts


@pytest.mark.parametrize(
    ("text", "attr", "word"),
    [
        ("Their contract with Workday renews in June.", "deadline:contract_end", "workday"),
        ("Their stack is Pipedrive + Intercom.", "incumbent", "pipedrive"),
    ],
)
def test_a_renewal_and_a_stack_are_kept(text: str, attr: str, word: str) -> None:
    facts = _facts(text)
    assert [f for f in facts if f.startswith(attr) and word in f.lower()], facts


def test_our_own_stack_is_not_their_incumbent() -> None:
    assert not [f for f in _facts("Our stack is Python and Go.") if f.startswith("incumbent")]


@pytest.mark.parametrize(
    ("text", "name", "words"),
    [
        ("Her ops lead Mara Quist is our biggest fan.", "mara", ("ops lead", "fan")),
        ("His deputy Arjun Rao is a huge fan of the product.", "arjun", ("deputy", "fan")),
    ],
)
def test_a_fan_with_a_possessive_role_is_one_memory(
    text: str, name: str, words: tuple[str, ...]
) -> None:
    about = [f for f in _facts(text) if name in f.lower()]
    assert len(about) == 1 and all(w in about[0].lower() for w in words), about
    assert not [f for f in about if ": her " in f.lower() or ": his " in f.lower()], about
