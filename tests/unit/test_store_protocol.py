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
