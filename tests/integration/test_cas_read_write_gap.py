"""The compare-and-set write path when another writer gets in between its read and its write.

Deterministic twins of tests/integration/test_two_process_writes.py: two openers of one
embedded store in shared mode (each operation takes the directory lock and re-loads
the shard, as two processes do), no lock around ``write_memory``, and the rival's
whole write played right after this writer read the key (``_repair_key``), before
it wrote anything. Whatever the rival committed, the key must end with one chain:
versions 1..n, one active record, each value kept once.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memagent.memory import write_path
from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.write_path import Candidate, write_memory
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.qdrant_store import QdrantStore

NS = namespace("u1", "c1", "facts")
DIMS = 64


def no_lock(name: str) -> contextlib.AbstractContextManager[None]:
    return contextlib.nullcontext()


def budget(millions: int) -> Candidate:
    return Candidate(
        content=f"Customer budget is {millions} million.",
        attribute="budget",
        value=str(millions * 1_000_000),
        message_ids=[f"m{millions}"],
    )


@pytest.fixture
def two_openers() -> Iterator[tuple[QdrantStore, QdrantStore]]:
    ram = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    root = Path(tempfile.mkdtemp(prefix="memagent-gap-", dir=ram))
    index: Any = {"dims": DIMS, "embed": hash_embeddings(DIMS), "fields": ["content"]}
    try:
        with (
            QdrantStore.from_location(str(root), index=index, shared=True) as a,
            QdrantStore.from_location(str(root), index=index, shared=True) as b,
        ):
            yield a, b
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _rival_after_read(
    monkeypatch: pytest.MonkeyPatch, reader: QdrantStore, rival: Any
) -> list[int]:
    """Run ``rival()`` once, just after ``reader``'s first read of the key."""
    fired: list[int] = []
    read = write_path._repair_key

    def read_then_rival(w: Any, *args: Any, **kwargs: Any) -> Any:
        got = read(w, *args, **kwargs)
        if w.store is reader and not fired:
            fired.append(1)
            rival()
        return got

    monkeypatch.setattr(write_path, "_repair_key", read_then_rival)
    return fired


def _budgets(store: QdrantStore) -> list[tuple[str, MemoryRecord]]:
    recs = [(i.key, MemoryRecord.from_store(i.value)) for i in store.search(NS, limit=100)]
    return sorted((kr for kr in recs if kr[1].attribute == "budget"), key=lambda kr: kr[1].version)


def _assert_one_chain(store: QdrantStore, values: list[int]) -> None:
    budgets = _budgets(store)
    assert [r.version for _, r in budgets] == list(range(1, len(values) + 1)), budgets
    assert [r.value for _, r in budgets] == [str(v * 1_000_000) for v in values]
    assert [r.status for _, r in budgets] == ["deprecated"] * (len(values) - 1) + ["active"]
    assert budgets[0][1].supersedes is None
    for (prev_key, _), (_, rec) in zip(budgets, budgets[1:], strict=False):
        assert rec.supersedes == prev_key


def test_first_version_written_after_the_read_is_versioned_not_duplicated(
    two_openers: tuple[QdrantStore, QdrantStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both read "no budget yet"; the rival creates version 1 first. The late writer
    must not start a second version 1 in the key's next slot: it re-reads, versions."""
    a, b = two_openers
    fired = _rival_after_read(
        monkeypatch, b, lambda: write_memory(a, "u1", "c1", budget(1), lock=no_lock)
    )
    res = write_memory(b, "u1", "c1", budget(2), lock=no_lock)
    assert fired
    _assert_one_chain(a, [1, 2])
    assert res.action == "versioned"


def test_version_written_after_the_read_is_superseded_not_forked(
    two_openers: tuple[QdrantStore, QdrantStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both read version 1 as current; the rival supersedes it first. The late writer
    must not supersede version 1 too: it re-reads and supersedes version 2."""
    a, b = two_openers
    write_memory(a, "u1", "c1", budget(1), lock=no_lock)
    fired = _rival_after_read(
        monkeypatch, b, lambda: write_memory(a, "u1", "c1", budget(2), lock=no_lock)
    )
    res = write_memory(b, "u1", "c1", budget(3), lock=no_lock)
    assert fired
    _assert_one_chain(a, [1, 2, 3])
    assert res.action == "versioned"
