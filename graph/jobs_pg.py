"""The extraction outbox on PostgreSQL: the guarantees of ``memagent.graph.jobs`` across hosts.

Hand-written on psycopg rather than on procrastinate or pgqueuer: both give queues of
independent tasks, while this outbox's contract is about one row per session that a
newer submit *replaces and merges into* (debounce with supersede, an early trigger
that a later submit never postpones), a result saved on the job mid-run and reused by
a retry, and a release that costs no attempt. Expressing that on top of either
library would mean reaching into its tables; the SQL here is short.

How each guarantee is kept with many processes on many hosts:
- Idempotent: the job id is derived from thread + message range (``job_id``); insert
  only if absent.
- Debounce per thread: a submit takes the thread's transaction-level advisory lock,
  locks the thread's pending rows ``FOR UPDATE`` (waiting for a claim in flight; a row
  claimed meanwhile is no longer pending and is left alone), carries their turns into
  the new job and marks them superseded, all in one transaction.
- Claims: ``FOR UPDATE SKIP LOCKED`` on the oldest due row, leased with a fresh
  ``lease_token``; ``complete``/``fail``/``release``/``save_result`` act only while that
  token is theirs. Expired leases go back to pending (or dead, out of attempts).
- Wake-up: a submit ``NOTIFY``s ``memagent_jobs`` on commit; a worker ``LISTEN``s on a
  connection of its own and polls only as a fallback.
- ``lock(name)``: a session-level advisory lock on a pooled connection; the server
  drops it when the holder's connection dies (``kill -9``), no TTL needed.
Times are the caller's clock (seconds), as in the SQLite outbox, so tests drive them.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memagent.core.types import Job, Turn
from memagent.graph.job_rules import (
    STATUSES,
    JobQueueError,
    after_failure,
    carry_turns,
    job_id,
    plan_due,
    row_to_job,
    turn_ref,
)
from memagent.graph.jobs_pg_sql import SCHEMA, bump_since, insert_job, lock_pending, supersede
from memagent.stores.pg import (
    ADVISORY_KEY,
    DatabaseError,
    connect,
    open_pool,
    redact_url,
    setup_lock,
)

CHANNEL = "memagent_jobs"
ORDER_KEY = "'claim:' || c.thread_id"
"""A session's jobs apply in order: a claim skips a session with a running job, and the
per-session lock closes the window where two claims both see none running yet."""

_LEASED = " AND lease_token=%s AND status='running'"


class PgJobQueue:
    """The job outbox in a PostgreSQL database (``MEMAGENT_DATABASE_URL``)."""

    def __init__(
        self,
        url: str,
        *,
        delay_s: float = 0.0,
        every_n_turns: int = 4,
        max_attempts: int = 5,
        backoff_base_s: float = 2.0,
        backoff_cap_s: float = 300.0,
        lease_s: float = 60.0,
        clock: Callable[[], float] = time.time,
        pool_size: int = 10,
    ) -> None:
        if delay_s < 0 or lease_s <= 0 or max_attempts < 1 or every_n_turns < 1:
            raise ValueError(
                "need delay_s >= 0, lease_s > 0, max_attempts >= 1, every_n_turns >= 1"
            )
        self.url = url
        self.delay_s = delay_s
        self.every_n_turns = every_n_turns
        self.max_attempts = max_attempts
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.lease_s = lease_s
        self.clock = clock
        self._listeners: list[Callable[[], None]] = []
        self._listen_thread: threading.Thread | None = None
        self._closing = threading.Event()
        self.pool = open_pool(url, name="memagent-jobs", max_size=pool_size)
        with self.pool.connection() as conn, setup_lock(conn, "memagent_jobs.setup"):
            conn.execute(SCHEMA)

    def __repr__(self) -> str:
        return f"PgJobQueue({self.where})"

    @property
    def where(self) -> str:
        return redact_url(self.url)

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        with self.pool.connection() as conn, conn.transaction():
            yield conn

    def close(self) -> None:
        """Stop the LISTEN thread and close the pool (idempotent)."""
        self._closing.set()
        if self._listen_thread is not None:
            self._listen_thread.join(timeout=5)
            self._listen_thread = None
        self.pool.close()

    # -- wake-up -------------------------------------------------------------

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after every submit, from any process (LISTEN/NOTIFY)."""
        self._listeners.append(callback)
        if self._listen_thread is None:
            self._listen_thread = threading.Thread(
                target=self._listen, name="memagent-jobs-listen", daemon=True
            )
            self._listen_thread.start()

    def _wake(self) -> None:
        for cb in list(self._listeners):
            cb()

    def _listen(self) -> None:
        """Wake the listeners on each notification; reconnect after a lost connection
        (and wake once then, in case a submit was missed meanwhile)."""
        delay = 0.5
        while not self._closing.is_set():
            try:
                with connect(self.url) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    delay = 0.5
                    self._wake()
                    while not self._closing.is_set():
                        for _ in conn.notifies(timeout=0.5):
                            self._wake()
            except Exception:  # noqa: BLE001 - the server went away: retry, the poll covers it
                self._closing.wait(delay)
                delay = min(10.0, delay * 2)

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
        """Enqueue one turn's messages; see ``memagent.graph.jobs.JobQueue.submit``."""
        if not thread_id or not user_id or not customer_id:
            raise JobQueueError("submit needs thread_id, user_id and customer_id")
        turns = [t for t in turns if t.content.strip()]
        if not turns:
            raise JobQueueError("submit needs at least one non-empty turn")
        now = self.clock()
        with self._tx() as conn:
            old = lock_pending(conn, thread_id)
            all_turns = carry_turns([_turns(r["turns"]) for r in old], turns)
            first_id, last_id = turn_ref(all_turns[0]), turn_ref(all_turns[-1])
            jid = job_id(thread_id, first_id, last_id)
            existing = conn.execute("SELECT * FROM memagent_jobs WHERE id=%s", (jid,)).fetchone()
            if existing is not None:
                return row_to_job(existing)
            since = bump_since(conn, thread_id)
            run_at, reasons, due_now = plan_due(
                now=now,
                since=since,
                trigger=trigger,
                urgent=urgent,
                superseded=[(r["run_at"], r["trigger"]) for r in old],
                delay_s=self.delay_s,
                every_n_turns=self.every_n_turns,
            )
            if due_now:
                conn.execute(
                    "UPDATE memagent_thread_turns SET since_run=0 WHERE thread_id=%s", (thread_id,)
                )
            supersede(conn, [r["id"] for r in old], by=jid, now=now)
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
            conn.execute(f"NOTIFY {CHANNEL}")
        self._wake()
        return row_to_job(row)

    # -- consumer ------------------------------------------------------------

    def claim(self, *, lease_s: float | None = None, include_delayed: bool = False) -> Job | None:
        """Lease the next due job (or one whose lease expired), or None; see
        ``JobQueue.claim``. Claims by several workers never wait on each other."""
        now = self.clock()
        lease = self.lease_s if lease_s is None else lease_s
        with self._tx() as conn:
            conn.execute(
                "UPDATE memagent_jobs SET lease_token=NULL, updated_at=%s,"
                " status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,"
                " last_error=COALESCE(last_error, 'lease expired')"
                " WHERE id IN (SELECT id FROM memagent_jobs WHERE status='running'"
                " AND lease_until < %s FOR UPDATE SKIP LOCKED)",
                (now, now),
            )
            row = conn.execute(
                "WITH next AS (SELECT id FROM memagent_jobs c WHERE status='pending'"
                " AND (run_at <= %s OR (%s AND last_error IS NULL))"
                " AND NOT EXISTS (SELECT 1 FROM memagent_jobs r WHERE r.thread_id=c.thread_id"
                " AND r.status='running')"
                f" AND pg_try_advisory_xact_lock({ADVISORY_KEY.replace('%s', ORDER_KEY)})"
                " ORDER BY run_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)"
                " UPDATE memagent_jobs j SET status='running', attempts=j.attempts+1,"
                " lease_until=%s, lease_token=%s, updated_at=%s"
                " FROM next WHERE j.id = next.id RETURNING j.*",
                (now, include_delayed, now + lease, uuid.uuid4().hex, now),
            ).fetchone()
        return None if row is None else row_to_job(row)

    def heartbeat(self, job: Job, *, lease_s: float | None = None) -> None:
        """Extend a running job's lease (long LLM calls)."""
        lease = self.lease_s if lease_s is None else lease_s
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE memagent_jobs SET lease_until=%s WHERE id=%s" + _LEASED,
                (self.clock() + lease, job.id, job.lease_token),
            )
            if cur.rowcount != 1:
                raise JobQueueError(f"lost the lease of job {job.id}")

    def complete(self, job: Job, result: dict[str, Any] | None = None) -> bool:
        """Mark a claimed job done; False if its lease was lost to another worker."""
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE memagent_jobs SET status='done', lease_token=NULL, lease_until=NULL,"
                " updated_at=%s, result=%s WHERE id=%s" + _LEASED,
                (self.clock(), json.dumps(result or {}, ensure_ascii=False), job.id,
                 job.lease_token),
            )  # fmt: skip
            return bool(cur.rowcount == 1)

    def save_result(self, job: Job, result: dict[str, Any]) -> None:
        """Store a running job's extracted candidates (a retry reuses them)."""
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE memagent_jobs SET result=%s, updated_at=%s WHERE id=%s AND lease_token=%s",
                (json.dumps(result, ensure_ascii=False), self.clock(), job.id, job.lease_token),
            )
            if cur.rowcount != 1:
                raise JobQueueError(f"lost the lease of job {job.id}")
        job.result = result

    def release(self, job: Job, *, delay_s: float, error: str) -> bool:
        """Give a job back without spending an attempt (a dependency is down)."""
        now = self.clock()
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE memagent_jobs SET status='pending', attempts=GREATEST(0, attempts-1),"
                " run_at=%s, lease_token=NULL, lease_until=NULL, last_error=%s, updated_at=%s"
                " WHERE id=%s" + _LEASED,
                (now + delay_s, error[:2000], now, job.id, job.lease_token),
            )
            return bool(cur.rowcount == 1)

    def fail(self, job: Job, error: str) -> str:
        """Record a failure: back to pending after a backoff, or dead. Returns the new status."""
        now = self.clock()
        with self._tx() as conn:
            row = conn.execute(
                "SELECT attempts, max_attempts, lease_token FROM memagent_jobs WHERE id=%s"
                " FOR UPDATE",
                (job.id,),
            ).fetchone()
            if row is None or row["lease_token"] != job.lease_token:
                return "lost"
            status, run_at = after_failure(
                row["attempts"], row["max_attempts"], now, self.backoff_base_s, self.backoff_cap_s
            )
            conn.execute(
                "UPDATE memagent_jobs SET status=%s, run_at=%s, lease_token=NULL,"
                " lease_until=NULL, last_error=%s, updated_at=%s WHERE id=%s",
                (status, run_at, error[:2000], now, job.id),
            )
        return status

    # -- cross-process lock -------------------------------------------------

    @contextmanager
    def lock(self, name: str, *, ttl_s: float = 30.0, timeout_s: float = 60.0) -> Iterator[None]:
        """Mutex across threads, processes and hosts sharing this database: an advisory
        lock held by one pooled connection, dropped by the server if the holder dies
        (``ttl_s`` is not needed here and kept for the ``Outbox`` signature)."""
        deadline = time.monotonic() + timeout_s
        delay = 0.002
        sql = f"SELECT pg_try_advisory_lock({ADVISORY_KEY}) AS got"
        with self.pool.connection() as conn:
            while not conn.execute(sql, ("lock:" + name,)).fetchone()["got"]:
                if time.monotonic() > deadline:
                    raise JobQueueError(f"timed out waiting for lock {name!r}")
                time.sleep(delay)
                delay = min(0.05, delay * 2)
            try:
                yield
            finally:
                conn.execute(f"SELECT pg_advisory_unlock({ADVISORY_KEY})", ("lock:" + name,))

    # -- inspection and admin -----------------------------------------------

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return list(conn.execute(sql, args).fetchall())

    def get(self, jid: str) -> Job | None:
        rows = self._rows("SELECT * FROM memagent_jobs WHERE id=%s", (jid,))
        return row_to_job(rows[0]) if rows else None

    def ids(self, status: str | None = None) -> list[str]:
        """Every job id (of one status), for resolving a shortened id."""
        if status is None:
            return [r["id"] for r in self._rows("SELECT id FROM memagent_jobs")]
        rows = self._rows("SELECT id FROM memagent_jobs WHERE status=%s", (status,))
        return [r["id"] for r in rows]

    def counts(self) -> dict[str, int]:
        """Number of jobs per status (every status present, zero if none)."""
        out = dict.fromkeys(STATUSES, 0)
        for row in self._rows("SELECT status, COUNT(*) AS n FROM memagent_jobs GROUP BY status"):
            out[row["status"]] = int(row["n"])
        return out

    def jobs(self, status: str | None = None, limit: int = 100) -> list[Job]:
        if status is not None and status not in STATUSES:
            raise JobQueueError(f"unknown status {status!r}; expected one of {STATUSES}")
        where = " WHERE status=%s" if status else ""
        args: tuple[Any, ...] = (status,) if status else ()
        rows = self._rows(
            f"SELECT * FROM memagent_jobs{where} ORDER BY created_at LIMIT %s", (*args, limit)
        )
        return [row_to_job(r) for r in rows]

    def dead_letters(self, limit: int = 100) -> list[Job]:
        return self.jobs("dead", limit)

    def outstanding(self) -> int:
        """Jobs not finished yet (pending or running)."""
        rows = self._rows(
            "SELECT COUNT(*) AS n FROM memagent_jobs WHERE status IN ('pending','running')"
        )
        return int(rows[0]["n"])

    def unfinished(self, user_id: str, customer_id: str, now: float) -> int:
        """Jobs of one account that a worker is running or may take at ``now`` (running,
        or pending and due); one count query, for recall's wait on extraction."""
        rows = self._rows(
            "SELECT COUNT(*) AS n FROM memagent_jobs WHERE user_id=%s AND customer_id=%s"
            " AND (status='running' OR (status='pending' AND run_at<=%s))",
            (user_id, customer_id, now),
        )
        return int(rows[0]["n"])

    def next_due(self) -> float | None:
        """Time when the next pending job becomes due (None if none)."""
        rows = self._rows("SELECT MIN(run_at) AS t FROM memagent_jobs WHERE status='pending'")
        return None if rows[0]["t"] is None else float(rows[0]["t"])

    def retry_dead(self, jid: str | None = None) -> int:
        """Put dead jobs (one or all) back in line with a fresh attempt budget."""
        now = self.clock()
        sql = (
            "UPDATE memagent_jobs SET status='pending', attempts=0, run_at=%s, updated_at=%s"
            " WHERE status='dead'"
        )
        args: tuple[Any, ...] = (now, now)
        if jid:
            sql, args = sql + " AND id=%s", (*args, jid)
        with self._tx() as conn:
            count = int(conn.execute(sql, args).rowcount)
            conn.execute(f"NOTIFY {CHANNEL}")
        return count

    def delete_scope(self, user_id: str, customer_id: str | None = None) -> int:
        """Delete every job (any status) of a user, or of one customer of a user (forget)."""
        if not user_id:
            raise JobQueueError("delete_scope needs a user_id")
        with self._tx() as conn:
            if customer_id is None:
                cur = conn.execute("DELETE FROM memagent_jobs WHERE user_id=%s", (user_id,))
            else:
                cur = conn.execute(
                    "DELETE FROM memagent_jobs WHERE user_id=%s AND customer_id=%s",
                    (user_id, customer_id),
                )
            return int(cur.rowcount)

    def purge_finished(self, older_than_s: float) -> int:
        """Drop done/superseded rows older than ``older_than_s`` (they hold transcripts)."""
        with self._tx() as conn:
            return int(
                conn.execute(
                    "DELETE FROM memagent_jobs WHERE status IN ('done','superseded')"
                    " AND updated_at < %s",
                    (self.clock() - older_than_s,),
                ).rowcount
            )


def _turns(raw: str) -> list[Turn]:
    return [Turn(**t) for t in json.loads(raw)]


__all__ = ["CHANNEL", "DatabaseError", "PgJobQueue"]
