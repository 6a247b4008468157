"""A message that takes back the one before it ("Scratch that, wrong account", "刚才那条
发错客户了，作废") closes what that message left.

The rules send one ``RETRACTION`` candidate for such a message instead of facts. The
previous message is the latest episode of the same thread before this one (episodes are
written first in every job, one per user message, so they say which message came last).
Every active memory that came from that message alone is closed, as a superseded value
is (status ``deprecated``, ``valid_to``; history kept), and its episode is marked
outdated so recall does not quote it. A memory that other messages also stated stays.
"""

from __future__ import annotations

from datetime import datetime

from langgraph.store.base import BaseStore

from memagent.memory.namespaces import namespace
from memagent.memory.write_cas import PENDING_PREFIX, _close_superseded, _find, _Writes

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
        if item.key.startswith(PENDING_PREFIX) or not ids or set(ids) != {prev}:
            continue
        _close_superseded(w, ns, item, now)
        closed.append(item.key)
    mark_outdated(store, user_id, customer_id, [prev], by=[current], now=now)
    return closed
