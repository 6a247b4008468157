"""The PostgreSQL outbox's schema and the two statements of a submit (``jobs_pg``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memagent.core.types import Turn
from memagent.stores.pg import ADVISORY_KEY

SCHEMA = """
CREATE TABLE IF NOT EXISTS memagent_jobs (
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    first_id TEXT NOT NULL,
    last_id TEXT NOT NULL,
    turns TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger TEXT NOT NULL DEFAULT '',
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    run_at DOUBLE PRECISION NOT NULL,
    lease_until DOUBLE PRECISION,
    lease_token TEXT,
    last_error TEXT,
    superseded_by TEXT,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    result TEXT
);
CREATE INDEX IF NOT EXISTS memagent_jobs_due ON memagent_jobs(status, run_at);
CREATE INDEX IF NOT EXISTS memagent_jobs_thread ON memagent_jobs(thread_id, status);
CREATE INDEX IF NOT EXISTS memagent_jobs_scope ON memagent_jobs(user_id, customer_id);
CREATE TABLE IF NOT EXISTS memagent_thread_turns (
    thread_id TEXT PRIMARY KEY,
    since_run INTEGER NOT NULL DEFAULT 0
);
"""


def lock_pending(conn: Any, thread_id: str) -> list[dict[str, Any]]:
    """Take the thread's submit lock (transaction-level) and lock its pending rows, oldest
    first (waiting for a claim in flight); those rows."""
    conn.execute(f"SELECT pg_advisory_xact_lock({ADVISORY_KEY})", ("submit:" + thread_id,))
    rows: list[dict[str, Any]] = conn.execute(
        "SELECT * FROM memagent_jobs WHERE thread_id=%s AND status='pending'"
        " ORDER BY created_at FOR UPDATE",
        (thread_id,),
    ).fetchall()
    return rows


def supersede(conn: Any, ids: Sequence[str], *, by: str, now: float) -> None:
    """Mark pending jobs ``ids`` superseded by job ``by``."""
    conn.execute(
        "UPDATE memagent_jobs SET status='superseded', superseded_by=%s, updated_at=%s"
        " WHERE id = ANY(%s)",
        (by, now, list(ids)),
    )


def bump_since(conn: Any, thread_id: str) -> int:
    """Count one more turn since the thread's last due run; the new count."""
    row = conn.execute(
        "INSERT INTO memagent_thread_turns(thread_id, since_run) VALUES(%s, 1)"
        " ON CONFLICT(thread_id) DO UPDATE"
        " SET since_run = memagent_thread_turns.since_run + 1 RETURNING since_run",
        (thread_id,),
    ).fetchone()
    return int(row["since_run"])


def insert_job(
    conn: Any,
    *,
    jid: str,
    thread_id: str,
    user_id: str,
    customer_id: str,
    first_id: str,
    last_id: str,
    turns: Sequence[Turn],
    trigger: str,
    max_attempts: int,
    run_at: float,
    now: float,
) -> dict[str, Any]:
    """Insert a pending job; its row."""
    row: dict[str, Any] = conn.execute(
        "INSERT INTO memagent_jobs(id, thread_id, user_id, customer_id, first_id,"
        " last_id, turns, status, trigger, attempts, max_attempts, run_at, created_at,"
        " updated_at) VALUES(%s,%s,%s,%s,%s,%s,%s,'pending',%s,0,%s,%s,%s,%s)"
        " RETURNING *",
        (
            jid,
            thread_id,
            user_id,
            customer_id,
            first_id,
            last_id,
            json.dumps([t.to_dict() for t in turns], ensure_ascii=False),
            trigger,
            max_attempts,
            run_at,
            now,
            now,
        ),  # fmt: skip
    ).fetchone()
    return row
