"""PostgreSQL connections for the parts that move there with ``MEMAGENT_DATABASE_URL``.

Shared by the job outbox, the CRM and the checkpointer's opener: a connection pool
that fails fast with one line naming the server (password hidden) instead of waiting
forever, a reachability check for ``memagent doctor``, and the one-time schema setup
taken under an advisory lock, so many processes starting at once create each table
once. psycopg is imported when a PostgreSQL URL is used, never for the SQLite default.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memagent.stores.file_access import StorageError

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

CONNECT_TIMEOUT_S = 10.0


class DatabaseError(StorageError):
    """The PostgreSQL database cannot be reached or used; the message names it and why."""


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages and ``doctor``)."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)


def _why(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] or type(exc).__name__


def connect(url: str, **kwargs: Any) -> psycopg.Connection[Any]:
    """One autocommit connection, or a ``DatabaseError`` naming the server and why."""
    import psycopg

    kwargs.setdefault("connect_timeout", int(CONNECT_TIMEOUT_S))
    try:
        return psycopg.connect(url, autocommit=True, **kwargs)
    except psycopg.Error as exc:
        raise DatabaseError(f"PostgreSQL at {redact_url(url)}: {_why(exc)}") from None


def check(url: str) -> str:
    """The server's version (``15.18``), or a ``DatabaseError`` (``memagent doctor``)."""
    with connect(url) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "?"


def open_pool(
    url: str, *, name: str, max_size: int = 10, row_factory: Any = None
) -> ConnectionPool[Any]:
    """A pool of autocommit connections (dict rows unless ``row_factory``); checked once
    now, so a wrong URL is a ``DatabaseError`` at open, not a hang at the first query."""
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    connect(url).close()  # the real reason (refused, auth, no such database) if any
    pool: ConnectionPool[Any] = ConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        kwargs={"autocommit": True, "row_factory": row_factory or dict_row},
        name=name,
        open=False,
        timeout=60.0,
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
    except Exception as exc:
        pool.close()
        raise DatabaseError(f"PostgreSQL at {redact_url(url)}: {_why(exc)}") from None
    return pool


ADVISORY_KEY = "hashtextextended(%s, 0)"
"""SQL for the 64-bit advisory-lock key of a name (one parameter)."""


@contextmanager
def setup_lock(conn: psycopg.Connection[Any], name: str) -> Iterator[None]:
    """Hold an advisory lock for a schema setup, in one transaction: concurrent
    ``CREATE TABLE IF NOT EXISTS`` from processes starting together can otherwise fail
    on the catalog's unique index. Polled with ``pg_try_advisory_xact_lock``, never
    waited for inside a query: a waiting query holds a snapshot that another process's
    ``CREATE INDEX CONCURRENTLY`` (the checkpointer's migrations) waits for, and that
    cycle is one PostgreSQL does not detect."""
    delay = 0.01
    sql = f"SELECT pg_try_advisory_xact_lock({ADVISORY_KEY}) AS got"
    while True:
        with conn.transaction():
            row = conn.execute(sql, (name,)).fetchone()
            if row is not None and (row["got"] if isinstance(row, dict) else row[0]):
                yield
                return
        time.sleep(delay)
        delay = min(0.2, delay * 2)
