"""Durable outbox of extraction jobs (SQLite, WAL; PostgreSQL in ``jobs_pg``).

Why an outbox: the reply must never wait for extraction, and a job must not be
lost when the process dies. The graph only appends a row here; a worker (a
thread in the same process, or ``memagent worker``) claims rows with a lease,
runs them, and marks them done.

Guarantees:
- Idempotent: a job's id is derived from thread + message range, so submitting
  the same range twice yields one job.
- Debounced per thread: a newer submit supersedes the thread's pending job and
  takes over its messages, so nothing is dropped and the model runs once.
- Early trigger: ``urgent`` (rules saw an amount, date, decision or explicit
  preference) or every N turns makes the job due at once instead of after the delay.
- At-least-once execution with leases: a worker killed mid-job leaves a lease
  that expires, and the job is claimed again. Exactly-once *effect* is the write
  path's job (record ids derived from the job id).
- Retries with exponential backoff; after ``max_attempts`` the job is dead-lettered.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from memagent.core.types import Job, Turn
from memagent.graph.job_rules import (
    STATUSES,
    JobQueueError,
    JobStatus,
    Outbox,
    after_failure,
    backoff_s,
    carry_turns,
    job_id,
    plan_due,
    queue_kwargs,
    row_to_job,
    turn_ref,
    turns_from_json,
)
from memagent.graph.jobs_admin import JobAdmin
from memagent.graph.jobs_sqlite_sql import SCHEMA, bump_since, insert_job, supersede_pending
from memagent.stores.file_access import connect_readonly, open_failure, require_writable
from memagent.stores.sqlite_wal import BUSY_TIMEOUT_S, enable_wal


def open_queue(settings: Any, **kwargs: Any) -> Outbox:
    """The outbox the settings name: PostgreSQL at ``MEMAGENT_DATABASE_URL``, else the
    SQLite file under home (``JobQueue.for_settings``). Explicit ``kwargs`` win."""
    dsn = getattr(settings, "database_dsn", None)
    if dsn:
        from memagent.graph.jobs_pg import PgJobQueue

        kwargs.pop("read_only", None)  # the database's grants decide what can be written
        return PgJobQueue(dsn, **queue_kwargs(settings, kwargs))
    return JobQueue.for_settings(settings, **kwargs)


class JobQueue(JobAdmin):
    """SQLite outbox shared by the graph (submit) and workers (claim/complete/fail).

    Safe across threads (one connection per thread) and processes (SQLite
    locking, ``BEGIN IMMEDIATE`` around claims).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        delay_s: float = 0.0,
        every_n_turns: int = 4,
        max_attempts: int = 5,
        backoff_base_s: float = 2.0,
        backoff_cap_s: float = 300.0,
        lease_s: float = 60.0,
        synchronous: Literal["FULL", "NORMAL"] = "FULL",
        clock: Callable[[], float] = time.time,
        read_only: bool = False,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
    ) -> None:
        """``read_only`` opens an existing outbox for inspection only (``jobs status`` on a
        read-only home), and a missing one as empty, creating nothing; otherwise an outbox
        that cannot be created or written is a ``StorageError`` naming the file.
        ``busy_timeout_s``: how long a statement waits for another process's lock."""
        if delay_s < 0 or lease_s <= 0 or max_attempts < 1 or every_n_turns < 1:
            raise ValueError(
                "need delay_s >= 0, lease_s > 0, max_attempts >= 1, every_n_turns >= 1"
            )
        self.busy_timeout_s = busy_timeout_s
        self.path = Path(path)
        self.read_only = read_only
        self.delay_s = delay_s
        self.every_n_turns = every_n_turns
        self.max_attempts = max_attempts
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.lease_s = lease_s
        self.clock = clock
        self._synchronous = synchronous
        self._local = threading.local()
        self._listeners: list[Callable[[], None]] = []
        if read_only:
            self._conn()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            require_writable(self.path)
            self._conn().executescript(SCHEMA)
        except (OSError, sqlite3.OperationalError) as exc:
            self.close()
            raise open_failure(self.path, exc) from exc

    @classmethod
    def for_settings(cls, settings: Any, **kwargs: Any) -> JobQueue:
        """The outbox at ``settings.jobs_path`` with the settings' debounce, every-N-turns
        trigger and attempts (``MEMAGENT_EXTRACT_*``); explicit ``kwargs`` win."""
        return cls(settings.jobs_path, **queue_kwargs(settings, kwargs))

    @property
    def where(self) -> str:
        return str(self.path)

    # -- connections ---------------------------------------------------------

    def _conn(self, kind: str = "conn") -> sqlite3.Connection:
        """This thread's connection for one kind of write.

        ``conn`` (submit, admin) fsyncs every commit: an accepted job survives even
        a power loss. ``work`` (claim, complete, fail...) only survives a process
        crash, which is enough because jobs are idempotent: a transition lost to
        an OS crash just runs the job again. ``lock`` rows need no durability.
        """
        conn: sqlite3.Connection | None = getattr(self._local, kind, None)
        if conn is None and self.read_only:
            if self.path.exists():
                conn = connect_readonly(
                    self.path, timeout=self.busy_timeout_s, isolation_level=None
                )
            else:  # nothing queued yet: an empty outbox, and nothing created
                conn = sqlite3.connect(":memory:", isolation_level=None)
                conn.executescript(SCHEMA)
            conn.row_factory = sqlite3.Row
            setattr(self._local, kind, conn)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None)
            conn.row_factory = sqlite3.Row
            sync = {"lock": "OFF", "work": "NORMAL"}.get(kind, self._synchronous)
            try:  # not a bare WAL pragma: on a fresh file it loses a race to another
                # process at once, not after the busy timeout ("database is locked")
                enable_wal(conn, timeout_s=self.busy_timeout_s)
                conn.execute(f"PRAGMA synchronous={sync}")
            except BaseException:
                conn.close()
                raise
            setattr(self._local, kind, conn)
        return conn

    @contextmanager
    def _tx(self, kind: str = "conn") -> Iterator[sqlite3.Connection]:
        """One write transaction, taken eagerly so two workers never claim the same row."""
        conn = self._conn(kind)
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's connection (other threads close theirs on exit)."""
        for kind in ("conn", "work", "lock"):
            conn = getattr(self._local, kind, None)
            if conn is not None:
                conn.close()
                setattr(self._local, kind, None)

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after every submit (the in-process worker wakes up)."""
        self._listeners.append(callback)

    # -- producer ------------------------------------------------------------

    def submit(
        self,
        *,
        thread_id: str,
        user_id: str,
        customer_id: str,
        turns: Sequence[Turn],
        trigger: str = "",
        urgent: bool = False,
    ) -> Job:
        """Enqueue the messages of one turn; returns the job now covering them.

        A pending (not yet claimed) job of the same thread is superseded: the new
        job carries its messages too, and keeps its earlier due time if that was
        sooner, so debouncing never postpones an urgent job.
        """
        if not thread_id or not user_id or not customer_id:
            raise JobQueueError("submit needs thread_id, user_id and customer_id")
        turns = [t for t in turns if t.content.strip()]
        if not turns:
            raise JobQueueError("submit needs at least one non-empty turn")
        now = self.clock()
        with self._tx() as conn:
            old = conn.execute(
                "SELECT * FROM jobs WHERE thread_id=? AND status='pending' ORDER BY created_at",
                (thread_id,),
            ).fetchall()
            all_turns = carry_turns([turns_from_json(r["turns"]) for r in old], turns)
            first_id = turn_ref(all_turns[0])
            last_id = turn_ref(all_turns[-1])
            jid = job_id(thread_id, first_id, last_id)
            existing = conn.execute("SELECT * FROM jobs WHERE id=?", (jid,)).fetchone()
            if existing is not None:
                return row_to_job(existing)
            since = bump_since(conn, thread_id)
            run_at, reasons, due_now = self.plan_due(
                now, since, trigger, urgent, [(r["run_at"], r["trigger"]) for r in old]
            )
            if due_now:
                conn.execute("UPDATE thread_turns SET since_run=0 WHERE thread_id=?", (thread_id,))
            supersede_pending(conn, thread_id, by=jid, now=now)
            row = insert_job(
                conn,
                jid=jid,
                thread_id=thread_id,
                user_id=user_id,
                customer_id=customer_id,
                first_id=first_id,
                last_id=last_id,
                turns=all_turns,
                trigger=reasons,
                max_attempts=self.max_attempts,
                run_at=run_at,
                now=now,
            )
        for cb in list(self._listeners):
            cb()
        return row_to_job(row)

    def plan_due(
        self, now: float, since: int, trigger: str, urgent: bool,
        superseded: Sequence[tuple[float, str]],
    ) -> tuple[float, str, bool]:  # fmt: skip
        """``plan_due`` with this queue's debounce and every-N-turns trigger."""
        return plan_due(
            now=now, since=since, trigger=trigger, urgent=urgent, superseded=superseded,
            delay_s=self.delay_s, every_n_turns=self.every_n_turns,
        )  # fmt: skip

    # -- consumer ------------------------------------------------------------

    def claim(self, *, lease_s: float | None = None, include_delayed: bool = False) -> Job | None:
        """Lease the next due job (or a job whose lease expired), or None.

        ``include_delayed`` also takes debounced jobs not yet due (never failed);
        jobs waiting in retry backoff or for a dependency keep their due time (``drain``).
        Each claim counts as an attempt, so a job that kills its worker every
        time still ends in the dead-letter list.
        """
        now = self.clock()
        lease = self.lease_s if lease_s is None else lease_s
        with self._tx("work") as conn:
            # Expired leases first: a crashed worker's job goes back to the line.
            expired = conn.execute(
                "SELECT * FROM jobs WHERE status='running' AND lease_until < ?", (now,)
            ).fetchall()
            for row in expired:
                if row["attempts"] >= row["max_attempts"]:
                    conn.execute(
                        "UPDATE jobs SET status='dead', lease_token=NULL, updated_at=?,"
                        " last_error=COALESCE(last_error, 'lease expired') WHERE id=?",
                        (now, row["id"]),
                    )
                else:
                    conn.execute(
                        "UPDATE jobs SET status='pending', lease_token=NULL, updated_at=?,"
                        " last_error=COALESCE(last_error, 'lease expired') WHERE id=?",
                        (now, row["id"]),
                    )
            row = conn.execute(
                "SELECT * FROM jobs c WHERE status='pending'"
                " AND (run_at <= ? OR (? AND last_error IS NULL))"
                " AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.thread_id=c.thread_id"
                " AND r.status='running')"
                " ORDER BY run_at, created_at LIMIT 1",
                (now, int(include_delayed)),
            ).fetchone()
            if row is None:
                return None
            token = uuid.uuid4().hex
            conn.execute(
                "UPDATE jobs SET status='running', attempts=attempts+1, lease_until=?,"
                " lease_token=?, updated_at=? WHERE id=?",
                (now + lease, token, now, row["id"]),
            )
            row = conn.execute("SELECT * FROM jobs WHERE id=?", (row["id"],)).fetchone()
        return row_to_job(row)

    def heartbeat(self, job: Job, *, lease_s: float | None = None) -> None:
        """Extend a running job's lease (long LLM calls)."""
        lease = self.lease_s if lease_s is None else lease_s
        with self._tx("work") as conn:
            cur = conn.execute(
                "UPDATE jobs SET lease_until=? WHERE id=? AND lease_token=? AND status='running'",
                (self.clock() + lease, job.id, job.lease_token),
            )
            if cur.rowcount != 1:
                raise JobQueueError(f"lost the lease of job {job.id}")

    def complete(self, job: Job, result: dict[str, Any] | None = None) -> bool:
        """Mark a claimed job done; False if its lease was lost to another worker."""
        now = self.clock()
        with self._tx("work") as conn:
            cur = conn.execute(
                "UPDATE jobs SET status='done', lease_token=NULL, lease_until=NULL,"
                " updated_at=?, result=? WHERE id=? AND lease_token=? AND status='running'",
                (now, json.dumps(result or {}, ensure_ascii=False), job.id, job.lease_token),
            )
            return cur.rowcount == 1

    def save_result(self, job: Job, result: dict[str, Any]) -> None:
        """Store a running job's intermediate result (its extracted candidates).

        A retry after a crash reuses it instead of asking the model again, so a
        non-deterministic extractor cannot turn one job into two different writes.
        """
        with self._tx("work") as conn:
            cur = conn.execute(
                "UPDATE jobs SET result=?, updated_at=? WHERE id=? AND lease_token=?",
                (json.dumps(result, ensure_ascii=False), self.clock(), job.id, job.lease_token),
            )
            if cur.rowcount != 1:
                raise JobQueueError(f"lost the lease of job {job.id}")
        job.result = result

    def release(self, job: Job, *, delay_s: float, error: str) -> bool:
        """Give a job back without spending an attempt (the store or model was down).

        The job waits in the outbox until its dependency is back: never lost,
        never dead-lettered for an outage.
        """
        now = self.clock()
        with self._tx("work") as conn:
            cur = conn.execute(
                "UPDATE jobs SET status='pending', attempts=MAX(0, attempts-1), run_at=?,"
                " lease_token=NULL, lease_until=NULL, last_error=?, updated_at=?"
                " WHERE id=? AND lease_token=? AND status='running'",
                (now + delay_s, error[:2000], now, job.id, job.lease_token),
            )
            return cur.rowcount == 1

    def fail(self, job: Job, error: str) -> str:
        """Record a failure: back to pending after a backoff, or dead. Returns the new status."""
        now = self.clock()
        with self._tx("work") as conn:
            row = conn.execute(
                "SELECT attempts, max_attempts, lease_token FROM jobs WHERE id=?", (job.id,)
            ).fetchone()
            if row is None or row["lease_token"] != job.lease_token:
                return "lost"
            status, run_at = after_failure(
                row["attempts"], row["max_attempts"], now, self.backoff_base_s, self.backoff_cap_s
            )
            conn.execute(
                "UPDATE jobs SET status=?, run_at=?, lease_token=NULL, lease_until=NULL,"
                " last_error=?, updated_at=? WHERE id=?",
                (status, run_at, error[:2000], now, job.id),
            )
        return status

    # -- cross-process lock -------------------------------------------------

    @contextmanager
    def lock(self, name: str, *, ttl_s: float = 30.0, timeout_s: float = 60.0) -> Iterator[None]:
        """Mutex across threads and processes sharing this database.

        The write path's read-check-write runs under it, which turns it into a
        compare-and-set. A holder killed with -9 loses the lock after ``ttl_s``.
        """
        owner = uuid.uuid4().hex
        deadline = time.monotonic() + timeout_s
        delay = 0.002
        while True:
            now = time.time()
            with self._tx("lock") as conn:
                conn.execute("DELETE FROM locks WHERE name=? AND expires < ?", (name, now))
                got = conn.execute(
                    "INSERT OR IGNORE INTO locks(name, owner, expires) VALUES(?,?,?)",
                    (name, owner, now + ttl_s),
                ).rowcount
            if got:
                break
            if time.monotonic() > deadline:
                raise JobQueueError(f"timed out waiting for lock {name!r}")
            time.sleep(delay)
            delay = min(0.05, delay * 2)
        try:
            yield
        finally:
            with self._tx("lock") as conn:
                conn.execute("DELETE FROM locks WHERE name=? AND owner=?", (name, owner))


__all__ = [
    "STATUSES",
    "Job",
    "JobQueue",
    "JobQueueError",
    "JobStatus",
    "Outbox",
    "Turn",
    "backoff_s",
    "carry_turns",
    "job_id",
    "open_queue",
    "plan_due",
    "queue_kwargs",
    "row_to_job",
    "turn_ref",
]
