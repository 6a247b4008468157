"""Two real processes extracting into one namespace: no lost update, no duplicate.

Both processes open the same embedded store (shared mode: each operation takes the
directory lock, so reads and the later conditional write of one ``write_memory``
interleave with the other process's) and write, round after round, a budget value of
their own and two facts they both state. Without the job queue's lock only the
store's compare-and-set keeps them apart; with it, the lock is the fast path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.stores.qdrant_store import QdrantStore

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).parents[1] / "support" / "two_process_writer.py"
ROUNDS = 8
NS = namespace("u1", "c1", "facts")


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    """On tmpfs when there is one: the engine fsyncs every write, and this is about races."""
    ram = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    root = Path(tempfile.mkdtemp(prefix="memagent-2proc-", dir=ram))
    yield root / "store"
    shutil.rmtree(root, ignore_errors=True)


def _run_writers(store_dir: Path, tmp_path: Path, jobs_db: Path | None) -> list[dict]:
    go = tmp_path / "go"
    if jobs_db is not None:  # created here: two processes creating it at once may clash
        from memagent.graph.jobs import JobQueue

        JobQueue(jobs_db)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    procs = []
    for writer in (0, 1):
        args = [sys.executable, str(SCRIPT), str(store_dir), str(writer), str(ROUNDS), str(go)]
        if jobs_db is not None:
            args.append(str(jobs_db))
        procs.append(
            subprocess.Popen(
                args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
    for p in procs:  # both opened the store before either writes
        assert p.stdout is not None
        line = p.stdout.readline()
        assert line.strip() == "READY", p.stderr.read() if p.stderr else line  # type: ignore[union-attr]
    go.touch()
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err[-3000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def _records(store_dir: Path) -> list[tuple[str, MemoryRecord]]:
    with QdrantStore.from_location(str(store_dir)) as store:
        return [(i.key, MemoryRecord.from_store(i.value)) for i in store.search(NS, limit=1000)]


def _check(records: list[tuple[str, MemoryRecord]]) -> None:
    by_attr: dict[str, list[tuple[str, MemoryRecord]]] = {}
    for key, rec in records:
        by_attr.setdefault(rec.attribute, []).append((key, rec))
    assert sorted(a for a in by_attr if not a.startswith("note_")) == ["budget", "seats"]
    assert len([a for a in by_attr if a.startswith("note_")]) == 1
    # every record of a key: one active, versions 1..n in one chain, each value kept
    budget = sorted(by_attr["budget"], key=lambda kr: kr[1].version)
    expected = {str((w * 100 + n + 1) * 1_000_000) for w in (0, 1) for n in range(ROUNDS)}
    assert sorted(r.value or "" for _, r in budget) == sorted(expected)  # none lost, none twice
    assert [r.version for _, r in budget] == list(range(1, 2 * ROUNDS + 1))
    assert [r.status for _, r in budget] == ["deprecated"] * (2 * ROUNDS - 1) + ["active"]
    for (prev_key, _), (_, rec) in zip(budget, budget[1:], strict=False):
        assert rec.supersedes == prev_key
    # what both stated: one record each, every mention counted
    for attr in ("seats", next(a for a in by_attr if a.startswith("note_"))):
        ((_, rec),) = by_attr[attr]
        assert rec.status == "active" and rec.mentions == 2 * ROUNDS, rec
        assert len(set(rec.source.message_ids)) == 2 * ROUNDS


def test_two_processes_without_lock_compare_and_set_alone(store_dir: Path, tmp_path: Path) -> None:
    reports = _run_writers(store_dir, tmp_path, None)
    assert all(len(r["actions"]) == 3 * ROUNDS for r in reports)
    print("lost races redone:", [r["races"] for r in reports])
    _check(_records(store_dir))


def test_two_processes_with_the_job_queue_lock(store_dir: Path, tmp_path: Path) -> None:
    _run_writers(store_dir, tmp_path, tmp_path / "jobs.sqlite")
    _check(_records(store_dir))
