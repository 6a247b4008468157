"""A message that takes back the one before it closes what that message left, through the
worker's own path (outbox, episodes, write path); sentences written for these tests."""

from __future__ import annotations

import pytest

from memagent.evals.eval_dataset import Dialog
from memagent.evals.eval_replay import replay
from memagent.memory.extract_corrections import retracts_previous
from memagent.memory.extractors import rules_extractor

NOW = "2026-10-05T09:00:00+08:00"


def _dialog(*users: str) -> Dialog:
    turns = []
    for u in users:
        turns += [{"role": "user", "content": u}, {"role": "assistant", "content": "Noted."}]
    return Dialog(id="r1", turns=tuple(turns), gold=(), customer="acme", now=NOW)


def _active(*users: str) -> list[str]:
    return [str(v.get("content")) for v in replay(rules_extractor(), _dialog(*users)).confirmed]


@pytest.mark.parametrize(
    ("first", "retract", "gone"),
    [
        ("Fernhill Dairy: budget 600k, they're on SAP, Ian Cole (CFO) decides.",
         "Scratch that, wrong account - that was Fernbrook. Nothing on Fernhill yet.",
         ("600k", "SAP", "Ian")),
        ("启航物流：预算90万，现在用的是金蝶，决策人是赵总。",
         "刚才那条发错客户了，是启程物流的，作废。", ("90万", "金蝶", "赵总")),
    ],
)  # fmt: skip
def test_a_retracted_message_leaves_no_memory(
    first: str, retract: str, gone: tuple[str, ...]
) -> None:
    assert any(gone[0] in m for m in _active(first))
    active = _active(first, retract)
    assert not [m for m in active if any(g in m for g in gone)], active


def test_only_the_previous_message_is_taken_back() -> None:
    active = _active(
        "Fernhill Dairy wants 40 seats and SSO.",
        "Budget is 600k, they're on SAP.",
        "Scrap that entirely, wrong account.",
    )
    assert any("SSO" in m for m in active), active
    assert not [m for m in active if "600k" in m or "SAP" in m], active


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("Scratch that, wrong account.", True),
        ("Please ignore my last message entirely.", True),
        ("哎呀发错了，这是别家的情况。", True),
        ("上一条消息不算，我搞混了。", True),
        ("Budget 1.2M - scratch that, 1.5M.", False),
        ("Ignore the SSO point, they already have it.", False),
        ("报价单发错了，要重新发一版。", False),
        ("之前的方案作废了，客户要重新评估。", False),
    ],
)
def test_what_takes_back_a_whole_message(text: str, whole: bool) -> None:
    assert retracts_previous(text) is whole


@pytest.mark.parametrize(
    "text",
    [
        "I try to ignore everything they say about the roadmap, honestly.",
        "We agreed to forget everything about last year's outage and start fresh.",
    ],
)
def test_a_retraction_word_inside_a_statement_takes_nothing_back(text: str) -> None:
    assert retracts_previous(text) is False
