"""The SQLite outbox's schema and the statements of a submit (``jobs``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from memagent.core.types import Turn

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
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
    run_at REAL NOT NULL,
    lease_until REAL,
    lease_token TEXT,
    last_error TEXT,
    superseded_by TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    result TEXT
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs(status, run_at);
CREATE INDEX IF NOT EXISTS jobs_thread ON jobs(thread_id, status);
CREATE INDEX IF NOT EXISTS jobs_scope ON jobs(user_id, customer_id);
CREATE TABLE IF NOT EXISTS locks (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS thread_turns (
    thread_id TEXT PRIMARY KEY,
    since_run INTEGER NOT NULL DEFAULT 0
);
"""


def bump_since(conn: sqlite3.Connection, thread_id: str) -> int:
    """Count one more turn since the thread's last due run; the new count."""
    conn.execute(
        "INSERT INTO thread_turns(thread_id, since_run) VALUES(?, 1) "
        "ON CONFLICT(thread_id) DO UPDATE SET since_run = since_run + 1",
        (thread_id,),
    )
    row = conn.execute(
        "SELECT since_run FROM thread_turns WHERE thread_id=?", (thread_id,)
    ).fetchone()
    return int(row[0])


def supersede_pending(conn: sqlite3.Connection, thread_id: str, *, by: str, now: float) -> None:
    """Mark the thread's pending jobs superseded by job ``by``."""
    conn.execute(
        "UPDATE jobs SET status='superseded', superseded_by=?, updated_at=? "
        "WHERE thread_id=? AND status='pending'",
        (by, now, thread_id),
    )


def insert_job(
    conn: sqlite3.Connection,
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
) -> sqlite3.Row:
    """Insert a pending job; its row."""
    conn.execute(
        "INSERT INTO jobs(id, thread_id, user_id, customer_id, first_id, last_id, turns,"
        " status, trigger, attempts, max_attempts, run_at, created_at, updated_at)"
        " VALUES(?,?,?,?,?,?,?,'pending',?,0,?,?,?,?)",
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
        ),
    )
    row: sqlite3.Row = conn.execute("SELECT * FROM jobs WHERE id=?", (jid,)).fetchone()
    return row
