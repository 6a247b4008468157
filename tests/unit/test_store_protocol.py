"""``MemoryStoreExtensions``: QdrantStore has every extension, a plain BaseStore none."""

from __future__ import annotations

from langgraph.store.memory import InMemoryStore

from memagent.memory.namespaces import namespace
from memagent.memory.write_cas import _Writes
from memagent.stores import QdrantStore
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.protocols import MemoryStoreExtensions


def test_qdrant_store_implements_the_extensions() -> None:
    with QdrantStore.from_location(
        ":memory:", index={"dims": 64, "embed": hash_embeddings(64)}
    ) as store:
        assert isinstance(store, MemoryStoreExtensions)
        assert _Writes(store).cas is store


def test_a_plain_store_takes_the_base_store_path() -> None:
    store = InMemoryStore()
    assert not isinstance(store, MemoryStoreExtensions)
    writer = _Writes(store)
    assert writer.cas is None
    ns = namespace("u1", "c1", "facts")
    assert writer.next_id(ns, "old", "rid") == "rid"  # ids stay the caller's without CAS


def test_the_store_implements_the_protocol_once() -> None:
    """Each extension method is defined in one place: the sync ones and ``asearch_scored``
    on the store (``store_extensions``), the other async twins by the Protocol."""
    assert issubclass(QdrantStore, MemoryStoreExtensions)
    for name in ("aget_rev", "aput_if", "atouch"):
        assert getattr(QdrantStore, name) is getattr(MemoryStoreExtensions, name), name
    for name in ("get_rev", "put_if", "touch", "search_scored", "asearch_scored", "keyword_idf"):
        owner = next(c for c in QdrantStore.__mro__ if name in vars(c))
        assert owner.__module__ == "memagent.stores.store_extensions", name


async def test_the_protocols_async_twins_run_on_the_store() -> None:
    ns = namespace("u1", "c1", "facts")
    with QdrantStore.from_location(
        ":memory:", index={"dims": 64, "embed": hash_embeddings(64)}
    ) as store:
        rev = await store.aput_if(ns, "k", {"text": "likes tea"}, expect=None)
        assert rev is not None
        got = await store.aget_rev(ns, "k")
        assert got is not None and got[1] == rev
        assert await store.aput_if(ns, "k", {"text": "stale"}, expect="other") is None
        assert await store.atouch(ns, iter(["k", "missing"])) == 1
        item = store.get(ns, "k")
        assert item is not None and item.value["text"] == "likes tea"
        assert item.value["access_count"] == 1
