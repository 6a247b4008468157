"""Per-customer profile: a compact digest of the active facts, read at session start.

Why: a new session should know the budget, the decision maker and the standing
preferences without a search. The digest is rebuilt from the active records by
rules (most important first, one line per key, within a character budget); a
small model may rewrite it (``summarize``), but the rules version is always
there offline. Stored under kind ``profile`` with ``index=False`` so it is read
by key, never returned by a search.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from langgraph.store.base import BaseStore

from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord, utcnow

PROFILE_KEY = "profile"
MAX_CHARS = 600
_ORDER = {"commitment": 0, "preference": 1, "fact": 2, "status": 3}


def active_records(
    store: BaseStore, user_id: str, customer_id: str, limit: int = 500
) -> list[tuple[str, MemoryRecord]]:
    """(id, record) of every active fact of one customer."""
    ns = namespace(user_id, customer_id, "facts")
    out = []
    for item in store.search(ns, filter={"status": "active"}, limit=limit):
        try:
            out.append((item.key, MemoryRecord.from_store(item.value)))
        except ValueError:
            continue  # a foreign or corrupt value never breaks the profile
    return out


def digest_lines(
    records: list[tuple[str, MemoryRecord]], max_chars: int = MAX_CHARS
) -> list[tuple[str, str]]:
    """(id, line) pairs, one per key, most important first, within ``max_chars``."""
    best: dict[str, tuple[str, MemoryRecord]] = {}
    for rid, rec in records:
        cur = best.get(rec.key)
        if cur is None or (rec.version, rec.valid_from) > (cur[1].version, cur[1].valid_from):
            best[rec.key] = (rid, rec)
    ranked = sorted(
        best.values(),
        key=lambda r: (-r[1].importance, _ORDER.get(r[1].type, 9), -r[1].confidence, r[1].content),
    )
    out: list[tuple[str, str]] = []
    used = 0
    for rid, rec in ranked:
        line = rec.content
        if used + len(line) + 1 > max_chars:
            break
        out.append((rid, line))
        used += len(line) + 1
    return out


def compact_profile(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    *,
    now: datetime | None = None,
    max_chars: int = MAX_CHARS,
) -> dict[str, Any]:
    """Rebuild and store the profile of one customer from its active facts (rules)."""
    now = now or utcnow()
    lines = digest_lines(active_records(store, user_id, customer_id), max_chars)
    value = {
        "digest": "\n".join(f"- {line}" for _, line in lines),
        "facts": [rid for rid, _ in lines],
        "updated_at": now.isoformat(),
        "method": "rules",
    }
    store.put(namespace(user_id, customer_id, "profile"), PROFILE_KEY, value, index=False)
    return value


async def acompact_profile_with_model(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    summarize: Callable[[str], Awaitable[str]],
    *,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Rules digest first, then ``summarize`` (a small model) rewrites it; rules kept on error."""
    value = compact_profile(store, user_id, customer_id, now=now)
    if not value["digest"]:
        return value
    try:
        text = (await summarize(value["digest"])).strip()
    except Exception:  # offline or a bad answer: the rules digest stands
        return value
    if text and len(text) <= MAX_CHARS * 2:
        value = {**value, "digest": text, "method": "model"}
        store.put(namespace(user_id, customer_id, "profile"), PROFILE_KEY, value, index=False)
    return value


def load_profile(store: BaseStore, user_id: str, customer_id: str) -> dict[str, Any] | None:
    """The stored profile of one customer, or None before the first extraction."""
    item = store.get(namespace(user_id, customer_id, "profile"), PROFILE_KEY)
    return dict(item.value) if item else None
