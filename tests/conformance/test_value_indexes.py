"""Value fields with a keyword payload index (``store_ops.VALUE_INDEXES``: status, type).

Every Qdrant store has the indexes, also one created before they existed, and filters
on the indexed fields keep LangGraph's semantics on every backend (values that are not
strings included: the index holds strings only, the engine checks the rest itself).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memagent.stores.qdrant_store import QdrantStore

SEED: dict[str, dict[str, Any]] = {
    "a": {"text": "red apples", "status": "active", "type": "fact"},
    "b": {"text": "red car", "status": "archived", "type": "fact"},
    "c": {"text": "green apples", "status": ["active", "x"], "type": "commitment"},
    "d": {"text": "red apples again", "status": 5, "type": "episode"},
    "e": {"text": "apples in a bowl", "status": 2.5},
    "f": {"text": "red", "type": {"kind": "fact"}},
}

FILTERS = [
    ({"status": "active"}, {"a"}),
    ({"status": {"$eq": "active"}}, {"a"}),
    ({"status": {"$ne": "active"}}, {"b", "c", "d", "e", "f"}),
    ({"status": 5}, {"d"}),
    ({"status": 2.5}, {"e"}),
    ({"status": ["active", "x"]}, {"c"}),
    ({"type": "fact", "status": "active"}, {"a"}),
    ({"type": "fact"}, {"a", "b"}),
    ({"type": {"kind": "fact"}}, {"f"}),
    ({"status": "missing"}, set()),
]


def _seed(s: Any) -> None:
    for key, value in SEED.items():
        s.put(("v",), key, value)


@pytest.fixture
def qdrant_backend(backend: str) -> str:
    if backend == "reference":
        pytest.skip("payload indexes: the reference has no engine")
    return backend


@pytest.mark.parametrize(("flt", "expected"), FILTERS)
def test_filters_on_indexed_fields_keep_their_meaning(make_store, api, index, flt, expected):
    with make_store(index=index) as store:
        s = api(store)
        _seed(s)
        assert {i.key for i in s.search(("v",), filter=flt)} == expected
        found = s.search(("v",), query="red apples", filter=flt, limit=10)
        assert {i.key for i in found} == expected


def test_numeric_ranges_on_an_indexed_field(qdrant_backend, make_store, index) -> None:
    # the reference raises on comparing a string status with a number, so Qdrant only
    with make_store(index=index) as store:
        _seed(store)
        assert {i.key for i in store.search(("v",), filter={"status": {"$gt": 3}})} == {"d"}
        found = store.search(("v",), query="apples", filter={"status": {"$lt": 3}})
        assert {i.key for i in found} == {"e"}


def test_qdrant_stores_index_the_value_fields_they_filter_on(qdrant_backend, make_store) -> None:
    with make_store() as store:
        have = store.engine.indexed_fields()
    assert {"value.status", "value.type"} <= have


def test_a_store_made_without_them_gets_them_when_opened(tmp_path: Path) -> None:
    location = str(tmp_path / "store")
    with QdrantStore.from_location(location, value_indexes=()) as store:
        store.put(("a",), "k", {"status": "active"})
        assert not {f for f in store.engine.indexed_fields() if f.startswith("value.")}
    with QdrantStore.from_location(location) as store:
        assert {"value.status", "value.type"} <= store.engine.indexed_fields()
        assert [i.key for i in store.search(("a",), filter={"status": "active"})] == ["k"]


@pytest.mark.parametrize("bad", ["status", ["status", ""], ["a b"], [3]])
def test_bad_value_indexes_are_refused_clearly(tmp_path: Path, bad: Any) -> None:
    opening = QdrantStore.from_location(str(tmp_path / "s"), value_indexes=bad)
    with pytest.raises(ValueError, match="value_indexes"), opening:
        pass
