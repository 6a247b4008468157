"""Concurrent writers of one scope: locks, compare-and-set writes, retries and key repair.

Split from ``memagent.memory.write_path`` (which decides *what* a candidate becomes:
created, merged, versioned, held or rejected) because *how* that decision reaches the
store safely is its own concern: ``_Writes`` turns each change into a conditional write
when the store has ``get_rev``/``put_if`` (``QdrantStore``), new records get ids derived
from what they follow so two writers of one key collide on one id, ``run_optimistic``
re-reads and redoes a lost race up to ``WriteConfig.attempts`` times before raising
``WriteConflictError``, and ``_repair_key`` heals what a crash between two writes left.
The public names are re-exported by ``write_path``; log records keep its logger name.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any, Literal, TypeVar

from langgraph.store.base import BaseStore, Item

from memagent.core.log_redaction import memagent_logger
from memagent.memory.records import MemoryRecord
from memagent.stores.protocols import MemoryStoreExtensions

# The write path's logger, as before the split: operators and tests filter on it.
log = memagent_logger("memagent.memory.write_path")

T = TypeVar("T")

PENDING_PREFIX = "pending-"
"""Item-key prefix of facts held until a second mention (stored with status archived)."""


class WriteConflictError(RuntimeError):
    """Other writers kept changing the records this write depends on; nothing of it was
    committed, and retrying the whole write later is safe."""


class _Conflict(Exception):
    """A conditional write lost to another writer: re-read and redo."""


class _Writes:
    """The write path's changes to the store: compare-and-set when the store has it.

    With ``get_rev``/``put_if`` (``QdrantStore``), a record read earlier is replaced
    only if it is still what was read, and a new record goes to an id derived from
    what it follows (the record it supersedes, or the key's first free slot),
    inserted only if absent: two writers of one key collide on one id, one wins
    and the other re-reads. Each attempt commits at most one such write, so a
    conflict never leaves half of a change behind (closing the superseded record
    after a committed insert is the repair step's job if it loses). Without
    compare-and-set these are plain puts and ids are the caller's.
    """

    def __init__(self, store: BaseStore) -> None:
        self.store = store
        self.cas: MemoryStoreExtensions | None = (
            store if isinstance(store, MemoryStoreExtensions) else None
        )

    def update(
        self, ns: tuple[str, ...], item: Item, value: dict[str, Any], index: bool | None = None
    ) -> None:
        """Replace ``item`` by ``value`` (computed from ``item.value``)."""
        idx: Literal[False] | None = False if index is False else None
        if self.cas is None:
            self.store.put(ns, item.key, value, index=idx)
            return
        got = self.cas.get_rev(ns, item.key)
        if got is None or got[0].value != item.value:
            raise _Conflict(f"{item.key} changed since it was read")
        if self.cas.put_if(ns, item.key, value, expect=got[1], index=idx) is None:
            raise _Conflict(f"{item.key} changed while it was written")

    def insert(
        self, ns: tuple[str, ...], key: str, value: dict[str, Any], index: bool | None = None
    ) -> None:
        """A new record at ``key``, only if there is none there yet."""
        idx: Literal[False] | None = False if index is False else None
        if self.cas is None:
            self.store.put(ns, key, value, index=idx)
        elif self.cas.put_if(ns, key, value, expect=None, index=idx) is None:
            raise _Conflict(f"{key} was written by another writer")

    def next_id(self, ns: tuple[str, ...], supersedes: str, rid: str) -> str:
        """Id of the version after ``supersedes``: one per record, so one writer wins."""
        return derived_id("next", *ns, supersedes) if self.cas is not None else rid

    def first_id(self, ns: tuple[str, ...], rec: MemoryRecord, rid: str) -> str:
        """Id of a record that supersedes none: the key's first free slot.

        Called after this attempt read that the key has no active record. A taken
        slot may be one another writer filled since that read: the next slot is
        then the key's only if the key still has no active record (a new version is
        written before the one it supersedes is closed, so a filled slot's chain
        always shows one); otherwise the read is stale and this attempt is redone,
        so two writers never both start a chain (two version 1 records of one key).
        """
        if self.cas is None:
            return rid
        for n in range(1000):
            sid = derived_id("first", *ns, rec.entity, rec.attribute, str(n))
            if self.store.get(ns, sid) is None:
                if n and _active(self.store, ns, (rec.entity, rec.attribute)):
                    raise _Conflict(f"{rec.key} got a first version since it was read")
                return sid
        raise WriteConflictError(f"no free record slot for {rec.key} in {ns}")

    def pending_key(self, ns: tuple[str, ...], rec: MemoryRecord, rid: str) -> str:
        if self.cas is None:
            return PENDING_PREFIX + rid
        return PENDING_PREFIX + derived_id("pending", *ns, rec.key, rec.content_hash)


# -- locks ---------------------------------------------------------------------

LockFactory = Callable[[str], AbstractContextManager[Any]]
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@contextmanager
def local_lock(name: str) -> Iterator[None]:
    """Process-local lock per scope (the default when no cross-process lock is given)."""
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(name, threading.Lock())
    with lock:
        yield


def derived_id(*parts: str) -> str:
    """Deterministic record id (job id + item index), so a retry rewrites the same record."""
    return str(uuid.UUID(hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]))


def _record(item: Item) -> MemoryRecord:
    return MemoryRecord.from_store(item.value)


# -- store queries -----------------------------------------------------------------


def _find(
    store: BaseStore, ns: tuple[str, ...], flt: dict[str, Any], limit: int = 50
) -> list[Item]:
    return list(store.search(ns, filter=flt, limit=limit))


# -- repair and retries ---------------------------------------------------------


def _active(store: BaseStore, ns: tuple[str, ...], key: tuple[str, str]) -> list[Item]:
    """The key's active records (pending ones aside)."""
    items = _find(store, ns, {"entity": key[0], "attribute": key[1], "status": "active"})
    return [i for i in items if not i.key.startswith(PENDING_PREFIX)]


def _repair_key(
    w: _Writes, ns: tuple[str, ...], key: tuple[str, str], now: datetime
) -> Item | None:
    """Keep one active record per key (the newest version); close the others.

    A crash between writing a new version and closing the old one leaves two
    active records; the next write of that key (or a retry) repairs it here.
    """
    items = _active(w.store, ns, key)
    if not items:
        return None
    items.sort(key=lambda i: (i.value.get("version", 1), i.value.get("valid_from", ""), i.key))
    keep = items[-1]
    for old in items[:-1]:
        _close(w, ns, old, now)
    return keep


def _close(w: _Writes, ns: tuple[str, ...], item: Item, now: datetime) -> None:
    rec = _record(item)
    valid_to = max(now, rec.valid_from)
    closed = rec.model_copy(update={"status": "deprecated", "valid_to": valid_to})
    w.update(ns, item, MemoryRecord.model_validate(closed.model_dump()).to_store())


def _close_superseded(w: _Writes, ns: tuple[str, ...], item: Item, now: datetime) -> None:
    """Close the record a committed new version supersedes; if another writer changed it
    meanwhile, the repair step closes it (the new version already wins there)."""
    for _ in range(3):
        try:
            _close(w, ns, item, now)
            return
        except _Conflict:
            got = w.store.get(ns, item.key)
            if got is None or got.value.get("status") != "active":
                return
            item = got
    log.info("left %s active for the next write's repair", item.key)


def _applied(w: _Writes, ns: tuple[str, ...], rec: MemoryRecord) -> Item | None:
    """A closed record of this key with this content that has every source message.

    Record ids are the caller's ``record_id`` only without compare-and-set; with it
    they follow the key's history, so a retried job finds its earlier write this way
    once a later job superseded it (an active one is merged, a no-op, as usual).
    """
    if w.cas is None or not rec.source.message_ids:
        return None
    flt = {"entity": rec.entity, "attribute": rec.attribute, "content_hash": rec.content_hash}
    for item in _find(w.store, ns, flt):
        if item.key.startswith(PENDING_PREFIX) or item.value.get("status") == "active":
            continue
        have = set(_record(item).source.message_ids)
        if set(rec.source.message_ids) <= have:
            return item
    return None


def run_optimistic(
    attempt: Callable[[], T],
    *,
    scope: str,
    key: str,
    lock: LockFactory | None,
    attempts: int,
) -> T:
    """Run ``attempt`` under the scope's lock until it commits without losing a race.

    A lost race (``_Conflict``) is re-read and redone after a short random pause, up to
    ``attempts`` times; then ``WriteConflictError`` (nothing of the write was committed).
    """
    for n in range(max(1, attempts)):
        try:
            with (lock or local_lock)(scope):
                return attempt()
        except _Conflict as exc:
            log.debug("write to %s lost a race (attempt %d): %s", key, n + 1, exc)
            time.sleep(random.uniform(0, 0.005 * 2**n))  # de-synchronise the racers
    raise WriteConflictError(
        f"gave up writing {key} in {scope} after {attempts} attempts: "
        "other writers kept changing the same records"
    )
