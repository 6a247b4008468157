"""Opening a fresh SQLite file of the home while another process holds its write lock.

On a fresh file the first connection switches it to WAL; SQLite's ``PRAGMA
journal_mode=WAL`` then needs the write lock after reading the header, and that upgrade
fails at once ("database is locked") instead of waiting for the busy timeout. Two
``memagent ask`` on a fresh home with ``MEMAGENT_SERVICE=off`` met this on
``jobs.sqlite``. Here the other process is a connection holding the write lock of the
fresh file (as a process in the middle of that switch does) and letting go shortly
after: opening the outbox or the checkpointer must wait for it, not fail; a lock held
past the wait is a one-line error naming the file.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memagent.core.settings import Settings
from memagent.core.types import Turn
from memagent.graph.agent_resources import checkpointer_factory
from memagent.graph.jobs import JobQueue
from memagent.stores.file_access import StorageError
from memagent.stores.sqlite_wal import enable_wal, is_busy


@contextmanager
def write_lock_held(path: Path, *, for_s: float | None) -> Iterator[sqlite3.Connection]:
    """Another connection holding the write lock of the fresh file at ``path``, released
    after ``for_s`` seconds (None: at the end of the block)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE other_process(x)")
    timer = threading.Timer(for_s, other.execute, ("COMMIT",)) if for_s is not None else None
    if timer is not None:
        timer.start()
    try:
        yield other
    finally:
        if timer is not None:
            timer.join()
        else:
            other.execute("ROLLBACK")
        other.close()


def test_the_outbox_waits_for_a_process_holding_a_fresh_files_lock(tmp_path: Path) -> None:
    path = tmp_path / "home" / "jobs.sqlite"
    with write_lock_held(path, for_s=0.3):
        queue = JobQueue(path)
        job = queue.submit(
            thread_id="t", user_id="u", customer_id="c", turns=[Turn("human", "hi", id="m1")]
        )
    assert queue.get(job.id) is not None
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"jobs", "locks", "thread_turns", "other_process"} <= names
    queue.close()


async def test_the_checkpointer_waits_for_a_process_holding_a_fresh_files_lock(
    tmp_path: Path,
) -> None:
    settings = Settings(home=tmp_path / "home")
    with write_lock_held(settings.checkpoint_path, for_s=0.3):
        async with checkpointer_factory(settings) as saver:
            assert await saver.aget_tuple({"configurable": {"thread_id": "t"}}) is None
    with sqlite3.connect(settings.checkpoint_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_lock_held_past_the_wait_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "home" / "jobs.sqlite"
    with write_lock_held(path, for_s=None) as other:
        started = time.monotonic()
        with pytest.raises(StorageError) as err:
            JobQueue(path, busy_timeout_s=0.2)
        waited = time.monotonic() - started
        other.execute("INSERT INTO other_process VALUES (1)")  # the holder is unharmed
    assert str(err.value) == (
        f"cannot write {path}: database is locked: another process held it for 0.2 s"
    )
    assert waited >= 0.2


def test_enable_wal_retries_only_a_busy_database(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    conn.execute("BEGIN")
    with pytest.raises(sqlite3.OperationalError, match="within a transaction") as err:
        enable_wal(conn, timeout_s=5, sleep=lambda _: pytest.fail("retried"))
    assert not is_busy(err.value)
    conn.execute("ROLLBACK")
    assert enable_wal(conn, timeout_s=5) == "wal"
    conn.close()
