"""What requests run on: the agent (graph, checkpointer, store, queue, worker) of a home.

The service opens everything once at start (``eager=True``) and keeps it; the
in-process mode (``MEMAGENT_SERVICE=off``) opens only what its one command needs (a
``memories list`` loads the store, not the graph or the worker) and closes it after.

On a home this process cannot write (the in-process mode serves it, see
``backend.in_process``) the store, the checkpointer and the job queue open read-only,
so reading works; a request that would write asks for ``write=True`` and gets a
``StorageError`` naming the file or directory in the way, before anything is touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

from memagent.core.log_redaction import memagent_logger
from memagent.graph.agent import Agent, aopen_agent, checkpointer_factory, store_factory
from memagent.graph.builder import build_default_graph
from memagent.graph.jobs import Outbox, open_queue
from memagent.graph.sessions import Graph
from memagent.graph.settings import Settings
from memagent.stores.file_access import require_writable, unwritable_reason

StoreOpener = Callable[..., contextlib.AbstractAsyncContextManager[BaseStore]]
STORE_OPENER: StoreOpener = store_factory
"""How resources open the store when no agent is open: ``opener(settings, read_only=...)``;
tests swap in an in-memory one."""


logger = memagent_logger(__name__)


def _require_writable(path: str | Path) -> None:
    if not str(path).startswith(("http://", "https://")):  # a server is written to remotely
        require_writable(path)


def _warm_done(task: asyncio.Task[None]) -> None:
    """A failed pre-start is only logged: the first turn starts the model again and
    reports what went wrong."""
    if not task.cancelled() and task.exception() is not None:
        from memagent.llm.server import PRESTART_FAILED

        logger.warning(PRESTART_FAILED, task.exception())


class Resources:
    """Lazily opened, closed together by the exit stack they were opened on."""

    def __init__(self, settings: Settings, stack: contextlib.AsyncExitStack) -> None:
        self.settings = settings
        self._stack = stack
        self._lock = asyncio.Lock()
        self._agent: Agent | None = None
        self._store: BaseStore | None = None
        self._queue: Outbox | None = None
        self._sessions: tuple[Graph, BaseCheckpointSaver[Any]] | None = None
        self._warming: asyncio.Task[None] | None = None
        self.read_only = unwritable_reason(settings.home) is not None
        """The home cannot be written: everything opens read-only."""

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, settings: Settings, *, eager: bool = False) -> AsyncIterator[Resources]:
        async with contextlib.AsyncExitStack() as stack:
            res = cls(settings, stack)
            if eager:
                await res.agent()
            yield res

    @property
    def opened_agent(self) -> Agent | None:
        return self._agent

    async def agent(self) -> Agent:
        """Everything a turn needs, the in-process worker included."""
        async with self._lock:
            if self._agent is None:
                self._agent = await self._stack.enter_async_context(
                    aopen_agent(self.settings, store=self._store)
                )
            return self._agent

    async def store(self, *, write: bool = False) -> BaseStore:
        """The long-term store; ``write``: the request will write to it."""
        if write and self.read_only:
            await asyncio.to_thread(_require_writable, self.settings.resolved_store_location())
        if self._agent is not None:
            return self._agent.store
        async with self._lock:
            if self._store is None:
                self._store = await self._stack.enter_async_context(
                    STORE_OPENER(self.settings, read_only=self.read_only)
                )
            return self._store

    def queue(self, *, write: bool = False) -> Outbox:
        """The job queue; ``write``: the request will change it."""
        if write and self.read_only and not self.settings.database_dsn:
            _require_writable(self.settings.jobs_path)
        if self._agent is not None and self._agent.queue is not None:
            return self._agent.queue
        if self._queue is None:
            self._queue = open_queue(self.settings, read_only=self.read_only)
            self._stack.callback(self._queue.close)
        return self._queue

    async def sessions(self, *, write: bool = False) -> tuple[Graph, BaseCheckpointSaver[Any]]:
        """A graph to read checkpointed sessions with, and its checkpointer; ``write``:
        the request will change sessions."""
        if write and self.read_only and not self.settings.database_dsn:
            await asyncio.to_thread(_require_writable, self.settings.checkpoint_path)
        if self._agent is not None:
            return self._agent.graph, self._agent.checkpointer
        async with self._lock:
            if self._sessions is None:
                saver = await self._stack.enter_async_context(
                    checkpointer_factory(self.settings, read_only=self.read_only)
                )
                graph = build_default_graph(self.settings).compile(checkpointer=saver)
                self._sessions = (graph, saver)
            return self._sessions

    async def warm_model(self) -> None:
        """Start (or find) the local model servers off the event loop: the chat server,
        then the background one with the tool router's prompt evaluated; a no-op with
        ``MEMAGENT_BASE_URL``."""
        if self.settings.base_url is not None:
            return
        from memagent.graph.builder import router_probe
        from memagent.llm.server import warm_local_servers

        probe = functools.partial(router_probe, self.settings)  # built on the thread
        await asyncio.to_thread(warm_local_servers, self.settings, probe)

    def warm_soon(self, *, turn: bool = False) -> None:
        """``warm_model`` in the background, not awaited, unless it is running already.
        ``memagent chat`` asks when it opens (the model loads while the user types; not
        with pre-start off); a turn asks right after its message is saved, so what it does
        first (recall) overlaps the start, and a turn answered without the model (a note)
        does not wait for it. The turn's first model call waits for the start under way
        and reports its failure; the message is saved before."""
        if self._warming is not None and not self._warming.done():
            return
        if self.settings.base_url is not None or not (turn or self.settings.llm_prestart):
            return
        self._warming = asyncio.get_running_loop().create_task(self.warm_model())
        self._warming.add_done_callback(_warm_done)

    async def start_model(self) -> None:
        """A turn's ``prepare``: ``warm_soon(turn=True)``."""
        self.warm_soon(turn=True)

    def jobs_busy(self) -> bool:
        """A job is running, or one is due now (the worker is about to take it)."""
        queue = self.queue()
        due = queue.next_due()
        return queue.counts().get("running", 0) > 0 or (due is not None and due <= queue.clock())
