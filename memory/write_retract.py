"""A message that takes back the one before it ("Scratch that, wrong account", "刚才那条
发错客户了，作废") closes what that message left.

The rules send one ``RETRACTION`` candidate for such a message instead of facts. The
previous message is the latest episode of the same thread before this one (episodes are
written first in every job, one per user message, so they say which message came last).
Every active memory that came from that message alone is closed, as a superseded value
is (status ``deprecated``, ``valid_to``; history kept), and an unconfirmed (pending)
fact it alone said is dropped; its episode and the take-back's own are marked outdated so
recall quotes neither. A memory that other messages also stated stays;
a person's memory that folds several messages (``write_person``) loses only the parts
that message alone said.
"""

from __future__ import annotations

from datetime import datetime

from langgraph.store.base import BaseStore, Item

from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.write_cas import (
    PENDING_PREFIX,
    _close_superseded,
    _find,
    _record,
    _Writes,
    derived_id,
)
from memagent.memory.write_person import without_message

RETRACTION = "retraction"
"""The attribute of the candidate that asks for it (never stored)."""

SCAN = 500


def previous_message(
    store: BaseStore, user_id: str, customer_id: str, thread_id: str | None, current: str
) -> str | None:
    """The id of the user message written before ``current`` in ``thread_id``."""
    if not thread_id:
        return None
    ns = namespace(user_id, customer_id, "episodes")
    mine = [
        i for i in _find(store, ns, {"thread_id": thread_id}, SCAN) if i.value.get("message_id")
    ]
    now = next(
        (i.value.get("created_at", "") for i in mine if i.value["message_id"] == current), None
    )
    earlier = [i for i in mine if i.value["message_id"] != current
               and (now is None or str(i.value.get("created_at", "")) <= str(now))]  # fmt: skip
    if not earlier:
        return None
    last = max(
        earlier, key=lambda i: (str(i.value.get("created_at", "")), str(i.value.get("at", "")))
    )
    return str(last.value["message_id"])


def _drop_parts(w: _Writes, ns: tuple[str, ...], item: Item, prev: str, now: datetime) -> bool:
    """Write a person memory again without the parts only ``prev`` said (the next version
    of its key, or of the key of what is left); whether it changed."""
    rec = _record(item)
    left = without_message(rec, prev)
    if left is rec:
        return False
    if left is None:
        _close_superseded(w, ns, item, now)
        return True
    same_key = left.key == rec.key
    nxt = left.model_copy(update={
        "version": rec.version + 1 if same_key else 1,
        "supersedes": item.key if same_key else None,
        "valid_from": max(now, rec.valid_from), "created_at": now, "last_accessed_at": now,
    })  # fmt: skip
    nxt = MemoryRecord.model_validate(nxt.model_dump())
    new_id = w.next_id(ns, item.key, derived_id("retract", item.key, prev))
    w.insert(ns, new_id, nxt.to_store())
    _close_superseded(w, ns, item, now)
    return True


def retract_previous(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    *,
    thread_id: str | None,
    message_ids: list[str],
    now: datetime,
) -> list[str]:
    """Close the active memories the previous message alone produced; their keys."""
    from memagent.memory.episodes import mark_outdated  # episodes imports the write path

    current = message_ids[-1] if message_ids else ""
    prev = previous_message(store, user_id, customer_id, thread_id, current)
    if prev is None:
        return []
    ns = namespace(user_id, customer_id, "facts")
    w = _Writes(store)
    closed = []
    for item in _find(store, ns, {"status": "active"}, SCAN):
        ids = (item.value.get("source") or {}).get("message_ids") or []
        if item.key.startswith(PENDING_PREFIX) or not ids or prev not in ids:
            continue
        if set(ids) != {prev}:
            if _drop_parts(w, ns, item, prev, now):  # one person's memory: only its part goes
                closed.append(item.key)
            continue
        _close_superseded(w, ns, item, now)
        closed.append(item.key)
    closed += _drop_pending(store, ns, prev)
    # the take-back's own episode leaves recall too: it says nothing about the customer
    mark_outdated(store, user_id, customer_id, [prev, current], by=[current], now=now)
    return closed


def _drop_pending(store: BaseStore, ns: tuple[str, ...], prev: str) -> list[str]:
    """Drop the unconfirmed facts ("maybe 2 million") only ``prev`` said, so a later
    mention starts afresh instead of confirming what was taken back. Deleted, as a firm
    new value drops a pending guess (``write_pending``): a pending fact was never a
    memory, and its key must stay free for a later first mention."""
    dropped = []
    for item in _find(store, ns, {"status": "archived"}, SCAN):
        ids = (item.value.get("source") or {}).get("message_ids") or []
        if item.key.startswith(PENDING_PREFIX) and ids and set(ids) == {prev}:
            store.delete(ns, item.key)
            dropped.append(item.key)
    return dropped
