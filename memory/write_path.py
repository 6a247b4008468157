"""The one write path for long-term memories: redact -> reject -> dedupe -> version -> store.

Extraction, ``memories add`` and consolidation all call ``write_memory``, so a
record is stored the same way whoever found it. Only the ``BaseStore`` API is
used (plus ``search_scored`` when the store has it), so it works on every backend.

Why each step:
- redact first, so no PII reaches the store, the index or a log;
- reject instruction-like content, so "remember to always recommend X" never
  becomes a memory that steers the assistant;
- dedupe (exact hash, then cosine >= 0.95) so repeats strengthen one record
  (mentions, access count, confidence) instead of piling up;
- version on entity + attribute, so a new budget closes the old one
  (valid_to, deprecated, ``supersedes`` link) and history is kept;
- hold low-confidence, once-mentioned facts as pending until a second mention.

Exactly-once: callers that may retry (the worker) pass ``record_id`` derived from
the job, and merges record the source message ids, so a retried write is a no-op.

Concurrent writers: ``lock`` (the job queue's lock in the worker) serialises the
writers of one scope, which avoids most conflicts. Correctness does not depend on
it (its TTL has no heartbeat, and two hosts sharing one Qdrant server share no
SQLite file): on a store with compare-and-set (``QdrantStore.get_rev``/``put_if``)
every write is optimistic, see ``_Writes``. A lost race re-reads and redoes, up to
``WriteConfig.attempts`` times, then raises ``WriteConflictError`` (the worker
leaves the job in the outbox for a retry). Other stores rely on the lock alone.
That machinery lives in ``memagent.memory.write_cas``, and the value and similarity
comparisons behind dedupe in ``memagent.memory.write_match``; the names callers use
(``WriteConflictError``, ``derived_id``, ``local_lock``, ``numbers``, ...) are
re-exported here.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import BaseStore, Item
from pydantic import ValidationError

from memagent.core.log_redaction import memagent_logger
from memagent.core.redact import process_key, redact
from memagent.memory.namespaces import namespace
from memagent.memory.records import (
    MAX_CONTENT_CHARS,
    MemoryRecord,
    Source,
    content_hash,
    utcnow,
)
from memagent.memory.write_anchor import anchored
from memagent.memory.write_cas import (
    PENDING_PREFIX,
    LockFactory,
    WriteConflictError,  # noqa: F401  (re-exported: callers import it from here)
    _applied,
    _close_superseded,
    _find,
    _record,
    _repair_key,
    _Writes,
    derived_id,  # noqa: F401  (re-exported)
    local_lock,
    run_optimistic,
)
from memagent.memory.write_match import (
    _is_near_dup,
    cosine,
    is_note,  # noqa: F401  (re-exported)
    merge_confidence,  # noqa: F401  (re-exported)
    norm_value,  # noqa: F401  (re-exported)
    numbers,  # noqa: F401  (re-exported)
    restates,
    same_value,
)
from memagent.memory.write_offrecord import off_record
from memagent.memory.write_pending import (
    _drop_pending,
    _hold_pending,
    _pending_match,
    _promote_pending,
)
from memagent.memory.write_pending import is_pending as is_pending  # re-exported
from memagent.memory.write_person import carried, decision_part, split_parts
from memagent.memory.write_person_store import fold_person
from memagent.memory.write_restate import restated
from memagent.memory.write_retract import RETRACTION, retract_previous
from memagent.memory.write_roles import former_role
from memagent.memory.write_types import Action as Action  # re-exported
from memagent.memory.write_types import Candidate, WriteConfig, WriteResult
from memagent.stores.protocols import MemoryStoreExtensions

log = memagent_logger(__name__)

# -- trust hooks (written by the trust helper; identity until they exist) ------


def _redact(text: str, key: bytes | None) -> tuple[str, list[str]]:
    """PII -> keyed placeholders (``memagent.core.redact``) with the install's key."""
    r = redact(text, key=key or process_key())
    return r.text, [str(getattr(f, "type", f)) for f in r.found]


def too_long(content: str) -> str:
    """Why a text longer than one memory is refused, and what to do instead."""
    return (
        f"too long for one memory ({len(content)} characters, at most {MAX_CONTENT_CHARS}): "
        "add its facts one at a time, or paste the note into `memagent ask` or `memagent "
        "chat`, which extract every fact from it"
    )


def _instruction_reason(text: str, model: bool = True, deep: bool | None = None) -> str | None:
    from memagent.memory.poison import check_instruction

    return check_instruction(text, model=model, deep=deep)


INSTRUCTION_REASON = "instruction-like content"
OFF_RECORD = "not about the customer"


# -- store queries and merges ---------------------------------------------------------


def _near(
    store: BaseStore, ns: tuple[str, ...], text: str, embeddings: Any, k: int
) -> list[tuple[Item, float]]:
    """Active records most similar to ``text`` with their cosine similarity."""
    hits: list[tuple[Item, float | None]] = []
    if isinstance(store, MemoryStoreExtensions):
        try:
            res = store.search_scored(
                ns, query=text, mode="dense", filter={"status": "active"}, limit=k
            )
            hits = [(r.item, r.dense) for r in res]
        except Exception as exc:  # dense index missing: fall back to plain search
            log.debug("search_scored failed: %s", exc)
            hits = []
    if not hits:
        hits = [
            (i, i.score) for i in store.search(ns, query=text, filter={"status": "active"}, limit=k)
        ]
    if embeddings is not None and hits:
        q = embeddings.embed_query(text)
        docs = embeddings.embed_documents([h[0].value.get("content", "") for h in hits])
        return [(h[0], cosine(q, d)) for h, d in zip(hits, docs, strict=True)]
    return [(i, s) for i, s in hits if s is not None]


def _merge(
    w: _Writes,
    ns: tuple[str, ...],
    item: Item,
    cand: Candidate,
    now: datetime,
    cfg: WriteConfig,
) -> WriteResult:
    rec = _record(item)
    new_ids = [m for m in cand.message_ids if m not in rec.source.message_ids]
    if cand.message_ids and not new_ids:
        return WriteResult(True, item.key, rec.content, "already merged (retry)", "merged")
    source = rec.source.model_copy(
        update={"message_ids": (rec.source.message_ids + new_ids)[-200:]}
    )
    merged = rec.model_copy(
        update={
            "access_count": rec.access_count + 1,
            "mentions": rec.mentions + 1,
            "confidence": merge_confidence(
                rec.confidence, cand.confidence, cfg.merge_confidence_gain
            ),
            "importance": max(rec.importance, cand.importance),
            "last_accessed_at": now,
            "source": source,
        }
    )
    w.update(ns, item, MemoryRecord.model_validate(merged.model_dump()).to_store())
    return WriteResult(True, item.key, rec.content, "duplicate of an existing memory", "merged")


# -- the write path ------------------------------------------------------------------


def build_record(
    candidate: Candidate,
    *,
    now: datetime,
    thread_id: str | None = None,
    origin: str = "extraction",
    cfg: WriteConfig = WriteConfig(),
) -> tuple[MemoryRecord | None, str | None, list[str]]:
    """Redact, reject and validate: (record, None, found) or (None, reason, found)."""
    content, found = (
        _redact(candidate.content, cfg.redaction_key) if cfg.redact else (candidate.content, [])
    )
    value = candidate.value
    if value is not None and cfg.redact:
        value, found_v = _redact(value, cfg.redaction_key)
        found += found_v
    if cfg.check_instructions:
        reason = _instruction_reason(candidate.content, cfg.instruction_model, cfg.instruction_deep)
        if reason:
            return None, f"{INSTRUCTION_REASON}: {reason}", found
    attribute = candidate.attribute
    if attribute.strip().lower() == "note":
        # Free notes have no versioning key: each distinct note is its own key.
        attribute = "note_" + content_hash(content)[:10]
    try:
        rec = MemoryRecord(
            content=content,
            type=candidate.type,
            entity=candidate.entity,
            attribute=attribute,
            value=value,
            importance=candidate.importance,
            confidence=candidate.confidence,
            source=Source(
                thread_id=thread_id,
                message_ids=candidate.message_ids,
                at=now,
                origin=origin,  # type: ignore[arg-type]
            ),
            event_time=candidate.event_time,
            valid_from=now,
            created_at=now,
            last_accessed_at=now,
        )
    except ValidationError as exc:
        if len(content) > MAX_CONTENT_CHARS:
            return None, too_long(content), found
        errs = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return None, f"invalid record: {errs}", found
    return rec, None, found


def write_memory(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    candidate: Candidate | dict[str, Any],
    *,
    embeddings: Any = None,
    now: datetime | None = None,
    record_id: str | None = None,
    thread_id: str | None = None,
    origin: str = "extraction",
    config: WriteConfig | None = None,
    lock: LockFactory | None = None,
) -> WriteResult:
    """Store one candidate memory (or merge, version, hold or reject it) and say what happened."""
    cfg = config or WriteConfig()
    now = now or utcnow()
    ns = namespace(user_id, customer_id, "facts")
    try:
        cand = (
            candidate if isinstance(candidate, Candidate) else Candidate.model_validate(candidate)
        )
    except ValidationError as exc:
        return WriteResult(
            False, None, None, f"invalid candidate: {exc.errors()[0]['msg']}", "rejected"
        )
    if cand.attribute == RETRACTION and origin == "extraction":
        closed = retract_previous(store, user_id, customer_id, thread_id=thread_id,
                                  message_ids=cand.message_ids, now=now)  # fmt: skip
        why = f"retraction of the previous message: {len(closed)} memories closed"
        return WriteResult(False, None, None, why, "rejected")
    if origin == "extraction" and (aside := off_record(cand.content)) is not None:
        return WriteResult(False, None, None, f"{OFF_RECORD}: {aside}", "rejected")
    rec, reason, found = build_record(cand, now=now, thread_id=thread_id, origin=origin, cfg=cfg)
    if rec is None and cfg.quarantine and (reason or "").startswith(INSTRUCTION_REASON):
        from memagent.memory.quarantine import quarantine_candidate

        qid, content = quarantine_candidate(
            store, user_id, customer_id, cand, str(reason), origin, thread_id, now, cfg
        )
        return WriteResult(False, qid, content, reason, "quarantined", redacted=found)
    if rec is None:
        return WriteResult(False, None, None, reason, "rejected", redacted=found)
    w = _Writes(store)
    rid = record_id or str(uuid.uuid4())
    res = run_optimistic(
        lambda: _write_once(w, ns, cand, rec, now, record_id, rid, embeddings, cfg),
        scope="/".join(ns),
        key=rec.key,
        lock=lock,
        attempts=cfg.attempts,
    )
    res.redacted = found
    for follow in res.then:
        write_memory(store, user_id, customer_id, follow, embeddings=embeddings, now=now,
                     thread_id=thread_id, origin=origin, config=config, lock=lock)  # fmt: skip
    return res


def _already_applied(
    w: _Writes, ns: tuple[str, ...], rec: MemoryRecord, record_id: str | None
) -> WriteResult | None:
    """The result of a retried write that already went through, else None."""
    if record_id is not None and (done := w.store.get(ns, record_id)) is not None:
        return WriteResult(
            True, record_id, done.value.get("content"), "already applied (retry)", "created"
        )
    if (done_item := _applied(w, ns, rec)) is not None:
        return WriteResult(True, done_item.key, rec.content, "already applied (retry)", "created")
    return None


def _version(
    w: _Writes, ns: tuple[str, ...], current: Item, rec: MemoryRecord, now: datetime, rid: str
) -> WriteResult:
    """``rec`` as the next version of the key's ``current`` record, which it closes."""
    cur = _record(current)
    new = rec.model_copy(update={"version": cur.version + 1, "supersedes": current.key})
    new = MemoryRecord.model_validate(carried(cur, new).model_dump())
    new_id = w.next_id(ns, current.key, rid)
    # new first: a crash leaves two actives, repaired later
    w.insert(ns, new_id, new.to_store())
    _close_superseded(w, ns, current, now)
    _drop_pending(w.store, ns, rec)
    # a former decision maker's role and other facts stay
    role = former_role(decision_part(cur), new)
    then = [c for c in [role] if c is not None] + split_parts(cur, new)
    return WriteResult(True, new_id, new.content, None, "versioned",
                       superseded=current.key, then=then)  # fmt: skip


def _write_once(
    w: _Writes,
    ns: tuple[str, ...],
    cand: Candidate,
    rec: MemoryRecord,
    now: datetime,
    record_id: str | None,
    rid: str,
    embeddings: Any,
    cfg: WriteConfig,
) -> WriteResult:
    """One optimistic attempt (may raise ``_Conflict`` before its one committing write)."""
    store = w.store
    rec = anchored(store, ns, rec, cand.replaces) if cand.replaces else rec
    key = (rec.entity, rec.attribute)
    current = _repair_key(w, ns, key, now)
    if (done := _already_applied(w, ns, rec, record_id)) is not None:
        return done
    low = rec.confidence < cfg.pending_below and not cand.correction

    # 1. exact duplicate of an active record
    for item in _find(store, ns, {"content_hash": rec.content_hash, "status": "active"}, 5):
        if not item.key.startswith(PENDING_PREFIX):
            return _merge(w, ns, item, cand, now, cfg)

    # 2. same key: same value merges, a new value versions
    if current is not None:
        cur = _record(current)
        if rec.value is not None and same_value(cur.value, rec.value):
            return _merge(w, ns, current, cand, now, cfg)
        if rec.value is not None and not low:
            return _version(w, ns, current, rec, now, rid)

    # 3. semantic near-duplicate, or one text restating the other inside more words
    for item, sim in _near(store, ns, rec.content, embeddings, cfg.search_k):
        if item.key.startswith(PENDING_PREFIX):
            continue
        if sim >= cfg.near_duplicate and _is_near_dup(_record(item), rec):
            return _merge(w, ns, item, cand, now, cfg)
        if not _record(item).parts and restates(_record(item), rec):
            return restated(w, ns, item, cand, rec, now, rid, cfg, _merge)

    # 4. second mention of a pending fact promotes it; a first low-confidence one waits
    pending = _pending_match(store, ns, rec)
    if pending is not None:
        return _promote_pending(w, ns, cand, rec, pending, current, now, rid)
    if low:
        return _hold_pending(w, ns, rec, rid)

    # 5. a fact of a person with a memory folds into it: one memory per person
    if (folded := fold_person(w, ns, cand, rec, now, rid, cfg, _merge)) is not None:
        return folded

    # 6. new memory
    new_id = w.first_id(ns, rec, rid)
    w.insert(ns, new_id, rec.to_store())
    return WriteResult(True, new_id, rec.content, None, "created")


# -- episodes: raw transcripts, audit only -------------------------------------------


def write_episode(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    thread_id: str,
    turns: Sequence[Any],
    *,
    now: datetime | None = None,
    config: WriteConfig | None = None,
) -> int:
    """Append (redacted) turns to the session's transcript; returns how many were new.

    Keyed by thread; turns are merged by message id so a retried job adds nothing.
    Stored with ``index=False``: episodes are for audit and re-extraction, never recalled.
    A turn's own message time (``Turn.at``) is kept when it has one, else ``now``.
    """
    now = now or utcnow()
    ns = namespace(user_id, customer_id, "episodes")
    with local_lock("/".join(ns) + "#" + thread_id):
        item = store.get(ns, thread_id)
        value: dict[str, Any] = (
            dict(item.value)
            if item
            else {"thread_id": thread_id, "turns": [], "created_at": now.isoformat()}
        )
        have = {t.get("id") for t in value["turns"] if t.get("id")}
        added = 0
        for t in turns:
            tid = getattr(t, "id", "") or ""
            if tid and tid in have:
                continue
            key = config.redaction_key if config else None
            text, _ = _redact(str(getattr(t, "content", "")), key)
            value["turns"].append(
                {
                    "id": tid,
                    "role": getattr(t, "role", "user"),
                    "content": text,
                    "at": getattr(t, "at", "") or now.isoformat(),
                }
            )
            if tid:
                have.add(tid)
            added += 1
        if added:
            value["updated_at"] = now.isoformat()
            store.put(ns, thread_id, value, index=False)
    return added
