"""kill -9 of a worker process while it writes: after a restart every job is applied once.

Real processes, the real SQLite outbox and the real embedded store. The first
worker is killed with SIGKILL in the middle of a job (after some of its records
were written); the second one reclaims the job when its lease expires and
finishes everything. The end state must have no lost and no duplicate record.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CUSTOMERS = 6

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from memagent.graph import extraction_steps as steps  # where the worker writes
    from memagent.graph import worker as worker_mod
    from memagent.core.settings import Settings
    from memagent.stores import open_store
    from memagent.graph.jobs import JobQueue

    settings = Settings()
    slow = float(os.environ.get("SLOW_WRITE_S", "0"))
    real = steps.write_memory

    def traced(*args, **kwargs):
        res = real(*args, **kwargs)
        print("WROTE", kwargs.get("record_id"), flush=True)
        time.sleep(slow)
        return res

    steps.write_memory = traced
    queue = JobQueue(settings.jobs_path, lease_s=2.0)
    with open_store(settings.resolved_store_location(), settings=settings) as store:
        w = worker_mod.Worker(queue, store, profile=False)
        print("READY", flush=True)
        deadline = time.time() + 120
        while queue.outstanding() and time.time() < deadline:
            if not w.run_once():
                time.sleep(0.2)
    print("DONE", flush=True)
    """
)


def _env(home: Path, slow: float) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MEMAGENT_HOME=str(home),
        MEMAGENT_EMBEDDER="hash",
        OMP_NUM_THREADS="1",
        SLOW_WRITE_S=str(slow),
    )
    return env


def _submit_jobs(home: Path) -> list[str]:
    from memagent.graph.jobs import JobQueue, Turn

    q = JobQueue(home / "jobs.sqlite")
    ids = []
    for c in range(CUSTOMERS):
        first = [
            Turn(
                "user",
                f"Our budget is {c + 1} million dollars. We need {10 + c} seats.",
                f"c{c}-m1",
            ),
            Turn("user", "Please contact me by email.", f"c{c}-m2"),
        ]
        ids.append(q.submit(thread_id=f"t{c}", user_id="u1", customer_id=f"c{c}", turns=first).id)
        second = [Turn("user", f"No, the budget is {c + 20} million.", f"c{c}-m3")]
        ids.append(q.submit(thread_id=f"t{c}b", user_id="u1", customer_id=f"c{c}", turns=second).id)
    return ids


def test_kill_9_while_writing_then_restart_applies_every_job_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    job_ids = _submit_jobs(home)

    child = subprocess.Popen(
        [sys.executable, str(script)],
        env=_env(home, slow=0.3),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout is not None
    writes = 0
    deadline = time.time() + 120
    while time.time() < deadline:
        line = child.stdout.readline()
        if line.startswith("WROTE"):
            writes += 1
            if writes == 2:  # first job wrote 2 of its 3 records: mid-job
                break
    os.kill(child.pid, signal.SIGKILL)
    child.wait(30)
    assert writes == 2, "the worker never started writing"

    from memagent.graph.jobs import JobQueue

    q = JobQueue(home / "jobs.sqlite")
    assert q.counts()["running"] == 1  # the killed worker's job holds an expiring lease

    rerun = subprocess.run(
        [sys.executable, str(script)],
        env=_env(home, slow=0.0),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "DONE" in rerun.stdout, rerun.stderr[-2000:]
    counts = q.counts()
    assert counts["done"] == len(job_ids) and counts["dead"] == 0 and counts["pending"] == 0
    assert max(q.get(j).attempts for j in job_ids) == 2  # type: ignore[union-attr]

    from memagent.core.settings import Settings
    from memagent.memory.namespaces import namespace
    from memagent.stores import open_store

    settings = Settings(home=home, embedder="hash")
    with open_store(settings.resolved_store_location(), settings=settings) as store:
        for c in range(CUSTOMERS):
            items = store.search(namespace("u1", f"c{c}", "facts"), limit=100)
            by_key: dict[str, list[dict[str, object]]] = {}
            for it in items:
                by_key.setdefault(f"{it.value['entity']}:{it.value['attribute']}", []).append(
                    it.value
                )
            assert sorted(by_key) == [
                "customer:budget",
                "customer:contact_channel",
                "customer:seats",
            ], by_key.keys()
            budgets = sorted(by_key["customer:budget"], key=lambda v: v["version"])  # type: ignore[arg-type, return-value]
            assert [b["status"] for b in budgets] == ["deprecated", "active"]
            assert budgets[-1]["value"] == str((c + 20) * 1_000_000)
            for key in ("customer:seats", "customer:contact_channel"):
                (only,) = by_key[key]
                assert only["mentions"] == 1 and only["status"] == "active"
