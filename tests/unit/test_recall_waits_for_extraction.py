"""A question asked right after a note, before the background worker has stored it, still
gets the note's facts: recall waits, bounded, for the account's extraction under way
(``memagent.graph.recall_wait``), in the same session or a new one.

Real graph, SQLite checkpointer and outbox, the in-process worker; a scripted model. The
worker is held back: it starts the note's job only once something asks the outbox for
unfinished jobs, so a recall that does not wait searches before the note is stored,
whatever the machine's speed. Another customer's job is not waited for."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import factory, memory_store, scripted

from memagent.core.types import Turn
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.jobs import JobQueue
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker

USER = "alice"
NOTE = "Met with Acme Logistics today. Budget is 1.2 million CNY, decision by end of March."


@pytest.fixture
def held_worker(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The worker waits for this event before each job; reading the outbox's unfinished
    jobs sets it (a recall that waits for extraction reads them)."""
    asked = threading.Event()
    process, unfinished = Worker.process, JobQueue.unfinished

    def held(self: Worker, job: Any) -> dict[str, Any]:
        asked.wait(timeout=600)
        return process(self, job)

    def reading(self: JobQueue, user_id: str, customer_id: str, now: float) -> int:
        asked.set()
        return unfinished(self, user_id, customer_id, now)

    monkeypatch.setattr(Worker, "process", held)
    monkeypatch.setattr(JobQueue, "unfinished", reading)
    return asked


def _settings(home: Path) -> Settings:
    return Settings(home=home, embedder="hash", extractor="rules", rewriter="rules",
                    worker="inprocess")  # fmt: skip


@pytest.mark.parametrize("session", ["s1", "s2"])
async def test_a_question_right_after_a_note_recalls_the_note(
    tmp_path: Path, held_worker: threading.Event, session: str
) -> None:
    model = scripted("Noted: budget 1.2 million CNY.", "Acme's budget is 1.2 million CNY.")
    async with aopen_agent(_settings(tmp_path), store=memory_store(), recall_wait_s=300,
                           chat_model_factory=factory(model)) as agent:  # fmt: skip
        try:
            await arun_turn(agent, NOTE, user_id=USER, customer_id="acme", session="s1")
            asked = await arun_turn(agent, "What do you know about Acme?", user_id=USER,
                                    customer_id="acme", session=session)  # fmt: skip
        finally:
            held_worker.set()
    recalled = " ".join(str(item.get("content")) for item in asked.recalled)
    assert "1.2 million" in recalled, asked.recalled


def test_only_the_accounts_due_or_running_jobs_are_waited_for(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "jobs.sqlite")
    try:
        turn = Turn(role="user", content=NOTE, id="m1")
        queue.submit(thread_id="s1", user_id=USER, customer_id="acme", turns=[turn])
        now = time.time()
        assert queue.unfinished(USER, "acme", now) == 1
        assert queue.unfinished(USER, "globex", now) == 0
        assert queue.unfinished("bob", "acme", now) == 0
        job = queue.claim()
        assert job is not None
        assert queue.unfinished(USER, "acme", now) == 1  # running
        queue.complete(job)
        assert queue.unfinished(USER, "acme", now) == 0
    finally:
        queue.close()
