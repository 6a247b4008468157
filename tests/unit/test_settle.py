"""``settle`` waits for the job the in-process worker holds, however long it takes, instead
of polling the queue against a deadline (``test_turn_limits``' 120 s wait passed or failed
with the machine's load).

The background worker's extraction is held until ``settle`` asks the worker to stop: a
settle that only polled against its deadline gives up first, one that waits on the
worker's own end sees the job done."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graph_fakes import factory, memory_store, scripted

from memagent.core.settings import Settings
from memagent.core.types import Turn
from memagent.graph.agent import aopen_agent, arun_turn, settle
from memagent.memory.namespaces import namespace

NOTE = "Acme's budget is 1.2 million USD."


async def test_settle_waits_for_the_job_the_background_worker_holds(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, embedder="hash", extractor="rules", rewriter="rules")
    store = memory_store()
    async with aopen_agent(settings, chat_model_factory=factory(scripted("ok")),
                           store=store) as agent:  # fmt: skip
        worker, queue = agent.worker, agent.queue
        assert worker is not None and queue is not None
        started, release = threading.Event(), threading.Event()
        inner, stop = worker.extractor, worker.stop

        async def held(turns: Sequence[Turn], *, context: Sequence[Turn] = ()) -> Any:
            started.set()
            await asyncio.to_thread(release.wait)
            return await inner(turns, context=context)

        def stopping(timeout: float | None = 10.0) -> None:
            release.set()  # settle asked the worker to finish: the job may end now
            stop(timeout)

        worker.extractor = held  # type: ignore[assignment]
        worker.stop = stopping  # type: ignore[method-assign]
        try:
            await arun_turn(agent, NOTE, user_id="u1", customer_id="acme", session="s")
            await asyncio.to_thread(started.wait)  # the background thread holds the job
            await settle(agent, timeout_s=0)
        finally:
            release.set()
        assert queue.outstanding() == 0
    facts = store.search(namespace("u1", "acme", "facts"), limit=10)
    assert any("1.2 million" in str(i.value.get("content")) for i in facts), facts
