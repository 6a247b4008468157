"""The store side of one memory per person (``memagent.memory.write_person``).

``fold_person`` is a step of ``write_path._write_once``: after exact and near duplicates,
a new stakeholder fact whose person already has an active memory is written into that
memory instead of beside it. Each attempt commits at most one new record (the next
version of the person's memory, or the decision-maker record taking the person's
memory in) before closing the record it replaces, like ordinary versioning: a crash in
between leaves two active records, never a lost fact. A retried write finds its part
already in the memory and merges (a no-op when its messages are there).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from langgraph.store.base import Item

from memagent.memory.records import MemoryRecord
from memagent.memory.write_cas import PENDING_PREFIX, _close_superseded, _find, _record, _Writes
from memagent.memory.write_person import (
    DECISION_MAKER,
    fold,
    has_part,
    is_person_record,
    person_record,
    taken_in,
)
from memagent.memory.write_types import Candidate, WriteConfig, WriteResult

SCAN = 1000
"""Active records read to find the person's memory (a customer's facts)."""

Merge = Callable[[_Writes, tuple[str, ...], Item, Candidate, datetime, WriteConfig], WriteResult]


def _people(w: _Writes, ns: tuple[str, ...]) -> dict[str, tuple[Item, MemoryRecord]]:
    out: dict[str, tuple[Item, MemoryRecord]] = {}
    for item in _find(w.store, ns, {"status": "active"}, SCAN):
        if item.key.startswith(PENDING_PREFIX):
            continue
        rec = _record(item)
        if is_person_record(rec):
            out[item.key] = (item, rec)
    return out


def _next_version(anchor: MemoryRecord, folded: MemoryRecord, rec: MemoryRecord,
                  supersedes: str, now: datetime) -> MemoryRecord:  # fmt: skip
    ids = anchor.source.message_ids + [
        m for m in rec.source.message_ids if m not in anchor.source.message_ids
    ]
    source = anchor.source.model_copy(update={"message_ids": ids[-200:], "at": now})
    nxt = folded.model_copy(
        update={
            "version": anchor.version + 1,
            "supersedes": supersedes,
            "source": source,
            "confidence": max(anchor.confidence, rec.confidence),
            "importance": max(anchor.importance, rec.importance),
            "valid_from": now,
            "created_at": now,
            "last_accessed_at": now,
            "mentions": anchor.mentions + 1,
        }
    )
    return MemoryRecord.model_validate(nxt.model_dump())


def fold_person(
    w: _Writes,
    ns: tuple[str, ...],
    cand: Candidate,
    rec: MemoryRecord,
    now: datetime,
    rid: str,
    cfg: WriteConfig,
    merge: Merge,
) -> WriteResult | None:
    """Write ``rec`` into its person's memory; None when it has none (or it would not fit)."""
    if not is_person_record(rec):
        return None
    people = _people(w, ns)
    anchor = person_record(rec, [r for _, r in people.values()])
    if anchor is None:
        return None
    item = next(i for i, r in people.values() if r is anchor)
    if has_part(anchor, rec):
        return merge(w, ns, item, cand, now, cfg)
    if rec.attribute == DECISION_MAKER and anchor.attribute != DECISION_MAKER:
        # the decision maker is single-valued: its record takes the person's memory in
        taken = taken_in(rec, anchor)
        if taken is None:
            return None
        new = _next_version(anchor, taken, rec, item.key, now)
        new = new.model_copy(update={"version": 1, "supersedes": None})
        new_id = w.first_id(ns, new, rid)
        w.insert(ns, new_id, new.to_store())
        _close_superseded(w, ns, item, now)
        return WriteResult(True, new_id, new.content, "the person's memory joined the "
                           "decision maker", "created", superseded=item.key)  # fmt: skip
    folded = fold(anchor, rec)
    if folded is None:
        return None
    new = _next_version(anchor, folded, rec, item.key, now)
    new_id = w.next_id(ns, item.key, rid)
    w.insert(ns, new_id, new.to_store())
    _close_superseded(w, ns, item, now)
    return WriteResult(True, new_id, new.content, "folded into the person's memory",
                       "versioned", superseded=item.key)  # fmt: skip
