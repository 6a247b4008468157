"""The persistent agent: the graph compiled with its checkpointer (SQLite, or PostgreSQL
with ``MEMAGENT_DATABASE_URL``) and the store.

``aopen_agent`` (async) and ``open_agent`` (sync, for scripts) open everything one
process needs — checkpointer, store, job queue, in-process worker, CRM — and close it
in reverse order. ``arun_turn`` / ``run_turn`` run one user turn and return what the
CLI, tests and notebooks show. ``checkpointer_factory`` and ``store_factory`` are the
hooks langgraph.json points at.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.constants import START
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from memagent.core.context import Context
from memagent.core.settings import Settings
from memagent.graph.agent_resources import (
    aworker,
    checkpointer_factory,
    open_outbox,
    prepare_home,
    store_factory,
    studio_store,
)
from memagent.graph.builder import ChatModelFactory, build_default_graph
from memagent.graph.builder import default_chat_model_factory as _default_factory
from memagent.graph.failed_turn import handed_over
from memagent.graph.jobs import Outbox
from memagent.graph.pg_sessions import PgTurnLocks
from memagent.graph.settings import get_settings
from memagent.graph.turn_lock import turn_lock
from memagent.graph.turn_run import answer, finish, remember_unanswered
from memagent.graph.turn_state import same_text, unanswered, unfinished
from memagent.graph.validation import (
    MAX_MESSAGE_CHARS as MAX_MESSAGE_CHARS,
)
from memagent.graph.validation import (
    MAX_SESSION_LEN as MAX_SESSION_LEN,
)
from memagent.graph.validation import (
    InvalidMessageError,
    validate_message,
    validate_session,
)
from memagent.graph.worker import Worker
from memagent.memory.crm import Crm, open_crm
from memagent.memory.working_memory import session_lock
from memagent.nodes.recall import AccessLog

T = TypeVar("T")


class NothingToRetryError(InvalidMessageError):
    """A retry of a session whose last turn was answered."""


class SessionScopeError(PermissionError):
    """A session id that belongs to another user or customer."""


Taken = Literal["new", "resumed", "joined"]
"""How a turn took its message (``arun_turn``): appended as a new turn, resumed as the
session's unanswered turn, or joined to the unanswered message it follows."""


@dataclass
class Agent:
    """Everything one process needs to run turns; see ``aopen_agent``."""

    graph: CompiledStateGraph[Any, Any, Any, Any]
    store: BaseStore
    checkpointer: BaseCheckpointSaver[Any]
    settings: Settings
    crm: Crm
    access_log: AccessLog
    queue: Outbox | None = None
    worker: Worker | None = None
    turn_locks: PgTurnLocks | None = None
    """Cross-host turn locks on PostgreSQL; None: the file locks under home."""

    def turn_lock(self, session: str) -> contextlib.AbstractAsyncContextManager[None]:
        """The lock that keeps one turn of ``session`` at a time across processes."""
        if self.turn_locks is not None:
            return self.turn_locks.hold(session)
        return turn_lock(self.settings.home / "locks", session)


@dataclass
class TurnResult:
    """One finished turn, as ``memagent ask --json`` prints it."""

    reply: str
    session: str
    trace_id: str
    turn: int
    recalled: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    degraded: list[str] = field(default_factory=list)
    recall_trace: dict[str, Any] = field(default_factory=dict)
    taken: Taken = "new"

    def to_json(self) -> dict[str, Any]:
        return {
            "reply": self.reply,
            "session": self.session,
            "recalled": self.recalled,
            "prompt_tokens": self.prompt_tokens,
            "trace_id": self.trace_id,
            "degraded": self.degraded,
            "turn": self.turn,
        }


@contextlib.asynccontextmanager
async def aopen_agent(
    settings: Settings | None = None,
    *,
    chat_model_factory: ChatModelFactory | None = None,
    store: BaseStore | None = None,
    start_worker: bool = True,
    **overrides: Any,
) -> AsyncIterator[Agent]:
    """Open the agent with persistence; ``store`` and ``chat_model_factory`` are test seams."""
    settings = settings or get_settings()
    await asyncio.to_thread(prepare_home, settings)
    queue = await asyncio.to_thread(open_outbox, settings)
    access_log = AccessLog(lock=queue.lock if queue is not None else None)
    async with contextlib.AsyncExitStack() as stack:
        if queue is not None:
            stack.callback(queue.close)
        saver = await stack.enter_async_context(checkpointer_factory(settings))
        if store is None:
            store = await stack.enter_async_context(store_factory(settings))
        worker = (
            await stack.enter_async_context(aworker(settings, queue, store))
            if start_worker
            else None
        )
        builder = build_default_graph(
            settings,
            chat_model_factory=chat_model_factory or _default_factory,
            queue_factory=lambda: queue,
            access_log=access_log,
            **overrides,
        )
        graph = builder.compile(checkpointer=saver, store=store, name="memagent")
        crm = open_crm(settings.crm_location)
        stack.callback(crm.close)
        locks = (
            await stack.enter_async_context(PgTurnLocks.open(settings.database_dsn))
            if settings.database_dsn
            else None
        )
        agent = Agent(graph, store, saver, settings, crm, access_log, queue, worker, locks)
        try:
            yield agent
        finally:
            await access_log.drain()


async def session_scope(agent: Agent, session: str) -> tuple[str, str] | None:
    """(user_id, customer_id) a session was started for, or None for a new session."""
    snapshot = await agent.checkpointer.aget_tuple({"configurable": {"thread_id": session}})
    if snapshot is None:
        return None
    meta = snapshot.metadata or {}
    user, customer = meta.get("user_id"), meta.get("customer_id")
    return (str(user), str(customer)) if user and customer else None


async def arun_turn(
    agent: Agent,
    message: str | None,
    *,
    user_id: str,
    customer_id: str,
    session: str | None = None,
    on_token: Callable[[str], None] | None = None,
    on_saved: Callable[[Taken], None] | None = None,
    prepare: Callable[[], Awaitable[None]] | None = None,
) -> TurnResult:
    """Run one turn. ``message=None`` retries the session's unfinished turn.

    The user message is checkpointed before anything else runs (a cancelled or failed
    turn keeps it), then ``on_saved`` is called and ``prepare`` awaited (the service
    starts the local model there, off the event loop). ``on_token`` receives reply tokens.

    A session whose last message was never answered (the model was down, the turn was
    cancelled) does not pile up copies of it: the same message again resumes that turn
    (``taken="resumed"``, as ``--retry`` does), and a different one joins it: one turn
    answers both (``taken="joined"``). A retry with nothing unfinished raises
    ``NothingToRetryError``.

    Turns of one session are serialised: on this event loop by ``session_lock``
    (concurrent calls through one agent, async or ``open_agent`` from many threads, which
    all run on its private loop, queue up), and between processes and loops sharing the
    home by ``turn_lock``. The CLI's terminals all go through one agent, in the per-home
    service (``memagent.graph.service``)."""
    if message is not None:
        validate_message(message)
    agent.crm.check_scope(user_id, customer_id)
    validate_session(session)
    session = uuid.uuid4().hex[:12] if session is None else session
    # One turn at a time per session: a second turn waits here for the whole first one,
    # so it reads the checkpoint the first wrote (no interleaved history, no lost slots).
    async with session_lock(session), agent.turn_lock(session):
        return await _run_turn_locked(
            agent, message, user_id, customer_id, session, on_token, on_saved, prepare
        )


async def _checkpoint_message(agent: Agent, config: RunnableConfig, message: str) -> None:
    """Write the user's message as the start of a new run; a cancellation that arrives
    meanwhile waits for the write, so what the user sent is never half kept."""
    write = asyncio.ensure_future(
        agent.graph.aupdate_state(config, {"messages": [HumanMessage(message)]}, as_node=START)
    )
    try:
        await asyncio.shield(write)
    except asyncio.CancelledError:
        await write
        raise


async def _run_turn_locked(
    agent: Agent,
    message: str | None,
    user_id: str,
    customer_id: str,
    session: str,
    on_token: Callable[[str], None] | None,
    on_saved: Callable[[Taken], None] | None,
    prepare: Callable[[], Awaitable[None]] | None,
) -> TurnResult:
    """``arun_turn``'s body, run under the session lock."""
    scope = await session_scope(agent, session)
    if message is None and scope is None:
        raise InvalidMessageError(f"session {session!r} has no turn to retry")
    if scope is not None and scope != (user_id, customer_id):
        raise SessionScopeError(f"session {session!r} belongs to another user or customer")
    config: RunnableConfig = {
        "configurable": {"thread_id": session},
        "metadata": {"user_id": user_id, "customer_id": customer_id},
    }
    context = Context(user_id=user_id, customer_id=customer_id)
    snapshot = await agent.graph.aget_state(config)
    if message is not None and unfinished(snapshot) and unanswered(snapshot) is None:
        # The last turn's reply is saved but its run was cut short (the process died
        # before its end-of-turn steps): finish that run first, so the reply is kept and
        # the turn's extraction job is queued, instead of a new message starting over it.
        await agent.graph.ainvoke(None, config, context=context)
        snapshot = await agent.graph.aget_state(config)
    waiting = unanswered(snapshot)
    taken: Taken = "resumed"
    if message is None:
        if not unfinished(snapshot):
            raise NothingToRetryError(
                f"nothing to retry: the last turn of session {session!r} was answered"
            )
    elif waiting is None or not same_text(waiting, message):
        taken = "new" if waiting is None else "joined"
        await _checkpoint_message(agent, config, message)
    if on_saved is not None:
        on_saved(taken)
    if prepare is not None:
        await prepare()
    try:
        await answer(agent.graph, config, context, on_token)
    except (Exception, asyncio.CancelledError) as exc:
        # The user pressed Ctrl-C, or the run failed where the graph could not hand the
        # turn over (memagent.graph.failed_turn): what they said is still handed to
        # extraction, once, and a second Ctrl-C does not stop that.
        if not handed_over(exc):
            work = remember_unanswered(agent.graph, agent.queue, config, context, session)
            await finish(work)
        raise
    state = (await agent.graph.aget_state(config)).values
    result = turn_result(state, session)
    result.taken = taken
    return result


def turn_result(state: dict[str, Any], session: str) -> TurnResult:
    messages = state.get("messages", [])
    reply = next(
        (str(m.text) for m in reversed(messages) if isinstance(m, AIMessage) and not m.tool_calls),
        "",
    )
    trace = state.get("recall_trace") or {}
    return TurnResult(
        reply=reply,
        session=session,
        trace_id=state.get("trace_id", ""),
        turn=state.get("turn", 0),
        recalled=list(trace.get("items", [])),
        prompt_tokens=state.get("prompt_tokens", 0),
        degraded=list(state.get("degraded", [])),
        recall_trace=trace,
    )


class SyncAgent:
    """An ``Agent`` driven from synchronous code through a private event loop thread."""

    def __init__(self, agent: Agent, loop: asyncio.AbstractEventLoop) -> None:
        self.agent = agent
        self._loop = loop

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()


@contextlib.contextmanager
def open_agent(settings: Settings | None = None, **kwargs: Any) -> Iterator[SyncAgent]:
    """Sync variant of ``aopen_agent`` for scripts: ``with open_agent() as a: run_turn(a, ...)``."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="memagent-agent", daemon=True)
    thread.start()
    cm = aopen_agent(settings, **kwargs)
    try:
        agent = asyncio.run_coroutine_threadsafe(cm.__aenter__(), loop).result()
        try:
            yield SyncAgent(agent, loop)
        finally:
            asyncio.run_coroutine_threadsafe(cm.__aexit__(None, None, None), loop).result()
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()


def run_turn(agent: SyncAgent, message: str | None, **kwargs: Any) -> TurnResult:
    """Sync variant of ``arun_turn``."""
    return agent.call(arun_turn(agent.agent, message, **kwargs))


async def list_sessions(settings: Settings | None = None) -> list[dict[str, Any]]:
    """Every session in the checkpointer with its scope, turn count and last message."""
    from memagent.graph.sessions import session_rows

    settings = settings or get_settings()
    async with checkpointer_factory(settings, read_only=True) as saver:
        graph = build_default_graph(settings).compile(checkpointer=saver)
        return await session_rows(graph, saver)


async def delete_sessions(
    user_id: str, customer_id: str | None = None, *, settings: Settings | None = None
) -> int:
    """Delete the checkpointed sessions of a user, or of one of their customers (forget)."""
    from memagent.graph.sessions import delete_scope_sessions

    settings = settings or get_settings()
    async with checkpointer_factory(settings) as saver:
        graph = build_default_graph(settings).compile(checkpointer=saver)
        return await delete_scope_sessions(graph, saver, user_id, customer_id)


async def session_state(session: str, settings: Settings | None = None) -> dict[str, Any] | None:
    """The checkpointed state of one session, or None if there is no such session."""
    from memagent.graph.sessions import session_values

    validate_session(session)
    settings = settings or get_settings()
    async with checkpointer_factory(settings, read_only=True) as saver:
        graph = build_default_graph(settings).compile(checkpointer=saver)
        return await session_values(graph, session)


async def check_store(settings: Settings | None = None) -> str:
    """Open the store and run one scoped search (for ``memagent doctor``)."""
    from memagent.memory.namespaces import namespace

    settings = settings or get_settings()
    async with store_factory(settings, read_only=True) as store:
        store.search(namespace("doctor", "doctor", "facts"), query="budget", limit=1)
        where = settings.resolved_store_location()
        snapshot = getattr(getattr(store, "engine", None), "snapshot_of", None)
        note = " (read-only: read from a private copy)" if snapshot is not None else ""
        return f"{type(store).__name__} at {where}{note}"


async def settle(agent: Agent, *, timeout_s: float = 60.0) -> None:
    """Wait until every queued extraction job is done and access stats are written.

    For notebooks and tests that want session 1's memories before session 2; the
    reply path never calls it. The in-process worker's jobs are waited for however long
    they take; ``TimeoutError`` after ``timeout_s`` only for jobs still open elsewhere
    (another process's worker, or a failed job waiting out its retry backoff).
    """
    if agent.queue is not None:
        if agent.worker is not None:
            # The background thread finishes the job it holds (waited for, however long it
            # takes), then every job left, debounced ones too, runs here: no clock decides.
            await asyncio.to_thread(agent.worker.stop, None)
            try:
                await asyncio.to_thread(agent.worker.drain)
            finally:
                agent.worker.start()
        # Left: jobs another process's worker holds, or waiting out a retry's backoff.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while agent.queue.outstanding() and loop.time() < deadline:
            await asyncio.sleep(0.05)  # the background thread is finishing a job
        if agent.queue.outstanding():
            raise TimeoutError(f"{agent.queue.outstanding()} extraction jobs still open")
    await agent.access_log.drain()


__all__ = [
    "Agent",
    "NothingToRetryError",
    "SessionScopeError",
    "SyncAgent",
    "TurnResult",
    "aopen_agent",
    "arun_turn",
    "check_store",
    "checkpointer_factory",
    "delete_sessions",
    "list_sessions",
    "open_agent",
    "prepare_home",
    "run_turn",
    "session_state",
    "settle",
    "store_factory",
    "studio_store",
    "turn_result",
    "unanswered",
]
