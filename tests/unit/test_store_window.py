"""The result window of a filtered search reads no payloads ahead when the engine checked
the whole filter, and still fills up when a filter is partly checked in Python."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memagent.stores import store_ops as ops_
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.qdrant_store import QdrantStore

NS = ("u", "c", "facts")


@pytest.mark.parametrize(
    ("flt", "whole"),
    [
        (None, True),
        ({}, True),
        ({"status": "active"}, True),
        ({"status": "active", "type": "fact"}, True),
        ({"n": 3}, True),
        ({"n": {"$gte": 1, "$lt": 4.5}}, True),
        ({"status": {"$eq": "active"}}, True),
        ({"meta": {"tier": "gold"}}, True),
        ({"status": {"$ne": "archived"}}, False),
        ({"status": ["active"]}, False),
        ({"flag": True}, False),
        ({"meta": {}}, False),
        ({"a.b": "x"}, False),
        ({"status": "active", "n": {"$gt": "3"}}, False),
    ],
)
def test_engine_checks_all(flt: dict[str, Any] | None, whole: bool) -> None:
    assert ops_.engine_checks_all(flt) is whole
    if whole:  # every condition became an engine condition
        assert len(ops_.translate_filter(flt)) == _leaves(flt or {})


def _leaves(flt: dict[str, Any]) -> int:
    n = 0
    for want in flt.values():
        if isinstance(want, dict) and not any(str(k).startswith("$") for k in want):
            n += _leaves(want)
        else:
            n += len(want) if isinstance(want, dict) else 1
    return n


@pytest.fixture
def store() -> Iterator[QdrantStore]:
    index = {"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]}
    with QdrantStore.from_location(":memory:", index=index) as s:  # type: ignore[arg-type]
        for i in range(60):
            status = "archived" if i % 3 == 0 else "active"
            s.put(NS, f"k{i}", {"content": f"budget note {i} for the rollout", "status": status})
        yield s


def _payload_reads(store: QdrantStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    reads: list[int] = []
    retrieve = store.engine.retrieve

    def spy(ids: list[str], fields: list[str] | None = None) -> Any:
        if fields == ops_.ITEM_FIELDS:
            reads.append(len(ids))
        return retrieve(ids, fields)

    monkeypatch.setattr(store.engine, "retrieve", spy)
    return reads


def test_an_engine_checked_filter_reads_only_the_window(store, monkeypatch) -> None:
    reads = _payload_reads(store, monkeypatch)
    found = store.search_scored(NS, query="budget rollout", filter={"status": "active"}, limit=10)
    assert len(found) == 10 and all(h.item.value["status"] == "active" for h in found)
    assert sum(reads) <= 10 + 2  # was 22: twice the window read ahead


def test_a_filter_checked_in_python_still_fills_the_window(store, monkeypatch) -> None:
    flt = {"status": {"$ne": "archived"}}
    reads = _payload_reads(store, monkeypatch)
    top = store.search_scored(NS, query="budget rollout", filter=flt, limit=10)
    assert len(top) == 10 and all(h.item.value["status"] == "active" for h in top)
    assert sum(reads) > 10  # read ahead: the engine returned archived items too
    deeper = store.search_scored(NS, query="budget rollout", filter=flt, limit=40)
    assert [h.item.key for h in deeper][:10] == [h.item.key for h in top]
