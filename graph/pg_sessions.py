"""Sessions on PostgreSQL (``MEMAGENT_DATABASE_URL``): LangGraph's ``AsyncPostgresSaver``
and the cross-host turn lock.

The saver runs on a ``psycopg_pool`` pool with the settings LangGraph documents for it
(autocommit, dict rows, no server-side prepared statements, so a PgBouncer in
transaction mode works too); ``setup()`` runs its migrations once, under an advisory
lock, so agents and workers starting together do not race on them.

``PgTurnLocks`` is ``memagent.graph.turn_lock`` for agents on several hosts: a session's
turns take a session-level advisory lock, held by a connection of a pool of its own
(never the saver's, so a turn waiting for its lock cannot starve the turns holding
theirs of checkpoint connections). A holder killed with -9 loses the lock with its
connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from memagent.stores.pg import ADVISORY_KEY, CONNECT_TIMEOUT_S, DatabaseError, connect, redact_url

POLL_S = 0.02


async def _open_async_pool(url: str, *, name: str, max_size: int) -> Any:
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    await asyncio.to_thread(lambda: connect(url).close())  # the real reason, if any
    pool = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        name=name,
        open=False,
        timeout=120.0,
    )
    try:
        await pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
    except Exception as exc:
        await pool.close()
        raise DatabaseError(f"PostgreSQL at {redact_url(url)}: {exc}") from None
    return pool


@contextlib.asynccontextmanager
async def postgres_saver(url: str, *, max_size: int = 20) -> AsyncIterator[Any]:
    """An ``AsyncPostgresSaver`` on its own pool, set up; closed on exit."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    pool = await _open_async_pool(url, name="memagent-checkpoints", max_size=max_size)
    try:
        saver = AsyncPostgresSaver(pool)
        key = "memagent_checkpoints.setup"
        async with pool.connection() as conn:
            # polled, not waited for in a query: a waiting query would hold a snapshot
            # that the holder's CREATE INDEX CONCURRENTLY waits for (an undetected cycle)
            sql = f"SELECT pg_try_advisory_lock({ADVISORY_KEY}) AS got"
            while not (await (await conn.execute(sql, (key,))).fetchone())["got"]:
                await asyncio.sleep(0.05)
            try:
                await saver.setup()
            finally:
                await conn.execute(f"SELECT pg_advisory_unlock({ADVISORY_KEY})", (key,))
        yield saver
    finally:
        await pool.close()


class PgTurnLocks:
    """One turn of a session at a time across every agent on the database."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, url: str, *, max_size: int = 32) -> AsyncIterator[PgTurnLocks]:
        pool = await _open_async_pool(url, name="memagent-turn-locks", max_size=max_size)
        try:
            yield cls(pool)
        finally:
            await pool.close()

    @contextlib.asynccontextmanager
    async def hold(self, session: str) -> AsyncIterator[None]:
        """Hold ``session``'s turn lock for the block (polled: the event loop runs on)."""
        key = "turn:" + session
        async with self.pool.connection() as conn:
            sql = f"SELECT pg_try_advisory_lock({ADVISORY_KEY}) AS got"
            while not (await (await conn.execute(sql, (key,))).fetchone())["got"]:
                await asyncio.sleep(POLL_S)
            try:
                yield
            finally:
                unlock = conn.execute(f"SELECT pg_advisory_unlock({ADVISORY_KEY})", (key,))
                try:  # a cancelled turn still unlocks; a connection that cannot is dropped
                    await asyncio.shield(unlock)
                except BaseException:
                    await conn.close()
                    raise
