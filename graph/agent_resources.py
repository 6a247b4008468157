"""The resources an agent runs on, opened from settings: the home, the checkpointer and
the store (also langgraph.json's ``checkpointer.path`` and ``store.path``, re-exported by
``memagent.graph.agent``), the job outbox and the in-process extraction worker."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.base import BaseStore

from memagent.core.settings import Settings
from memagent.graph.jobs import Outbox, open_queue
from memagent.graph.pg_sessions import postgres_saver
from memagent.graph.run_checkpoints import RunScopedSqliteSaver
from memagent.graph.settings import get_settings
from memagent.graph.worker import Worker
from memagent.stores.file_access import aconnect_readonly, open_failure, require_writable
from memagent.stores.sqlite_wal import BUSY_TIMEOUT_S, prepare_wal_file


def prepare_home(settings: Settings) -> None:
    """First use of a home, blocking: its directory and the redaction key memagent's log
    records are redacted with (created on first use). The async openers run it in a
    thread; the first composition root to pin a key keeps it."""
    from memagent.core.log_redaction import use_key_file
    from memagent.core.redact import REDACTION_KEY_FILE

    settings.home.mkdir(parents=True, exist_ok=True)
    use_key_file(settings.home / REDACTION_KEY_FILE, replace=False)


@contextlib.asynccontextmanager
async def checkpointer_factory(
    settings: Settings | None = None, *, read_only: bool = False
) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The checkpointer (langgraph.json ``checkpointer.path``: an async context manager
    yielding a saver): LangGraph's ``AsyncPostgresSaver`` at ``MEMAGENT_DATABASE_URL``,
    else the SQLite file at ``settings.checkpoint_path``.

    ``read_only`` (``sessions list/show``) opens the file with a read-only URI, and a
    missing file as an empty in-memory database, so reading works on a read-only home
    and creates nothing. A file that cannot be opened is a ``StorageError`` naming it."""
    settings = settings or get_settings()
    if settings.database_dsn:  # read_only: the database's grants decide
        async with postgres_saver(settings.database_dsn) as pg_saver:
            yield pg_saver
        return
    path = settings.checkpoint_path
    if read_only:
        exists = await asyncio.to_thread(path.exists)
        conn = await (aconnect_readonly(path) if exists else aiosqlite.connect(":memory:"))
        try:
            saver: AsyncSqliteSaver = RunScopedSqliteSaver(conn)
            await saver.setup()
            yield saver
        finally:
            await conn.close()
        return
    conn = None
    try:  # blocking file checks off the event loop (Studio's blocking-call detector)
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(require_writable, path)
        # WAL first, waiting for another process switching the same fresh file: the
        # saver's own ``setup`` runs the bare pragma, which would fail at once.
        await asyncio.to_thread(prepare_wal_file, path)
        conn = await aiosqlite.connect(str(path), timeout=BUSY_TIMEOUT_S)
        saver = RunScopedSqliteSaver(conn)
        await saver.setup()
    except (OSError, sqlite3.Error) as exc:
        if conn is not None:
            await conn.close()
        raise open_failure(path, exc) from exc
    try:
        yield saver
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def store_factory(
    settings: Settings | None = None, *, read_only: bool = False
) -> AsyncIterator[BaseStore]:
    """The long-term store for settings (langgraph.json ``store.path``): the embedded
    Qdrant engine on disk or a Qdrant server, with the configured embedder
    (``read_only``: see ``memagent.stores.open_store``)."""
    from memagent.graph.home_in_use import explain
    from memagent.stores.engine_edge import StoreLockedError
    from memagent.stores.qdrant_store import aopen_store

    settings = settings or get_settings()
    opened = aopen_store(settings.resolved_store_location(), settings=settings, read_only=read_only)
    try:
        store = await opened.__aenter__()
    except StoreLockedError as exc:
        if exc.path is None:  # a shared store that stayed busy: its own words say it
            raise
        # Who holds the home and what to do (Studio, the CLI's service, a worker).
        advice = explain(exc.path, exc.holder)
        raise StoreLockedError(advice, path=exc.path, holder=exc.holder) from exc
    try:
        yield store
    except BaseException as exc:
        if not await opened.__aexit__(type(exc), exc, exc.__traceback__):
            raise
    else:
        await opened.__aexit__(None, None, None)


@contextlib.asynccontextmanager
async def studio_store(settings: Settings | None = None) -> AsyncIterator[BaseStore]:
    """langgraph.json ``store.path`` for ``langgraph dev``: the project's store plus the
    in-process extraction worker, so jobs that Studio runs enqueue are applied while the
    server runs (the exported ``graph`` has no worker of its own).

    Entered before the server serves; everything that blocks (home, redaction key, job
    queue, store, worker) runs in threads, and the local LLM starts off the event loop
    on the first model call (``memagent.llm.adapter``), as langgraph dev demands. On
    shutdown the local LLM server the runs started is stopped with it.
    """
    settings = settings or get_settings()
    await asyncio.to_thread(prepare_home, settings)
    async with local_llm_lifetime(), store_factory(settings) as store:
        queue = await asyncio.to_thread(open_outbox, settings)
        try:
            async with aworker(settings, queue, store):
                yield store
        finally:
            if queue is not None:
                queue.close()


@contextlib.asynccontextmanager
async def local_llm_lifetime() -> AsyncIterator[None]:
    """Stop the local LLM servers the graph started, when the Studio server shuts down:
    ``langgraph dev`` re-raises SIGTERM after its graceful shutdown, so atexit never runs
    and the llama.cpp server (in its own session) would be orphaned."""
    try:
        yield
    finally:
        from memagent.llm.server import shutdown_local_servers

        await asyncio.to_thread(shutdown_local_servers)


def open_outbox(settings: Settings) -> Outbox | None:
    return open_queue(settings) if settings.extractor != "off" else None


@contextlib.asynccontextmanager
async def aworker(
    settings: Settings, queue: Outbox | None, store: BaseStore
) -> AsyncIterator[Worker | None]:
    """``inprocess_worker`` for async openers: built, started and stopped in a thread."""
    cm = inprocess_worker(settings, queue, store)
    worker = await asyncio.to_thread(cm.__enter__)
    try:
        yield worker
    finally:
        await asyncio.to_thread(cm.__exit__, None, None, None)


@contextlib.contextmanager
def inprocess_worker(
    settings: Settings, queue: Outbox | None, store: BaseStore
) -> Iterator[Worker | None]:
    """The in-process extraction worker (``MEMAGENT_WORKER=inprocess``), stopped after
    its current job on exit; unfinished jobs stay in the durable queue."""
    if settings.worker != "inprocess" or queue is None:
        yield None
        return
    worker = Worker.for_settings(settings, queue=queue, store=store)
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
