"""Broad questions about the account and the facts that answer them (issue 14)."""

from __future__ import annotations

import pytest

from memagent.nodes.recall_overview import is_overview, overview_keys

BROAD = [
    "What do you know about Acme?",
    "tell me about this customer",
    "brief me before the call",
    "Brief me before the call.",
    "Can you give me a quick overview of Acme Logistics?",
    "Catch me up on Acme",
    "Fill me in on this account",
    "What's the status with Acme?",
    "Where do we stand with them?",
    "Summarize the account for me",
    "Anything I should know before the meeting?",
    "Acme?",
    "What about Acme?",
    "介绍一下这个客户",
    "这个客户什么情况？",
    "我们对华信了解多少？",
    "打电话之前帮我梳理一下",
    "说说华信的情况",
    "给我一个客户概况",
]
SPECIFIC = [
    "What is Acme's budget?",
    "Who makes the decision at Acme?",
    "How should I contact Acme's CTO?",
    "华信的预算是多少？谁负责采购？",
    "这个客户的预算是多少？",
    "ok",
    "thanks",
    "Send the proposal by Friday.",
]


@pytest.mark.parametrize("question", BROAD)
def test_broad_questions_in_both_languages(question: str) -> None:
    assert is_overview(question, "acme")


@pytest.mark.parametrize("question", SPECIFIC)
def test_specific_questions_are_not_broad(question: str) -> None:
    assert not is_overview(question, "acme")


def test_overview_keys_take_each_kind_before_more_of_one() -> None:
    facts = [(f"req{i}", {"attribute": f"requirement:{i}", "importance": 0.9}) for i in range(9)]
    facts += [
        ("b1", {"attribute": "budget", "importance": 0.9, "version": 1}),
        ("b2", {"attribute": "budget", "importance": 0.9, "version": 2}),
        ("dm", {"attribute": "decision_maker", "importance": 0.9}),
        ("mail", {"attribute": "contact_preference:li_wei:1", "importance": 0.7}),
        ("note", {"attribute": "note:lunch", "importance": 0.3}),
    ]
    keys = overview_keys(facts, 6)
    assert keys[:2] == ["b2", "dm"]  # newest budget version, then the decision maker
    assert "b1" not in keys and "mail" in keys
    assert sum(k.startswith("req") for k in keys) == 2


def test_a_broad_question_sees_every_kind_of_fact_the_account_has() -> None:
    """Session 20, a call note through `ask`: ten facts of eight kinds, and "Brief me before
    tomorrow's call" listed neither the rival's quote nor the pain (two requirements and
    two contact preferences came first)."""
    from memagent.nodes.recall_pinned import MAX_OVERVIEW_ITEMS

    kinds = ["budget", "decision_maker", "requirement:a", "requirement:b", "contact_preference:a",
             "contact_preference:b", "stakeholder:katrin:role", "commitment:x",
             "competitor:sealink:quote", "pain_point:x"]  # fmt: skip
    facts = [(k, {"attribute": k, "importance": 0.7}) for k in kinds]
    keys = overview_keys(facts, MAX_OVERVIEW_ITEMS)
    assert {"competitor:sealink:quote", "pain_point:x"} <= set(keys)
    assert keys[:2] == ["budget", "decision_maker"]
    heads = [k.split(":")[0] for k in keys]
    assert heads.index("pain_point") < heads.index("requirement", heads.index("requirement") + 1)
