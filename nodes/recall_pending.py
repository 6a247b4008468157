"""Pending facts in recall: what the speaker said with doubt, shown labelled unconfirmed.

The write path holds a fact marked uncertain ("maybe", "might", "可能", "不确定") as
pending until a second mention, outside the search index. Until then recall still
shows it, after the confirmed facts and tagged ``unconfirmed``, when it shares a term
with the question (or the question is about the account as a whole): a salesperson who
said "the budget might be 5 million" expects to hear it back, with its doubt.
Pending facts are few per account (they expire), so a filtered listing is cheap.
"""

from __future__ import annotations

from typing import Any

from langgraph.store.base import BaseStore, Item

from memagent.memory.write_cas import PENDING_PREFIX
from memagent.stores.tokenize import tokenize

MAX_LISTED = 100


def terms(text: str) -> set[str]:
    """The keyword terms of ``text`` (the store's tokenizer), single Latin letters aside."""
    return {t for t in tokenize(text) if len(t) > 1 or not t.isascii()}


def pending_matches(
    store: BaseStore, ns: tuple[str, ...], query: str, *, everything: bool = False
) -> list[tuple[float, Item]]:
    """(overlap, item) of the pending facts that share a term with ``query`` (every one
    when ``everything``), best overlap first; overlap is the share of the query's terms
    the fact holds."""
    wanted = terms(query)
    out: list[tuple[float, Item]] = []
    for item in store.search(ns, filter={"status": "archived"}, limit=MAX_LISTED):
        if not item.key.startswith(PENDING_PREFIX) or not isinstance(item.value, dict):
            continue
        value: dict[str, Any] = item.value
        text = f"{value.get('content') or ''} {value.get('attribute') or ''}"
        shared = wanted & terms(text)
        if shared or everything:
            out.append((len(shared) / max(1, len(wanted)), item))
    out.sort(key=lambda pair: -pair[0])
    return out
