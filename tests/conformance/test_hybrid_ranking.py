"""Hybrid ranking contract of QdrantStore with the real default embedder (e5-small).

Three cases neither side solves alone: an exact identifier that dense search
blurs (keyword-only match), a paraphrase with no shared word (dense-only match),
and Chinese text (jieba tokens + multilingual vectors). Runs on the Qdrant
backends only (the reference has no keyword side), sync and async.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from memagent.stores.embeddings import E5_DIMS, default_embeddings

os.environ.setdefault("OMP_NUM_THREADS", "1")

FACTS = {
    "po1": "Invoice for order PO-2026-118734 is still unpaid",
    "po2": "Invoice for order PO-2025-220911 was paid in full",
    "po3": "Invoice for order PO-2026-118735 was cancelled",
    "mail": "Customer prefers being contacted by email, never by phone",
    "budget": "The annual budget for new machines is 50k euros",
    "zh1": "客户希望下个月交付五百台设备",
    "zh2": "客户的财务总监下周休假",
    "ship": "Shipment of XJ-2000 pumps leaves Hamburg on Friday",
}


@pytest.fixture(scope="module")
def e5() -> Any:
    return default_embeddings()


@pytest.fixture
def hybrid_store(make_store, backend, e5):
    if backend == "reference":
        pytest.skip("the reference store has no keyword side")
    index = {"dims": E5_DIMS, "embed": e5, "fields": ["content"]}
    with make_store(index=index) as store:
        for key, text in FACTS.items():
            store.put(("memagent", "u1", "acme", "facts"), key, {"content": text})
        store.put(("memagent", "u10", "acme", "facts"), "other", {"content": FACTS["po1"]})
        yield store


async def _scored(store, api_mode: str, query: str, mode: str, **kw: Any) -> list[Any]:
    prefix = ("memagent", "u1")
    if api_mode == "async":
        return await store.asearch_scored(prefix, query=query, mode=mode, **kw)
    return store.search_scored(prefix, query=query, mode=mode, **kw)


async def test_keyword_only_match_wins_on_exact_identifier(hybrid_store, api_mode) -> None:
    found = await _scored(hybrid_store, api_mode, "PO-2026-118734", "hybrid", limit=3)
    assert found[0].item.key == "po1"
    assert found[0].keyword and found[0].keyword > 0
    kw = await _scored(hybrid_store, api_mode, "PO-2026-118734", "keyword", limit=3)
    assert kw[0].item.key == "po1" and kw[0].dense is None
    assert all(s.item.namespace[1] == "u1" for s in found)  # never the u10 copy


async def test_identifier_without_separators_matches(hybrid_store, api_mode) -> None:
    found = await _scored(hybrid_store, api_mode, "xj2000", "keyword", limit=2)
    assert [s.item.key for s in found][:1] == ["ship"]


async def test_paraphrase_only_match_comes_from_dense(hybrid_store, api_mode) -> None:
    query = "what is the best way to reach them? they dislike calls"
    found = await _scored(hybrid_store, api_mode, query, "hybrid", limit=3)
    assert found[0].item.key == "mail"
    assert found[0].dense is not None and found[0].dense > 0
    kw = await _scored(hybrid_store, api_mode, query, "keyword", limit=3)
    assert "mail" not in [s.item.key for s in kw]


async def test_chinese_query(hybrid_store, api_mode) -> None:
    found = await _scored(hybrid_store, api_mode, "设备什么时候交付", "hybrid", limit=3)
    assert found[0].item.key == "zh1"
    kw = await _scored(hybrid_store, api_mode, "交付", "keyword", limit=3)
    assert [s.item.key for s in kw] == ["zh1"]


async def test_relevance_in_unit_interval_and_descending(hybrid_store, api_mode) -> None:
    for mode in ("hybrid", "dense", "keyword"):
        found = await _scored(
            hybrid_store, api_mode, "invoice PO-2026-118734 unpaid", mode, limit=8
        )
        rel = [s.relevance for s in found]
        assert found and all(0.0 <= r <= 1.0 for r in rel)
        assert rel == sorted(rel, reverse=True)


def test_plain_search_uses_hybrid_and_filters(hybrid_store, api) -> None:
    s = api(hybrid_store)
    found = s.search(("memagent", "u1"), query="PO-2026-118734", limit=2)
    assert found[0].key == "po1" and found[0].score is not None
    hybrid_store.put(
        ("memagent", "u1", "acme", "facts"), "po1", {"content": FACTS["po1"], "status": "old"}
    )
    filtered = s.search(("memagent", "u1"), query="PO-2026-118734", filter={"status": "old"})
    assert [i.key for i in filtered] == ["po1"]


async def test_keyword_cache_sees_new_writes(hybrid_store, api_mode) -> None:
    first = await _scored(hybrid_store, api_mode, "ZX-9 turbine", "keyword")
    assert first == []
    hybrid_store.put(
        ("memagent", "u1", "acme", "facts"), "new", {"content": "Quote sent for ZX-9 turbine"}
    )
    again = await _scored(hybrid_store, api_mode, "ZX-9 turbine", "keyword")
    assert [s.item.key for s in again] == ["new"]
    hybrid_store.delete(("memagent", "u1", "acme", "facts"), "new")
    assert await _scored(hybrid_store, api_mode, "ZX-9 turbine", "keyword") == []


def test_search_scored_rejects_bad_input(hybrid_store) -> None:
    with pytest.raises(ValueError):
        hybrid_store.search_scored(("memagent", "u1"), query="x", mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        hybrid_store.search_scored(("memagent", "u1"), query="  ")
