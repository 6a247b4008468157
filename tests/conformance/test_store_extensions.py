"""QdrantStore extensions beyond BaseStore: keyword-only fields and ``touch``.

Run on every Qdrant backend x sync/async (the reference has neither a keyword side
nor ``touch``), with the hash embedder of the contract suite.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import numpy as np
import pytest
from langgraph.store.base import InvalidNamespaceError
from store_contract_helpers import DIMS

from memagent.stores.embeddings import hash_embeddings
from memagent.stores.fusion import HybridConfig
from memagent.stores.qdrant_store import QdrantStore

NS = ("memagent", "u1", "acme", "facts")
TURN = "Caroline: Yes, twice last year!"
CONTEXT = "[8 May, 2023]\nMelanie: Have you been to the Louvre in Paris?"


@pytest.fixture
def qdrant_backend(backend: str) -> str:
    if backend == "reference":
        pytest.skip("QdrantStore extension: the reference has no keyword side and no touch")
    return backend


def _embedded(embeddings) -> list[str]:
    return [t for call in embeddings.document_calls for t in call]


def _cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# ------------------------------------------------------------------ keyword-only fields


def test_keyword_only_field_is_searched_by_keywords_and_never_embedded(
    qdrant_backend, make_store, api, index, embeddings
) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(NS, "turn", {"text": TURN, "context": CONTEXT}, index=["text", "context"])
        s.put(NS, "other", {"text": "Melanie: I bought new running shoes."})
        assert TURN in _embedded(embeddings)
        assert not any("Louvre" in t for t in _embedded(embeddings))
        # keywords reach the turn through its context (stemmed: "louvre" == "Louvre")
        found = s.search_scored(NS, query="Louvre Paris visit", mode="keyword")
        assert [h.item.key for h in found] == ["turn"]
        # the dense side scores the turn alone: its one vector is the turn's
        q = "Louvre Paris visit"
        dense = {h.item.key: h.dense for h in s.search_scored(NS, query=q, mode="dense")}
        expected = _cos(embeddings.inner.embed_query(q), embeddings.inner.embed_query(TURN))
        assert dense["turn"] == pytest.approx(expected, abs=1e-5)
        assert s.get(NS, "turn").value["context"] == CONTEXT  # the value itself is intact


def test_keyword_only_field_joins_keywords_without_being_listed(
    qdrant_backend, make_store, api, index, embeddings
) -> None:
    with make_store(index=index) as store:  # store fields: ["text"] only
        s = api(store)
        s.put(NS, "turn", {"text": TURN, "context": CONTEXT})
        assert [h.item.key for h in s.search_scored(NS, query="Louvre", mode="keyword")] == ["turn"]
        assert _embedded(embeddings) == [TURN]


def test_whole_value_path_is_embedded_without_keyword_only_keys(
    qdrant_backend, make_store, api, index, embeddings
) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(NS, "turn", {"text": TURN, "context": CONTEXT}, index=["$"])
        (embedded,) = _embedded(embeddings)
        assert json.loads(embedded) == {"text": TURN}
        assert [h.item.key for h in s.search_scored(NS, query="Louvre", mode="keyword")] == ["turn"]


def test_item_with_only_keyword_only_text_is_not_indexed(
    qdrant_backend, make_store, api, index, embeddings
) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(NS, "ctx", {"context": CONTEXT}, index=["context"])
        assert _embedded(embeddings) == []
        assert s.search_scored(NS, query="Louvre", mode="keyword") == []
        assert [i.key for i in s.search(NS)] == ["ctx"]  # it still lists


def test_keyword_only_fields_are_configurable() -> None:
    emb = hash_embeddings(DIMS)
    index = {"dims": DIMS, "embed": emb, "fields": ["text", "context"]}
    hybrid = HybridConfig(keyword_only_fields=("notes",))
    with QdrantStore.from_location(":memory:", index=index, hybrid=hybrid) as store:  # type: ignore[arg-type]
        store.put(NS, "k", {"text": TURN, "context": CONTEXT, "notes": "Louvre ticket"})
        dense = store.search_scored(NS, query=CONTEXT, mode="dense")[0].dense
        assert dense == pytest.approx(1.0, abs=1e-5)  # "context" is embedded again
        found = store.search_scored(NS, query="ticket", mode="keyword")
        assert [h.item.key for h in found] == ["k"]  # "notes" is keyword-only


# ------------------------------------------------------------------ touch


def test_touch_updates_access_stats_only(qdrant_backend, make_store, api, index) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(NS, "a", {"text": "quote for a turbine", "access_count": 2, "importance": 0.4})
        s.put(NS, "b", {"text": "valves delivered"})
        before = s.get(NS, "a")
        at = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
        assert s.touch(NS, ["a", "b", "missing"], at=at) == 2
        assert s.touch(NS, ["a"], at=at) == 1
        after = s.get(NS, "a")
        assert after.value == {
            "text": "quote for a turbine",
            "access_count": 4,
            "importance": 0.4,
            "last_accessed_at": at.isoformat(),
        }
        assert after.updated_at == before.updated_at and after.created_at == before.created_at
        assert s.get(NS, "b").value["access_count"] == 1
        assert s.touch(NS, []) == 0


def test_touched_items_stay_in_both_search_sides(qdrant_backend, make_store, api, index) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(NS, "a", {"text": "quote for a turbine"})
        s.put(NS, "b", {"text": "valves delivered on Friday"})
        assert s.search_scored(NS, query="turbine", mode="keyword")[0].item.key == "a"
        misses = store._searcher.cache.misses
        s.touch(NS, ["a"])
        for mode in ("keyword", "dense", "hybrid"):
            found = s.search_scored(NS, query="turbine quote", mode=mode)
            assert found[0].item.key == "a", mode
            assert found[0].item.value["access_count"] == 1
        assert store._searcher.cache.misses == misses  # keyword text unchanged: corpus kept
        assert [i.key for i in s.search(NS)] == ["b", "a"]  # listing order kept (not a put)


def test_filtered_keyword_search_sees_touched_values(
    qdrant_backend, make_store, api, index
) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(NS, "a", {"text": "quote for a turbine", "access_count": 0})
        s.put(NS, "b", {"text": "turbine blades in stock", "access_count": 0})
        flt = {"access_count": {"$gte": 1}}
        assert s.search_scored(NS, query="turbine", mode="keyword", filter=flt) == []
        s.touch(NS, ["b"])
        found = s.search_scored(NS, query="turbine", mode="keyword", filter=flt)
        assert [h.item.key for h in found] == ["b"]


def test_touch_skips_expired_items_and_rejects_bad_input(qdrant_backend, make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        s.put(("t",), "short", {"v": 1}, ttl=0.005)  # 0.3 s
        time.sleep(0.5)
        assert s.touch(("t",), ["short"]) == 0
        with pytest.raises(InvalidNamespaceError):
            s.touch((), ["k"])
        with pytest.raises(InvalidNamespaceError):
            s.touch(("a.b",), ["k"])
        with pytest.raises(TypeError):
            s.touch(("t",), "short")


def test_recall_touch_records_uses_touch(qdrant_backend, make_store, index) -> None:
    from memagent.nodes.recall import touch_records

    with make_store(index=index) as store:
        store.put(NS, "a", {"text": "quote for a turbine", "status": "active"})
        now = datetime(2026, 5, 2, tzinfo=UTC)
        assert touch_records(store, NS, ["a", "a"], now) == 1
        value = store.get(NS, "a").value
        assert value["access_count"] == 1 and value["last_accessed_at"] == now.isoformat()
