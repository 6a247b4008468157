"""Audit and deletion over one scope: list, show, history, export, delete, forget.

Plain functions over a ``BaseStore`` returning JSON-ready dicts, shared by the
CLI (``memagent memories ...``, ``memagent forget``) and tests. Every function
takes a user id; nothing here lists or deletes across users.

A memory id may be given as any unique prefix of it (as git takes commit ids), so the
shortened ids of a table work (``resolve_id``); an ambiguous prefix is an error that
lists the candidates.

Delete removes the content from everything derived from the record, not only the
record: the customer's profile is recompacted without it (or dropped when nothing is
left), and the turns it was extracted from leave the session's episode transcript
(``scrub_derived``). Working memory and the running summary live in the session's
checkpoint; the caller scrubs those through the ``scrub_sessions`` hook.

Forget removes everything of a user (or one of their customers): facts (with
their dense and keyword index entries, which the store drops with the item),
pending facts, episodes, the profile, queued jobs, and, through the
``delete_sessions`` hook, checkpointed sessions. It then checks that nothing is
left and says so in the report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from langgraph.store.base import BaseStore, Item

from memagent.memory.episodes import delete_turn_episodes
from memagent.memory.forgetting import refresh_profile
from memagent.memory.id_prefix import IdNotFoundError, resolve_prefix
from memagent.memory.namespaces import KINDS, namespace, scope_of
from memagent.memory.profile import load_profile
from memagent.memory.write_path import PENDING_PREFIX
from memagent.stores.protocols import MemoryStoreExtensions

MAX_QUERY_CHARS = 2000
SessionSources = dict[str, list[str]]
"""thread id -> message ids that a deleted memory was extracted from."""


class ScopedJobs(Protocol):
    def delete_scope(self, user_id: str, customer_id: str | None = None) -> int: ...


class MemoryNotFoundError(IdNotFoundError):
    """No memory with that id in that scope."""


class InvalidQueryError(ValueError):
    """An empty or oversized search query."""


def describe(item: Item, user_id: str, customer_id: str) -> dict[str, Any]:
    """One record with its provenance, as list/show/export print it."""
    v = item.value
    src = v.get("source") or {}
    return {
        "id": item.key,
        "user_id": user_id,
        "customer_id": customer_id,
        "status": "pending" if item.key.startswith(PENDING_PREFIX) else v.get("status"),
        "content": v.get("content"),
        "type": v.get("type"),
        "key": f"{v.get('entity')}:{v.get('attribute')}",
        "value": v.get("value"),
        "importance": v.get("importance"),
        "confidence": v.get("confidence"),
        "version": v.get("version"),
        "supersedes": v.get("supersedes"),
        "valid_from": v.get("valid_from"),
        "valid_to": v.get("valid_to"),
        "mentions": v.get("mentions"),
        "access_count": v.get("access_count"),
        "last_accessed_at": v.get("last_accessed_at"),
        "source": {
            "thread_id": src.get("thread_id"),
            "message_ids": src.get("message_ids", []),
            "at": src.get("at"),
            "origin": src.get("origin"),
        },
    }


def _all(store: BaseStore, ns: tuple[str, ...], batch: int = 500) -> list[Item]:
    out: list[Item] = []
    while True:
        items = store.search(ns, limit=batch, offset=len(out))
        out.extend(items)
        if len(items) < batch:
            return out


def customers_of(store: BaseStore, user_id: str) -> list[str]:
    """Customer ids the user has anything stored for."""
    listed = store.list_namespaces(prefix=namespace(user_id), limit=100_000)
    return sorted({c for _, c, _ in map(scope_of, listed) if c is not None})


def list_memories(
    store: BaseStore,
    user_id: str,
    customer_id: str | None = None,
    *,
    status: str | None = "active",
) -> list[dict[str, Any]]:
    """Facts of one customer (or all customers of the user); ``status=None`` lists every
    status, quarantined items included; ``status="quarantined"`` lists only what the
    injection screen kept out of recall, with the reason."""
    from memagent.memory.quarantine import list_quarantined

    out = []
    for customer in [customer_id] if customer_id else customers_of(store, user_id):
        if status in (None, "quarantined"):
            out.extend(list_quarantined(store, user_id, customer))
        if status == "quarantined":
            continue
        for item in _all(store, namespace(user_id, customer, "facts")):
            row = describe(item, user_id, customer)
            if status is None or row["status"] == status:
                out.append(row)
    out.sort(
        key=lambda r: (r["customer_id"], r["status"] == "quarantined", r["key"], r["version"] or 0)
    )
    return out


def search_memories(
    store: BaseStore, user_id: str, customer_id: str, query: str, *, limit: int = 10
) -> list[dict[str, Any]]:
    """Active facts most relevant to ``query`` (dense+keyword when the store has it)."""
    if not query.strip():
        raise InvalidQueryError("the search query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidQueryError(
            f"the search query has {len(query)} characters; the limit is {MAX_QUERY_CHARS}"
        )
    ns = namespace(user_id, customer_id, "facts")
    rows = []
    if isinstance(store, MemoryStoreExtensions):
        for r in store.search_scored(ns, query=query, filter={"status": "active"}, limit=limit):
            rows.append({**describe(r.item, user_id, customer_id), "relevance": r.relevance})
        return rows
    for item in store.search(ns, query=query, filter={"status": "active"}, limit=limit):
        rows.append({**describe(item, user_id, customer_id), "relevance": item.score})
    return rows


def resolve_id(store: BaseStore, user_id: str, customer_id: str, ref: str) -> str:
    """The full id of the memory ``ref`` names (the id or a unique prefix of it)."""
    ns = namespace(user_id, customer_id, "facts")
    if ref and store.get(ns, ref) is not None:
        return ref
    try:
        return resolve_prefix(
            ref, (i.key for i in _all(store, ns)), what="memory", not_found=MemoryNotFoundError
        )
    except MemoryNotFoundError:
        raise MemoryNotFoundError(
            f"no memory {ref!r} for user {user_id!r} / customer {customer_id!r}"
        ) from None


def show_memory(store: BaseStore, user_id: str, customer_id: str, memory_id: str) -> dict[str, Any]:
    """One memory with its provenance; ``memory_id`` may be a unique prefix."""
    memory_id = resolve_id(store, user_id, customer_id, memory_id)
    item = store.get(namespace(user_id, customer_id, "facts"), memory_id)
    if item is None:
        raise MemoryNotFoundError(
            f"no memory {memory_id!r} for user {user_id!r} / customer {customer_id!r}"
        )
    return describe(item, user_id, customer_id)


def current_memories(store: BaseStore, user_id: str, customer_id: str) -> list[dict[str, Any]]:
    """What the assistant currently holds true about a customer: the active version of
    each memory (``/memories`` in chat). Superseded versions are history
    (``memories history``), archived and unconfirmed ones are not current either."""
    return list_memories(store, user_id, customer_id, status="active")


def history(
    store: BaseStore, user_id: str, customer_id: str, memory_id: str
) -> list[dict[str, Any]]:
    """Every version of the memory's entity + attribute, oldest first, with supersedes links."""
    rec = show_memory(store, user_id, customer_id, memory_id)
    entity, attribute = rec["key"].split(":", 1)
    items = store.search(
        namespace(user_id, customer_id, "facts"),
        filter={"entity": entity, "attribute": attribute},
        limit=1000,
    )
    rows = [describe(i, user_id, customer_id) for i in items]
    return sorted(rows, key=lambda r: (r["version"] or 0, r["valid_from"] or ""))


def export(store: BaseStore, user_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """Everything of a scope as JSON: facts (all statuses), episodes and profiles."""
    customers = [customer_id] if customer_id else customers_of(store, user_id)
    return {
        "user_id": user_id,
        "customers": {
            c: {
                "facts": list_memories(store, user_id, c, status=None),
                "episodes": [i.value for i in _all(store, namespace(user_id, c, "episodes"))],
                "profile": load_profile(store, user_id, c),
            }
            for c in customers
        },
    }


def delete_memory(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    memory_id: str,
    *,
    all_versions: bool = False,
    scrub_sessions: Callable[[SessionSources, list[str]], int] | None = None,
) -> dict[str, Any]:
    """Delete one record (or its whole version history) and what was derived from it.

    ``memory_id`` may be a unique prefix. Returns the deleted ids and what was scrubbed:
    ``profile`` (recompacted or dropped), ``episode_turns`` removed, and ``sessions``
    whose working memory / summary the ``scrub_sessions(sources, texts)`` hook cleaned.
    """
    ns = namespace(user_id, customer_id, "facts")
    memory_id = resolve_id(store, user_id, customer_id, memory_id)
    rows = (
        history(store, user_id, customer_id, memory_id)
        if all_versions
        else [show_memory(store, user_id, customer_id, memory_id)]
    )
    for row in rows:
        store.delete(ns, row["id"])
    report = scrub_derived(store, user_id, customer_id, rows)
    texts = [str(r["content"]) for r in rows if r.get("content")]
    sessions = scrub_sessions(report.pop("sources"), texts) if scrub_sessions is not None else None
    report.pop("sources", None)
    return {
        "deleted": [r["id"] for r in rows],
        "user_id": user_id,
        "customer_id": customer_id,
        **report,
        "sessions": sessions,
    }


def sources_of(rows: Iterable[dict[str, Any]]) -> SessionSources:
    """thread id -> message ids the described records were extracted from."""
    out: SessionSources = {}
    for row in rows:
        src = row.get("source") or {}
        thread, ids = src.get("thread_id"), src.get("message_ids") or []
        if thread and ids:
            out.setdefault(str(thread), [])
            out[str(thread)] += [str(i) for i in ids if str(i) not in out[str(thread)]]
    return out


def _without_exchanges(turns: list[dict[str, Any]], ids: set[str]) -> list[dict[str, Any]]:
    """``turns`` minus the user turns in ``ids`` and the replies to them (every turn up to
    the next user turn): a reply restates what it answers."""
    kept: list[dict[str, Any]] = []
    dropping = False
    for turn in turns:
        if turn.get("role") == "user":
            dropping = turn.get("id") in ids
        if not dropping:
            kept.append(turn)
    return kept


def scrub_derived(
    store: BaseStore, user_id: str, customer_id: str, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """After deleting ``rows`` (as ``describe`` gives them): recompact the profile and
    remove the exchanges they came from (the user turn and its reply) out of the episode
    transcripts, and the recallable episodes of those user turns."""
    sources = sources_of(rows)
    removed = 0
    ns = namespace(user_id, customer_id, "episodes")
    quotes = delete_turn_episodes(
        store, user_id, customer_id, [m for ids in sources.values() for m in ids]
    )
    for thread, message_ids in sources.items():
        item = store.get(ns, thread)
        if item is None:
            continue
        turns = list(item.value.get("turns", []))
        kept = _without_exchanges(turns, set(message_ids))
        if len(kept) == len(turns):
            continue
        removed += len(turns) - len(kept)
        if kept:
            store.put(ns, thread, {**item.value, "turns": kept}, index=False)
        else:
            store.delete(ns, thread)
    return {
        "profile": refresh_profile(store, user_id, customer_id),
        "episode_turns": removed,
        "episodes": quotes,
        "sources": sources,
    }


def forget(
    store: BaseStore,
    user_id: str,
    customer_id: str | None = None,
    *,
    jobs: ScopedJobs | None = None,
    delete_sessions: Callable[[str, str | None], int] | None = None,
) -> dict[str, Any]:
    """Remove everything of a user or of one customer of a user; report what was removed."""
    removed = dict.fromkeys(KINDS, 0)
    removed["pending"] = 0
    customers = [customer_id] if customer_id else customers_of(store, user_id)
    for c in customers:
        for kind in KINDS:
            ns = namespace(user_id, c, kind)  # type: ignore[arg-type]
            while items := store.search(ns, limit=500):
                for item in items:
                    store.delete(ns, item.key)
                    bucket = "pending" if item.key.startswith(PENDING_PREFIX) else kind
                    removed[bucket] += 1
    prefix = namespace(user_id, customer_id) if customer_id else namespace(user_id)
    # Items under namespaces that are not one of the kinds (older layouts) go too.
    for ns in store.list_namespaces(prefix=prefix, limit=100_000):
        while items := store.search(ns, limit=500):
            for item in items:
                store.delete(ns, item.key)
                removed["other"] = removed.get("other", 0) + 1
    report: dict[str, Any] = {
        "user_id": user_id,
        "customer_id": customer_id,
        "customers": customers,
        "removed": removed,
        "jobs": jobs.delete_scope(user_id, customer_id) if jobs is not None else None,
        "sessions": delete_sessions(user_id, customer_id) if delete_sessions is not None else None,
    }
    report["remaining"] = sum(
        len(store.search(ns, limit=10)) for ns in store.list_namespaces(prefix=prefix)
    )
    return report
