"""Compare-and-set: the engines' conditional upsert, ``QdrantStore.get_rev``/``put_if``,
and the shared embedded store (two openers of one directory).

The engine tests run on both engines (edge in a temp dir, qdrant-client's local mode);
the store tests on every Qdrant backend of the contract suite.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_contract_helpers import DIMS

from memagent.stores import store_ops as ops_
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.engine_edge import EdgeEngine, StoreLockedError
from memagent.stores.engines import Engine, Match, Missing, PointData, Where
from memagent.stores.qdrant_store import QdrantStore

NS = ("memagent", "u1", "acme", "facts")


@pytest.fixture(params=["edge", "client"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    eng: Engine
    if request.param == "edge":
        eng = EdgeEngine(str(tmp_path / "edge"), 2)
    else:
        from memagent.stores.engine_client import ClientEngine

        eng = ClientEngine(str(tmp_path / "client"), 2)
    yield eng
    eng.close()


def _point(pid: str, rev: str) -> PointData:
    return PointData(pid, None, {"rev": rev})


def _rev(engine: Engine, pid: str) -> Any:
    recs = engine.retrieve([pid])
    return recs[0].payload.get("rev") if recs else None


def test_insert_mode_writes_only_absent_points(engine: Engine) -> None:
    pid = str(uuid.uuid4())
    engine.upsert_if([_point(pid, "a")], mode="insert")
    engine.upsert_if([_point(pid, "b")], mode="insert")
    assert _rev(engine, pid) == "a"


def test_update_mode_with_where_is_a_compare_and_set(engine: Engine) -> None:
    pid, absent = str(uuid.uuid4()), str(uuid.uuid4())
    engine.upsert([_point(pid, "a")])
    engine.upsert_if([_point(pid, "b")], where=Where(must=(Match("rev", "x"),)), mode="update")
    assert _rev(engine, pid) == "a"
    engine.upsert_if([_point(pid, "b")], where=Where(must=(Match("rev", "a"),)), mode="update")
    assert _rev(engine, pid) == "b"
    engine.upsert_if([_point(absent, "c")], where=Where(must=(Match("rev", "a"),)), mode="update")
    assert engine.retrieve([absent]) == []


def test_missing_matches_points_without_the_field(engine: Engine) -> None:
    old, new = str(uuid.uuid4()), str(uuid.uuid4())
    engine.upsert([PointData(old, None, {"x": 1}), _point(new, "a")])
    for pid in (old, new):
        engine.upsert_if([_point(pid, "z")], where=Where(must=(Missing("rev"),)), mode="update")
    assert (_rev(engine, old), _rev(engine, new)) == ("z", "a")


def test_conditional_set_payload(engine: Engine) -> None:
    pid = str(uuid.uuid4())
    engine.upsert([_point(pid, "a")])
    engine.set_payload([pid], {"rev": "b"}, where=Where(must=(Match("rev", "x"),)))
    assert _rev(engine, pid) == "a"
    engine.set_payload([pid], {"rev": "b"}, where=Where(must=(Match("rev", "a"),)))
    assert _rev(engine, pid) == "b"


# ------------------------------------------------------------------ the store


@pytest.fixture
def qdrant_backend(backend: str) -> str:
    if backend == "reference":
        pytest.skip("QdrantStore extension: the reference has no put_if")
    return backend


def test_put_if_absent_then_compare_and_set(qdrant_backend, make_store, index) -> None:
    with make_store(index=index) as store:
        assert store.get_rev(NS, "k") is None
        first = store.put_if(NS, "k", {"text": "one"}, expect=None)
        assert first and store.put_if(NS, "k", {"text": "two"}, expect=None) is None
        item, rev = store.get_rev(NS, "k")
        assert (item.value, rev) == ({"text": "one"}, first)
        assert store.put_if(NS, "k", {"text": "two"}, expect="stale") is None
        second = store.put_if(NS, "k", {"text": "two"}, expect=first)
        assert second and second != first
        assert store.get(NS, "k").value == {"text": "two"}
        assert [h.key for h in store.search(NS, query="two")] == ["k"]  # indexed like a put


def test_any_put_or_touch_invalidates_the_token(qdrant_backend, make_store, index) -> None:
    with make_store(index=index) as store:
        rev = store.put_if(NS, "k", {"text": "one"}, expect=None)
        store.put(NS, "k", {"text": "other"})
        assert store.put_if(NS, "k", {"text": "mine"}, expect=rev) is None
        _, rev = store.get_rev(NS, "k")
        assert store.touch(NS, ["k"]) == 1
        assert store.put_if(NS, "k", {"text": "mine"}, expect=rev) is None
        assert store.get(NS, "k").value["access_count"] == 1


def test_put_if_over_an_item_written_before_tokens(qdrant_backend, make_store, index) -> None:
    with make_store(index=index) as store:
        store.put(NS, "k", {"text": "old"})
        store.engine.set_payload([ops_.point_id(NS, "k")], {ops_.REV: None})
        _, rev = store.get_rev(NS, "k")
        assert rev == ""
        assert store.put_if(NS, "k", {"text": "new"}, expect="")
        assert store.get(NS, "k").value == {"text": "new"}


def test_expired_item_counts_as_absent(qdrant_backend, make_store, index) -> None:
    with make_store(index=index, ttl={"default_ttl": 1}) as store:
        store.put(NS, "k", {"text": "old"}, ttl=-1)  # already expired, not swept
        assert store.get_rev(NS, "k") is None
        assert store.put_if(NS, "k", {"text": "new"}, expect=None, ttl=None)
        assert store.get(NS, "k").value == {"text": "new"}


def test_put_if_rejects_bad_input(qdrant_backend, make_store) -> None:
    with make_store() as store:
        with pytest.raises(ValueError, match="not storable"):
            store.put_if(NS, "k", {"x": float("nan")}, expect=None)
        assert store.get(NS, "k") is None


# ------------------------------------------------------------------ shared embedded store


def _shared(path: Path) -> Any:
    idx = {"dims": DIMS, "embed": hash_embeddings(DIMS), "fields": ["text"]}
    return QdrantStore.from_location(str(path), index=idx, shared=True)  # type: ignore[arg-type]


def test_two_shared_openers_see_each_others_writes_and_keyword_cache(tmp_path: Path) -> None:
    with _shared(tmp_path) as a, _shared(tmp_path) as b:
        a.put(NS, "k1", {"text": "apples from Normandy"})
        assert [h.item.key for h in b.search_scored(NS, query="apples", mode="keyword")] == ["k1"]
        b.put(NS, "k2", {"text": "apples from Kent"})
        # a's keyword corpus was cached before b wrote: the version token in the shard says so
        got = a.search_scored(NS, query="apples", mode="keyword")
        assert sorted(h.item.key for h in got) == ["k1", "k2"]
        rev = a.get_rev(NS, "k1")[1]  # type: ignore[index]
        assert b.put_if(NS, "k1", {"text": "pears"}, expect=rev)
        assert a.put_if(NS, "k1", {"text": "plums"}, expect=rev) is None
        assert a.get(NS, "k1").value == {"text": "pears"}  # type: ignore[union-attr]
    with QdrantStore.from_location(str(tmp_path)) as again:  # and it is all on disk
        assert sorted(i.key for i in again.search(NS)) == ["k1", "k2"]


def test_shared_open_waits_then_fails_clearly_while_held_exclusively(tmp_path: Path) -> None:
    busy = pytest.raises(StoreLockedError, match="stayed busy")
    with QdrantStore.from_location(str(tmp_path)), busy:
        EdgeEngine(str(tmp_path), None, shared=True, lock_timeout_s=0.2)
    shared = EdgeEngine(str(tmp_path), None, shared=True, lock_timeout_s=0.2)
    # between its operations a shared opener holds nothing; during one it does
    with pytest.raises(StoreLockedError, match="shared=True"), shared.session():
        EdgeEngine(str(tmp_path), None)
    shared.close()
    EdgeEngine(str(tmp_path), None).close()


def test_memory_store_cannot_be_shared() -> None:
    with pytest.raises(ValueError, match="memory"):
        EdgeEngine(":memory:", 2, shared=True)


def test_touch_never_undoes_a_concurrent_put(qdrant_backend, make_store, index) -> None:
    """``touch`` takes no store lock: its per-item compare-and-set alone keeps a put that
    lands between its read and its write (from this process or another) from being
    overwritten with the stale value it read."""
    import threading

    with make_store(index=index) as store:
        store.put(NS, "k", {"text": "v0"})
        done = threading.Event()

        def touching() -> None:
            while not done.is_set():
                store.touch(NS, ["k"])

        toucher = threading.Thread(target=touching)
        toucher.start()
        try:
            for i in range(1, 40):
                store.put(NS, "k", {"text": f"v{i}"})
        finally:
            done.set()
            toucher.join()
        assert store.get(NS, "k").value["text"] == "v39"
