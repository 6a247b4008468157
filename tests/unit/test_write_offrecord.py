"""What is not a fact about the customer (placeholders, our own quota and prices) is not
stored from extraction, whichever extractor found it; a memory added by hand is kept."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from memagent.memory.namespaces import namespace
from memagent.memory.write_offrecord import off_record
from memagent.memory.write_path import Candidate, write_memory
from memagent.stores.embeddings import hash_embeddings

NS = namespace("u1", "c1", "facts")


@pytest.mark.parametrize(
    "text",
    [
        "Use placeholder numbers like a $500k budget and a March deadline",
        "(side note for me: our own Q4 target is $1.8M, need this one)",
        "my quota this quarter is 2M so I need this deal",
        "我们公司明年标准版涨价到每用户每月68元，我这季度指标500万，压力山大",
        "假设预算是100万，帮我算一下折扣",
        "We're raising our list prices by 8% in January",
        "and our SKO is in Vegas in January (January 2027 (2027-01)), can't wait",
        "我们公司年会在三亚，下个月",
    ],
)
def test_not_about_the_customer(text: str) -> None:
    assert off_record(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Budget is 1.2 million CNY for the fleet-tracking rollout",
        "Their target go-live is July 1, 2027",
        "They need SSO, e.g. Okta, for 300 users",
        "我们报价280万，客户觉得偏高",
        "Our target date for the pilot is March 3",
        "Placeholder for now: they want a sandbox",  # no figure: judged elsewhere
        "客户的年度指标是降本10%",
        "Our number was 1.25M; CFO Alan Pierce called us the Cadillac option",
        "Our target: proposal presentation on March 3",
        "Their annual offsite is in March; we can demo there",
        "他们公司年会上要展示这个系统",
    ],
)
def test_the_customers_facts_stay(text: str) -> None:
    assert off_record(text) is None


def test_extraction_rejects_it_and_a_manual_add_keeps_it() -> None:
    store = InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})
    cand = Candidate(content="Use placeholder numbers like a $500k budget", attribute="budget",
                     value="500000 USD")  # fmt: skip
    res = write_memory(store, "u1", "c1", cand, origin="extraction")
    assert res.action == "rejected" and "not about the customer" in str(res.reason)
    assert store.search(NS, limit=10) == []
    kept = write_memory(store, "u1", "c1", cand, origin="manual")
    assert kept.action == "created"
