"""Processes starting on a fresh home at the same moment (``MEMAGENT_SERVICE=off``).

Each round, a few real (forked) processes, released by one barrier, open the outbox
(``jobs.sqlite``) and the checkpointer (``sessions.sqlite``) of a home nobody has used
yet and write to them. SQLite's switch of a fresh file to WAL failed at once in the
loser of that race ("cannot write .../jobs.sqlite: database is locked") instead of
waiting. Before the fix this test failed in 5 of 5 runs (1 to 3 of its 240 opens);
``tests/unit/test_sqlite_fresh_file_race.py`` pins the same fault down deterministically.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import traceback
from pathlib import Path
from typing import Any

import pytest

from memagent.core.settings import Settings
from memagent.core.types import Turn
from memagent.graph.agent_resources import checkpointer_factory
from memagent.graph.jobs import JobQueue

pytestmark = pytest.mark.slow

PROCESSES = 3
ROUNDS = 40


def _submit(settings: Settings) -> None:
    queue = JobQueue(settings.jobs_path)
    me = f"p{os.getpid()}"
    queue.submit(thread_id=me, user_id="u", customer_id="c", turns=[Turn("human", "hi", id=me)])
    queue.close()


def _checkpoint(settings: Settings) -> None:
    async def read() -> None:
        async with checkpointer_factory(settings) as saver:
            await saver.aget_tuple({"configurable": {"thread_id": "t"}})

    asyncio.run(read())


def _racer(homes: list[Path], barrier: Any, results: Any) -> None:
    for home in homes:
        settings = Settings(home=home)
        for step in (_submit, _checkpoint):  # each released at once in every process
            try:
                barrier.wait(60)
                step(settings)
                results.put("ok")
            except Exception as exc:  # reported to the test, which names it
                results.put("".join(traceback.format_exception_only(exc)).strip())


def test_processes_opening_a_fresh_home_at_once_all_succeed(tmp_path: Path) -> None:
    homes = [tmp_path / f"home{i}" for i in range(ROUNDS)]
    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [ctx.Process(target=_racer, args=(homes, barrier, results)) for _ in range(PROCESSES)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=300) for _ in range(2 * PROCESSES * ROUNDS)]
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    failures = [o for o in outcomes if o != "ok"]
    assert not failures, f"{len(failures)} of {len(outcomes)} opens failed: {failures[:3]}"
    for home in homes:
        for name in ("jobs.sqlite", "sessions.sqlite"):
            assert (home / name).is_file()
