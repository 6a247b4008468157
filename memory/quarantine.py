"""Quarantine: what the injection screen blocks is kept, out of recall, until a person decides.

A blocked memory (or episode) is written to the customer's ``quarantine`` namespace, never
indexed, never searched by recall, but listed by ``memagent memories list --status
quarantined`` with the reason, and exported and forgotten with the rest of the customer. A
user who knows better releases it (``memagent memories release ID``): the kind's restorer
writes it where it belongs without the screen, and the quarantined copy goes.

Two kinds restore here: ``memory`` (a candidate memory, through the write path with the
screen off) is built in; another tier registers its own with ``register_restorer`` (the
episodic tier: ``register_restorer("episode", fn)`` where ``fn(store, user, customer,
payload) -> id``), and calls ``screen_into_quarantine(..., kind="episode", content=text,
payload=...)`` before it stores a turn: a ``(id, reason)`` answer means the turn was
quarantined instead (PII redaction is the caller's, before the call).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore

from memagent.memory.id_prefix import IdNotFoundError, resolve_prefix
from memagent.memory.namespaces import namespace
from memagent.memory.records import utcnow

if TYPE_CHECKING:
    from memagent.memory.write_path import Candidate, WriteConfig

QUARANTINE_PREFIX = "q-"
"""Ids of quarantined items, so a prefix never names a live memory by mistake."""

Restorer = Callable[[BaseStore, str, str, dict[str, Any]], str | None]
_RESTORERS: dict[str, Restorer] = {}


class NotQuarantinedError(IdNotFoundError):
    """No quarantined item has that id (or the prefix is ambiguous)."""


def register_restorer(kind: str, restorer: Restorer) -> None:
    """How released items of ``kind`` go back where they belong (idempotent by kind)."""
    _RESTORERS[kind] = restorer


def quarantine(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    *,
    kind: str,
    content: str,
    reason: str,
    payload: dict[str, Any] | None = None,
    origin: str = "extraction",
    thread_id: str | None = None,
    now: datetime | None = None,
    item_id: str | None = None,
) -> str:
    """Keep ``content`` out of recall with ``reason``; return the quarantined item's id.

    ``payload`` is what the kind's restorer needs to put it back (for a memory: the
    candidate). The item is written with ``index=False``: no search ever returns it.
    """
    qid = item_id or f"{QUARANTINE_PREFIX}{uuid.uuid4()}"
    value = {
        "kind": kind,
        "content": content,
        "reason": reason,
        "status": "quarantined",
        "origin": origin,
        "thread_id": thread_id,
        "at": (now or utcnow()).isoformat(),
        "payload": payload or {},
    }
    store.put(namespace(user_id, customer_id, "quarantine"), qid, value, index=False)
    return qid


def screen_into_quarantine(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    *,
    kind: str,
    content: str,
    payload: dict[str, Any] | None = None,
    model: bool = True,
    deep: bool | None = None,
    origin: str = "extraction",
    thread_id: str | None = None,
) -> tuple[str, str] | None:
    """Screen ``content`` (``check_instruction``); when it is blocked, quarantine it and
    return ``(id, reason)``, else None (the caller stores it as usual).

    The one call another tier needs (the episodic tier for a turn: ``kind="episode"``
    and the payload its restorer takes back). The id derives from the content, so a
    retried job quarantines a text once.
    """
    from memagent.memory.poison import check_instruction
    from memagent.memory.records import content_hash

    reason = check_instruction(content, model=model, deep=deep)
    if reason is None:
        return None
    reason = f"instruction-like content: {reason}"
    qid = quarantine(
        store, user_id, customer_id, kind=kind, content=content, reason=reason,
        payload=payload, origin=origin, thread_id=thread_id,
        item_id=f"{QUARANTINE_PREFIX}{content_hash(kind + chr(0) + content)[:24]}",
    )  # fmt: skip
    return qid, reason


def list_quarantined(store: BaseStore, user_id: str, customer_id: str) -> list[dict[str, Any]]:
    """Quarantined items of one customer, oldest first, as ``memories list`` rows."""
    ns = namespace(user_id, customer_id, "quarantine")
    items, offset = [], 0
    while batch := store.search(ns, limit=500, offset=offset):
        items.extend(batch)
        offset += len(batch)
        if len(batch) < 500:
            break
    rows = [describe_quarantined(i.key, i.value, user_id, customer_id) for i in items]
    return sorted(rows, key=lambda r: (r["source"]["at"] or "", r["id"]))


def describe_quarantined(
    key: str, v: dict[str, Any], user_id: str, customer_id: str
) -> dict[str, Any]:
    cand = v.get("payload") or {}
    return {
        "id": key,
        "user_id": user_id,
        "customer_id": customer_id,
        "status": "quarantined",
        "kind": v.get("kind"),
        "content": v.get("content"),
        "reason": v.get("reason"),
        "type": cand.get("type"),
        "key": f"{cand.get('entity', v.get('kind'))}:{cand.get('attribute', '-')}",
        "version": None,
        "source": {"thread_id": v.get("thread_id"), "at": v.get("at"), "origin": v.get("origin")},
    }


def resolve_quarantined(store: BaseStore, user_id: str, customer_id: str, ref: str) -> str:
    """The full id of the quarantined item ``ref`` names (any unique prefix)."""
    ids = [r["id"] for r in list_quarantined(store, user_id, customer_id)]
    return resolve_prefix(
        ref, ids, what=f"quarantined item for user {user_id!r} / customer {customer_id!r}",
        not_found=NotQuarantinedError,
    )  # fmt: skip


def release(store: BaseStore, user_id: str, customer_id: str, ref: str) -> dict[str, Any]:
    """Put a quarantined item back where it belongs; the quarantined copy is removed only
    after the restorer has written it (a failure leaves it quarantined, nothing lost)."""
    ns = namespace(user_id, customer_id, "quarantine")
    qid = resolve_quarantined(store, user_id, customer_id, ref)
    item = store.get(ns, qid)
    if item is None:
        raise NotQuarantinedError(f"no quarantined item {ref!r}")
    kind = str(item.value.get("kind"))
    restorer = _RESTORERS.get(kind)
    if restorer is None and kind == "memory":
        restorer = restore_memory
    if restorer is None:
        raise NotQuarantinedError(f"quarantined {kind!r} items cannot be released here")
    new_id = restorer(store, user_id, customer_id, dict(item.value.get("payload") or {}))
    store.delete(ns, qid)
    return {"released": qid, "kind": kind, "id": new_id, "content": item.value.get("content")}


# -- the memory kind: the write path's blocked candidates and their release ----------------


def quarantine_candidate(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    cand: Candidate,
    reason: str,
    origin: str,
    thread_id: str | None,
    now: datetime,
    cfg: WriteConfig,
) -> tuple[str, str]:
    """Keep a blocked candidate (redacted) out of recall: (its quarantine id, its content).
    The id derives from the content, so a retried job quarantines it once."""
    from memagent.memory.records import content_hash
    from memagent.memory.write_path import _redact

    content = _redact(cand.content, cfg.redaction_key)[0] if cfg.redact else cand.content
    value = cand.value
    if value is not None and cfg.redact:
        value = _redact(value, cfg.redaction_key)[0]
    payload = cand.model_copy(update={"content": content, "value": value}).model_dump(mode="json")
    payload["origin"], payload["thread_id"] = origin, thread_id
    qid = f"{QUARANTINE_PREFIX}{content_hash(content)[:24]}"
    quarantine(
        store, user_id, customer_id, kind="memory", content=content, reason=reason,
        payload=payload, origin=origin, thread_id=thread_id, now=now, item_id=qid,
    )  # fmt: skip
    return qid, content


def restore_memory(
    store: BaseStore, user_id: str, customer_id: str, payload: dict[str, Any]
) -> str | None:
    """The ``memory`` restorer: the released candidate goes through the write path with
    the screen off (the user vouched for it); a record the path refuses stays quarantined."""
    from memagent.memory.write_path import Candidate, WriteConfig, write_memory

    origin = str(payload.pop("origin", None) or "manual")
    thread_id = payload.pop("thread_id", None)
    cand = Candidate.model_validate(payload)
    cfg = WriteConfig(check_instructions=False, redact=False, quarantine=False)
    res = write_memory(
        store, user_id, customer_id, cand, origin=origin, thread_id=thread_id, config=cfg
    )
    if res.action == "rejected":
        raise ValueError(f"cannot release: {res.reason}")
    return res.id
