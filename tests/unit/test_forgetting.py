"""Decay archives stale records, protects important ones, purges old versions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from langgraph.store.memory import InMemoryStore

from memagent.memory.forgetting import (
    DecayPolicy,
    consolidate,
    decide,
    digest_candidates,
    maintain,
)
from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.write_path import Candidate, write_memory

NS = namespace("u1", "c1", "facts")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def put(store: InMemoryStore, key: str, **kw: object) -> None:
    fields: dict[str, object] = {"valid_from": T0, "created_at": T0, "last_accessed_at": T0, **kw}
    rec = MemoryRecord(content=key, **fields)  # type: ignore[arg-type]
    store.put(NS, key, rec.to_store())


def status(store: InMemoryStore, key: str) -> str | None:
    item = store.get(NS, key)
    return None if item is None else item.value["status"]


def test_decay_archives_stale_and_protects_important() -> None:
    store = InMemoryStore()
    put(store, "stale", importance=0.3, confidence=0.9)
    put(store, "important", importance=0.9, confidence=0.9)
    put(store, "fresh", importance=0.3, confidence=0.9, last_accessed_at=T0 + timedelta(days=119))
    now = T0 + timedelta(days=120)  # 4 half-lives: 0.0625 * 0.9 < 0.1
    dry = maintain(store, "u1", "c1", now=now, dry_run=True)
    assert [e["id"] for e in dry.archived] == ["stale"]
    assert status(store, "stale") == "active"  # dry run changed nothing
    rep = maintain(store, "u1", "c1", now=now)
    assert rep.protected == 1 and rep.kept == 1
    assert (status(store, "stale"), status(store, "important"), status(store, "fresh")) == (
        "archived",
        "active",
        "active",
    )
    assert store.search(NS, filter={"status": "active"}, limit=10).__len__() == 2


def test_recent_records_are_not_archived() -> None:
    store = InMemoryStore()
    put(store, "a", importance=0.1, confidence=0.9)
    rep = maintain(store, "u1", "c1", now=T0 + timedelta(days=20))
    assert rep.archived == [] and status(store, "a") == "active"


def test_purge_old_deprecated_versions_only() -> None:
    store = InMemoryStore()
    write_memory(
        store,
        "u1",
        "c1",
        Candidate(content="Budget is 1 million.", attribute="budget", value="1"),
        now=T0,
    )
    write_memory(
        store,
        "u1",
        "c1",
        Candidate(content="Budget is 2 million.", attribute="budget", value="2"),
        now=T0 + timedelta(days=10),
    )
    write_memory(store, "u1", "c1", Candidate(content="Budget is 3 million.", attribute="budget", value="3"), now=T0 + timedelta(days=170))  # fmt: skip
    rep = maintain(
        store, "u1", "c1", now=T0 + timedelta(days=200), policy=DecayPolicy(retention_days=180)
    )
    assert [e["content"] for e in rep.purged] == ["Budget is 1 million."]
    left = sorted(i.value["value"] for i in store.search(NS, limit=10))
    assert left == ["2", "3"]


def test_unconfirmed_pending_expires() -> None:
    store = InMemoryStore()
    res = write_memory(store, "u1", "c1", Candidate(content="Maybe 40 seats.", attribute="seats", value="40", confidence=0.4), now=T0)  # fmt: skip
    assert res.action == "pending"
    rep = maintain(store, "u1", "c1", now=T0 + timedelta(days=31))
    assert len(rep.expired_pending) == 1 and store.search(NS, limit=10) == []


def test_maintain_all_scopes() -> None:
    store = InMemoryStore()
    for user in ("u1", "u2"):
        write_memory(store, user, "c1", Candidate(content="Prefers email.", importance=0.2), now=T0)
    rep = maintain(store, now=T0 + timedelta(days=365))
    assert rep.scopes == 2 and len(rep.archived) == 2


def test_decide_is_pure() -> None:
    rec = MemoryRecord(content="x", importance=0.8, last_accessed_at=T0, valid_from=T0)
    assert decide(rec, "k", T0 + timedelta(days=3650), DecayPolicy()) == "protect"


def test_consolidation_promotes_stable_slots_through_write_path() -> None:
    store = InMemoryStore()
    digest = [
        "Preferences · language: English",
        "Confirmed facts · budget: 120k",
        "Open to-dos · send quote: by Friday",
        "garbage line",
    ]
    cands = digest_candidates(digest)
    assert [c.attribute for c in cands] == ["language", "budget"]
    results = consolidate(store, "u1", "c1", digest, now=T0)
    assert [r.action for r in results] == ["created", "created"]
    again = consolidate(store, "u1", "c1", digest, now=T0)
    assert [r.action for r in again] == ["merged", "merged"]
    assert len(store.search(NS, limit=10)) == 2
