"""Putting an SQLite file that several processes open into WAL mode, race-free.

``PRAGMA journal_mode=WAL`` on a database still in rollback mode (a fresh file) rewrites
the file header: SQLite reads it under a shared lock, then asks for the write lock, and
that upgrade from a read to a write does not call the busy handler. So while another
connection holds the write lock (another process switching the same fresh file at the
same moment), the pragma fails at once with "database is locked", whatever
``busy_timeout`` says. Two ``memagent ask`` on a fresh home with ``MEMAGENT_SERVICE=off``
hit this now and then on ``jobs.sqlite`` and ``sessions.sqlite``.

``enable_wal`` waits it out itself, up to the connection's busy timeout: once the other
process has switched the file, the pragma takes no write lock at all, so the retry
succeeds. A lock held past the wait is a ``sqlite3.OperationalError`` saying so.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

BUSY_TIMEOUT_S = 30.0
"""How long a connection to a file of the home waits for another process's lock."""

_BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def is_busy(exc: BaseException) -> bool:
    """True for SQLite's "database is locked"/"table is locked" (another connection)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return (
        isinstance(exc, sqlite3.OperationalError)
        and code is not None
        and (code & 0xFF in _BUSY_CODES)
    )


def enable_wal(
    conn: sqlite3.Connection,
    *,
    timeout_s: float = BUSY_TIMEOUT_S,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> str:
    """Switch ``conn``'s database to WAL, retrying while another connection holds the
    lock the switch needs, for up to ``timeout_s``; the journal mode now in force.

    ``conn`` must be in autocommit mode (no open transaction: SQLite refuses the switch
    inside one)."""
    deadline = clock() + timeout_s
    delay = 0.001
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            left = deadline - clock()
            if left <= 0:
                raise sqlite3.OperationalError(
                    f"database is locked: another process held it for {timeout_s:g} s"
                ) from exc
        sleep(min(delay, left))
        delay = min(0.05, delay * 2)


def prepare_wal_file(path: str | Path, *, timeout_s: float = BUSY_TIMEOUT_S) -> None:
    """Create the database at ``path`` if missing and switch it to WAL (``enable_wal``),
    for a driver that switches it itself without waiting (LangGraph's SQLite saver runs
    the pragma in its ``setup``; on a file already in WAL mode that is a no-op)."""
    conn = sqlite3.connect(path, timeout=timeout_s, isolation_level=None)
    try:
        enable_wal(conn, timeout_s=timeout_s)
    finally:
        conn.close()
