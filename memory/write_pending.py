"""Pending facts of the write path: a first low-confidence mention is held (archived,
out of recall, under ``PENDING_PREFIX``) until a second mention promotes it, and a firm
new value for the same key drops it."""

from __future__ import annotations

from datetime import datetime

from langgraph.store.base import BaseStore, Item

from memagent.memory.records import MemoryRecord
from memagent.memory.write_cas import PENDING_PREFIX, _close_superseded, _find, _record, _Writes
from memagent.memory.write_match import merge_confidence, same_value
from memagent.memory.write_types import Candidate, WriteResult


def _promote_pending(
    w: _Writes,
    ns: tuple[str, ...],
    cand: Candidate,
    rec: MemoryRecord,
    pending: Item,
    current: Item | None,
    now: datetime,
    rid: str,
) -> WriteResult:
    """A second mention of a pending fact: stored (a new version when the key holds
    another value), unless it is the same message again."""
    store = w.store
    prev = _record(pending)
    if cand.message_ids and set(cand.message_ids) <= set(prev.source.message_ids):
        return WriteResult(
            False, pending.key, prev.content, "held until a second mention", "pending"
        )
    promoted = rec.model_copy(
        update={
            "mentions": prev.mentions + 1,
            "confidence": merge_confidence(prev.confidence, rec.confidence, 1.0),
            "created_at": prev.created_at,
            "source": rec.source.model_copy(
                update={"message_ids": (prev.source.message_ids + rec.source.message_ids)[-200:]}
            ),
        }
    )
    if current is not None and not same_value(_record(current).value, rec.value):
        cur = _record(current)
        promoted = promoted.model_copy(
            update={"version": cur.version + 1, "supersedes": current.key}
        )
        new_id = w.next_id(ns, current.key, rid)
        w.insert(ns, new_id, MemoryRecord.model_validate(promoted.model_dump()).to_store())
        _close_superseded(w, ns, current, now)
        store.delete(ns, pending.key)
        return WriteResult(
            True,
            new_id,
            promoted.content,
            "second mention",
            "versioned",
            superseded=current.key,
        )
    new_id = w.first_id(ns, rec, rid)
    w.insert(ns, new_id, MemoryRecord.model_validate(promoted.model_dump()).to_store())
    store.delete(ns, pending.key)
    return WriteResult(True, new_id, promoted.content, "second mention", "created")


def _hold_pending(w: _Writes, ns: tuple[str, ...], rec: MemoryRecord, rid: str) -> WriteResult:
    """A first low-confidence mention waits, archived, for a second one."""
    held = rec.model_copy(update={"status": "archived", "valid_to": None})
    pkey = w.pending_key(ns, rec, rid)
    w.insert(ns, pkey, held.to_store(), index=False)
    return WriteResult(
        False, pkey, rec.content, "low confidence: held until a second mention", "pending"
    )


def _pending_match(store: BaseStore, ns: tuple[str, ...], rec: MemoryRecord) -> Item | None:
    items = [
        i
        for i in _find(
            store, ns, {"entity": rec.entity, "attribute": rec.attribute, "status": "archived"}
        )
        if i.key.startswith(PENDING_PREFIX)
    ]
    for i in items:
        prev = _record(i)
        if prev.content_hash == rec.content_hash or (
            rec.value is not None and same_value(prev.value, rec.value)
        ):
            return i
    return None


def _drop_pending(store: BaseStore, ns: tuple[str, ...], rec: MemoryRecord) -> None:
    """A firm new value makes a pending guess about the same key moot."""
    for i in _find(
        store, ns, {"entity": rec.entity, "attribute": rec.attribute, "status": "archived"}
    ):
        if i.key.startswith(PENDING_PREFIX):
            store.delete(ns, i.key)


def is_pending(item: Item) -> bool:
    return item.key.startswith(PENDING_PREFIX)
