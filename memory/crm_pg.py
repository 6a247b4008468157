"""The CRM's tables in PostgreSQL (``MEMAGENT_DATABASE_URL``): same records, same checks.

Created and seeded once under an advisory lock, so agents and workers starting together
seed the demo accounts once. Connections come from a small pool opened on first use.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memagent.memory.crm import DEMO_CUSTOMERS, Crm
from memagent.stores.pg import open_pool, redact_url, setup_lock

SCHEMA = """
CREATE TABLE IF NOT EXISTS customers (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, contact TEXT NOT NULL, email TEXT NOT NULL,
    stage TEXT NOT NULL, deal_size BIGINT NOT NULL, currency TEXT NOT NULL, notes TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS commitments (
    id BIGSERIAL PRIMARY KEY, user_id TEXT NOT NULL, customer_id TEXT NOT NULL,
    description TEXT NOT NULL, due_date TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open',
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS commitments_scope ON commitments (user_id, customer_id, status);
"""


class PgCrm(Crm):
    """The CRM in the PostgreSQL database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._ready = False
        self._pool: Any = None

    @property
    def where(self) -> str:
        return redact_url(self.url)

    def _q(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def _is_duplicate(self, exc: BaseException) -> bool:
        import psycopg

        return isinstance(exc, psycopg.errors.UniqueViolation)

    def _require_writable(self) -> None:
        """The database's grants decide; an insert it refuses fails with its reason."""

    def _setup(self) -> None:
        from psycopg.rows import tuple_row

        self._pool = open_pool(self.url, name="memagent-crm", max_size=4, row_factory=tuple_row)
        with self._pool.connection() as conn, setup_lock(conn, "memagent_crm.setup"):
            conn.execute(SCHEMA)
            if conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0] == 0:
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO customers VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                        DEMO_CUSTOMERS,
                    )
        self._ready = True

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        if not self._ready:
            self._setup()
        with self._pool.connection() as conn, conn.transaction():
            yield conn

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
            self._ready = False
