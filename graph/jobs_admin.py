"""Inspection and admin of the SQLite outbox (``jobs.JobQueue``): reading jobs and their
counts, retrying dead letters, forgetting a scope, purging finished rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from memagent.core.types import Job
from memagent.graph.job_rules import STATUSES, JobQueueError, row_to_job


class JobAdmin:
    """The outbox's read and admin methods, on the connections of ``JobQueue``."""

    clock: Callable[[], float]

    def _conn(self, kind: str = "conn") -> sqlite3.Connection:
        raise NotImplementedError

    def _tx(self, kind: str = "conn") -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def get(self, jid: str) -> Job | None:
        row = self._conn().execute("SELECT * FROM jobs WHERE id=?", (jid,)).fetchone()
        return row_to_job(row) if row else None

    def ids(self, status: str | None = None) -> list[str]:
        """Every job id (of one status), for resolving a shortened id."""
        if status is None:
            rows = self._conn().execute("SELECT id FROM jobs")
        else:
            rows = self._conn().execute("SELECT id FROM jobs WHERE status=?", (status,))
        return [str(r[0]) for r in rows]

    def counts(self) -> dict[str, int]:
        """Number of jobs per status (every status present, zero if none)."""
        out = dict.fromkeys(STATUSES, 0)
        for row in self._conn().execute("SELECT status, COUNT(*) n FROM jobs GROUP BY status"):
            out[row["status"]] = row["n"]
        return out

    def jobs(self, status: str | None = None, limit: int = 100) -> list[Job]:
        if status is not None and status not in STATUSES:
            raise JobQueueError(f"unknown status {status!r}; expected one of {STATUSES}")
        sql = "SELECT * FROM jobs"
        args: tuple[Any, ...] = ()
        if status:
            sql += " WHERE status=?"
            args = (status,)
        sql += " ORDER BY created_at LIMIT ?"
        rows = self._conn().execute(sql, (*args, limit)).fetchall()
        return [row_to_job(r) for r in rows]

    def dead_letters(self, limit: int = 100) -> list[Job]:
        return self.jobs("dead", limit)

    def outstanding(self) -> int:
        """Jobs not finished yet (pending or running)."""
        row = (
            self._conn()
            .execute("SELECT COUNT(*) FROM jobs WHERE status IN ('pending','running')")
            .fetchone()
        )
        return int(row[0])

    def unfinished(self, user_id: str, customer_id: str, now: float) -> int:
        """Jobs of one account that a worker is running or may take at ``now`` (running,
        or pending and due); one count query, for recall's wait on extraction."""
        row = (
            self._conn()
            .execute(
                "SELECT COUNT(*) FROM jobs WHERE user_id=? AND customer_id=?"
                " AND (status='running' OR (status='pending' AND run_at<=?))",
                (user_id, customer_id, now),
            )
            .fetchone()
        )
        return int(row[0])

    def next_due(self) -> float | None:
        """Time when the next pending job becomes due (None if none)."""
        row = self._conn().execute("SELECT MIN(run_at) FROM jobs WHERE status='pending'").fetchone()
        return None if row[0] is None else float(row[0])

    def retry_dead(self, jid: str | None = None) -> int:
        """Put dead jobs (one or all) back in line with a fresh attempt budget."""
        now = self.clock()
        with self._tx() as conn:
            sql = (
                "UPDATE jobs SET status='pending', attempts=0, run_at=?, updated_at=? "
                "WHERE status='dead'"
            )
            args: tuple[Any, ...] = (now, now)
            if jid:
                sql += " AND id=?"
                args += (jid,)
            return conn.execute(sql, args).rowcount

    def delete_scope(self, user_id: str, customer_id: str | None = None) -> int:
        """Delete every job (any status) of a user, or of one customer of a user (forget)."""
        if not user_id:
            raise JobQueueError("delete_scope needs a user_id")
        with self._tx() as conn:
            if customer_id is None:
                cur = conn.execute("DELETE FROM jobs WHERE user_id=?", (user_id,))
            else:
                cur = conn.execute(
                    "DELETE FROM jobs WHERE user_id=? AND customer_id=?", (user_id, customer_id)
                )
            return cur.rowcount

    def purge_finished(self, older_than_s: float) -> int:
        """Drop done/superseded rows older than ``older_than_s`` (they hold transcripts)."""
        cutoff = self.clock() - older_than_s
        with self._tx() as conn:
            return conn.execute(
                "DELETE FROM jobs WHERE status IN ('done','superseded') AND updated_at < ?",
                (cutoff,),
            ).rowcount
