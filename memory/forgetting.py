"""Forgetting and consolidation (``memagent maintain``).

Decay: an active record whose retention score ``recency(last access) x confidence``
fell below ``archive_below`` is archived (kept, never recalled), unless its
importance is at least ``protect_importance``. Deprecated versions older than
``retention_days`` (counted from ``valid_to``) are purged, and pending facts
never confirmed within ``pending_days`` expire. A profile that no longer matches
the active facts (one was deleted, archived or superseded since it was compacted)
is recompacted, or dropped when no fact is left. ``dry_run`` reports the same
changes without making them.

Consolidation: working-memory slots that survived a session (its digest at
session end or idle expiry) are promoted to long-term records through the
normal write path, where dedupe and versioning apply.

Defaults: half-life 30 days (as recall), archive below 0.1 (a fully confident
record untouched for ~100 days), purge deprecated versions after 180 days.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from langgraph.store.base import BaseStore

from memagent.memory.namespaces import ROOT, namespace, scope_of
from memagent.memory.profile import (
    PROFILE_KEY,
    active_records,
    compact_profile,
    digest_lines,
    load_profile,
)
from memagent.memory.records import MemoryRecord, utcnow
from memagent.memory.scoring import recency
from memagent.memory.write_path import PENDING_PREFIX, Candidate, WriteResult, write_memory


@dataclass(frozen=True)
class DecayPolicy:
    half_life_days: float = 30.0
    archive_below: float = 0.1
    protect_importance: float = 0.8
    retention_days: float = 180.0
    pending_days: float = 30.0


@dataclass
class MaintenanceReport:
    """What maintenance changed (or would change, with ``dry_run``)."""

    dry_run: bool
    scopes: int = 0
    archived: list[dict[str, Any]] = field(default_factory=list)
    purged: list[dict[str, Any]] = field(default_factory=list)
    expired_pending: list[dict[str, Any]] = field(default_factory=list)
    protected: int = 0
    kept: int = 0
    profiles: list[dict[str, Any]] = field(default_factory=list)
    """Profiles recompacted (or dropped) because they no longer matched the facts."""
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def retention_score(rec: MemoryRecord, now: datetime, half_life_days: float) -> float:
    """How alive a record still is, without a query: recency of use times confidence."""
    return recency(rec.last_accessed_at, now, half_life_days) * rec.confidence


def decide(rec: MemoryRecord, key: str, now: datetime, policy: DecayPolicy) -> str:
    """The action for one record: keep | protect | archive | purge | expire."""
    if key.startswith(PENDING_PREFIX):
        age = now - rec.created_at
        return "expire" if age > timedelta(days=policy.pending_days) else "keep"
    if rec.status == "deprecated":
        closed = rec.valid_to or rec.valid_from
        return "purge" if now - closed > timedelta(days=policy.retention_days) else "keep"
    if rec.status != "active":
        return "keep"
    if rec.importance >= policy.protect_importance:
        return "protect"
    if retention_score(rec, now, policy.half_life_days) < policy.archive_below:
        return "archive"
    return "keep"


def fact_scopes(
    store: BaseStore, user_id: str | None = None, customer_id: str | None = None
) -> list[tuple[str, str]]:
    """(user, customer) pairs that have facts; all of them when no user is given."""
    if user_id is not None and customer_id is not None:
        return [(user_id, customer_id)]
    prefix = namespace(user_id, customer_id) if user_id else (ROOT,)
    out = set()
    for ns in store.list_namespaces(prefix=prefix, limit=100_000):
        user, customer, kind = scope_of(ns)
        # a profile may outlive its facts (all deleted): maintain still refreshes it
        if len(ns) == 4 and kind in ("facts", "profile") and user and customer:
            out.add((user, customer))
    return sorted(out)


def stale_profile(store: BaseStore, user_id: str, customer_id: str) -> bool:
    """Whether the stored profile no longer lists the facts a compaction would list now."""
    profile = load_profile(store, user_id, customer_id)
    if profile is None:
        return False
    now = [rid for rid, _ in digest_lines(active_records(store, user_id, customer_id))]
    return list(profile.get("facts") or []) != now


def refresh_profile(store: BaseStore, user_id: str, customer_id: str) -> str:
    """Rebuild the profile from the active facts, or drop it when none is left;
    returns ``recompacted`` | ``dropped`` | ``none`` (there was no profile)."""
    if load_profile(store, user_id, customer_id) is None:
        return "none"
    value = compact_profile(store, user_id, customer_id)
    if value["facts"]:
        return "recompacted"
    store.delete(namespace(user_id, customer_id, "profile"), PROFILE_KEY)
    return "dropped"


def maintain(
    store: BaseStore,
    user_id: str | None = None,
    customer_id: str | None = None,
    *,
    now: datetime | None = None,
    policy: DecayPolicy = DecayPolicy(),
    dry_run: bool = False,
    batch: int = 1000,
) -> MaintenanceReport:
    """Apply decay, purge and pending expiry to one scope (or every scope)."""
    now = now or utcnow()
    report = MaintenanceReport(dry_run=dry_run)
    for user, customer in fact_scopes(store, user_id, customer_id):
        report.scopes += 1
        ns = namespace(user, customer, "facts")
        offset = 0
        while True:
            items = store.search(ns, limit=batch, offset=offset)
            if not items:
                break
            offset += len(items)
            for item in items:
                try:
                    rec = MemoryRecord.from_store(item.value)
                except ValueError as exc:
                    report.errors.append(f"{item.key}: {exc}")
                    continue
                action = decide(rec, item.key, now, policy)
                entry = {
                    "user_id": user,
                    "customer_id": customer,
                    "id": item.key,
                    "content": rec.content,
                }
                if action == "protect":
                    report.protected += 1
                elif action == "keep":
                    report.kept += 1
                elif action == "archive":
                    report.archived.append(entry)
                    if not dry_run:
                        store.put(
                            ns, item.key, rec.model_copy(update={"status": "archived"}).to_store()
                        )
                elif action in ("purge", "expire"):
                    (report.purged if action == "purge" else report.expired_pending).append(entry)
                    if not dry_run:
                        store.delete(ns, item.key)
                        offset -= 1
        if stale_profile(store, user, customer):
            done = "stale" if dry_run else refresh_profile(store, user, customer)
            report.profiles.append({"user_id": user, "customer_id": customer, "action": done})
    return report


# -- consolidation -------------------------------------------------------------------

_LINE = re.compile(r"^\s*(?P<label>[^·:]+?)\s*·\s*(?P<key>[^:]+?)\s*:\s*(?P<value>.+?)\s*$")
_LABEL_TYPE = {
    "constraints": "preference",
    "preferences": "preference",
    "confirmed facts": "fact",
    "facts": "fact",
}
"""Working-memory categories worth keeping; goals, to-dos and task state are per task."""


def digest_candidates(lines: list[str], *, confidence: float = 0.7) -> list[Candidate]:
    """Candidates from working-memory digest lines ("Preferences · language: English")."""
    out = []
    for line in lines:
        m = _LINE.match(line)
        if not m:
            continue
        type_ = _LABEL_TYPE.get(m.group("label").strip().lower())
        if type_ is None:
            continue
        key = re.sub(r"[^\w]+", "_", m.group("key").strip().lower()).strip("_") or "note"
        value = m.group("value").strip()
        content = f"{m.group('key').strip()}: {value}"
        if len(content) > 150:
            continue
        out.append(
            Candidate(
                content=content,
                type=type_,  # type: ignore[arg-type]
                attribute=key,
                value=value[:400],
                importance=0.6,
                confidence=confidence,
            )
        )
    return out


def consolidate(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    digest: list[str],
    *,
    thread_id: str | None = None,
    now: datetime | None = None,
    embeddings: Any = None,
) -> list[WriteResult]:
    """Promote the stable slots of a finished session to long-term memory."""
    return [
        write_memory(
            store,
            user_id,
            customer_id,
            cand,
            embeddings=embeddings,
            now=now,
            thread_id=thread_id,
            origin="consolidation",
        )
        for cand in digest_candidates(digest)
    ]
