"""A shared embedded store (several processes on one directory) loads its shard once per
unit of work, not once per store call (a job has two: reading its session's earlier
messages before extraction, and its writes after): each load and flush costs disk syncs while every
other process waits for the directory lock (bench/scale_bench.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memagent.graph.jobs import JobQueue, Turn
from memagent.graph.worker import Worker
from memagent.memory.namespaces import namespace
from memagent.nodes.recall import AccessLog, recall_memories
from memagent.stores import QdrantStore
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.engine_edge import EdgeEngine


def _shared_store(path: Path) -> QdrantStore:
    index = {"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]}
    return QdrantStore.from_location(str(path), index=index, shared=True)  # type: ignore[arg-type]


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the shard loads (one per engine session of a shared store)."""
    seen: list[int] = []
    real = EdgeEngine._load

    def counted(self: EdgeEngine) -> object:
        seen.append(1)
        return real(self)

    monkeypatch.setattr(EdgeEngine, "_load", counted)
    return seen


def test_a_job_loads_the_shared_shard_once(tmp_path: Path, loads: list[int]) -> None:
    q = JobQueue(tmp_path / "jobs.sqlite")
    turns = [
        Turn("user", "Our budget is 5 million dollars and Wang Lei signs off.", "m1"),
        Turn("assistant", "Noted: a 5 million dollar budget.", "a1"),
        Turn("user", "Actually the budget is now 6 million dollars.", "m2"),
    ]
    with _shared_store(tmp_path / "store") as store:
        q.submit(thread_id="t1", user_id="u1", customer_id="c1", turns=turns)
        loads.clear()
        report = Worker(q, store).drain()
        assert report.done == 1 and report.failed == 0
        # two units of work: the session's earlier messages read before the extractor runs
        # (as its context; the store is not held through a model call), then every write
        assert len(loads) == 2, f"one job loaded the shared shard {len(loads)} times"
        facts = store.search(namespace("u1", "c1", "facts"), limit=50)
    budget = [i.value for i in facts if i.value.get("attribute") == "budget"]
    assert [b["value"] for b in budget if b["status"] == "active"] == ["6000000 USD"]


def test_a_later_job_reads_its_sessions_context_in_one_load(
    tmp_path: Path, loads: list[int]
) -> None:
    """The context of a later job: the transcript and the screen's verdicts its episodes
    keep, one message at a time, all in the one unit of work before the extractor runs."""
    q = JobQueue(tmp_path / "jobs.sqlite")
    notes = ["Wang Lei is the CTO of Lanhai.", "Lanhai needs SSO with Okta.",
             "Their budget is 2 million CNY."]  # fmt: skip
    with _shared_store(tmp_path / "store") as store:
        worker = Worker(q, store)
        for i, note in enumerate(notes):
            q.submit(thread_id="t1", user_id="u1", customer_id="c1",
                     turns=[Turn("user", note, f"m{i}"), Turn("assistant", "Noted.", f"a{i}")])  # fmt: skip
            worker.drain()
        q.submit(thread_id="t1", user_id="u1", customer_id="c1",
                 turns=[Turn("user", "He prefers email.", "m9")])  # fmt: skip
        loads.clear()
        report = worker.drain()
        assert report.done == 1 and report.failed == 0
        assert len(loads) == 2, f"one job loaded the shared shard {len(loads)} times"


def test_a_recall_loads_the_shared_shard_once(tmp_path: Path, loads: list[int]) -> None:
    q = JobQueue(tmp_path / "jobs.sqlite")
    turns = [Turn("user", "Our budget is 5 million dollars and Wang Lei signs off.", "m1")]
    with _shared_store(tmp_path / "store") as store:
        q.submit(thread_id="t1", user_id="u1", customer_id="c1", turns=turns)
        assert Worker(q, store).drain().done == 1
        loads.clear()
        got = recall_memories(store, "u1", "c1", "what is their budget?", new_session=True)
        assert not got.degraded and any("budget" in i.content for i in got.items)
        assert len(loads) == 1, f"one recall loaded the shared shard {len(loads)} times"


def test_access_stats_of_turns_ending_together_load_the_shard_once(
    tmp_path: Path, loads: list[int]
) -> None:
    q = JobQueue(tmp_path / "jobs.sqlite")
    users = ["u1", "u2", "u3"]
    with _shared_store(tmp_path / "store") as store:
        for u in users:
            turns = [Turn("user", f"Our budget is {len(u)} million dollars.", "m1")]
            q.submit(thread_id="t-" + u, user_id=u, customer_id="c1", turns=turns)
        assert Worker(q, store).drain().done == len(users)
        recalled = {u: recall_memories(store, u, "c1", "budget?").items for u in users}
        assert all(recalled.values())

        async def three_turns_end() -> None:
            log = AccessLog()
            for u in users:  # three turns end while the first one's write is queued
                log.record(u, "c1", recalled[u])
                log.flush(store)
            await log.drain()

        loads.clear()
        asyncio.run(three_turns_end())
        assert len(loads) == 1, f"three turns' access stats loaded the shard {len(loads)} times"
        for u in users:
            (item,) = [i for i in store.search(namespace(u, "c1", "facts")) if i.key]
            assert item.value["access_count"] == 1
