"""The requests a client can make, by name: ``await run(resources, op, args, emit)``.

Each op takes JSON arguments and returns JSON-ready data; the CLI renders it. The
service and the in-process mode run exactly these functions, so a command behaves
the same either way. Blocking store and queue work runs in a thread, so one slow
request (an export, a drain) never stalls the streaming of another terminal's reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from memagent.graph.agent import arun_turn, unanswered
from memagent.graph.service.errors import OpError, describe
from memagent.graph.service.resources import Resources
from memagent.graph.sessions import (
    delete_scope_sessions,
    message_rows,
    session_rows,
    session_values,
)

Emit = Callable[[dict[str, Any]], None]
Op = Callable[[Resources, dict[str, Any], Emit], Awaitable[Any]]
OPS: dict[str, Op] = {}


def op(name: str) -> Callable[[Op], Op]:
    def register(fn: Op) -> Op:
        OPS[name] = fn
        return fn

    return register


async def run(res: Resources, name: str, args: dict[str, Any], emit: Emit | None = None) -> Any:
    fn = OPS.get(name)
    if fn is None:
        raise OpError(f"unknown request {name!r} (a newer or older memagent?)", 2)
    return await fn(res, args, emit or (lambda event: None))


@op("ping")
async def ping(res: Resources, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Nothing: a request that checks the settings (``memagent service start``)."""
    return {}


@op("llm.warm")
async def llm_warm(res: Resources, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Start the local model server without waiting for it (``memagent chat`` opening)."""
    res.warm_soon()
    return {}


# -- turns ------------------------------------------------------------------------------


@op("turn")
async def turn(res: Resources, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """One turn: ``saved`` once the message is checkpointed, the reply as ``token`` events,
    then the result. A failure says whether the message is kept for a retry."""
    agent = await res.agent()
    session = str(args["session"])
    try:
        result = await arun_turn(
            agent,
            args.get("message"),
            user_id=str(args["user"]),
            customer_id=str(args["customer"]),
            session=session,
            on_token=lambda text: emit({"t": "token", "text": text}),
            on_saved=lambda taken: emit({"t": "saved", "taken": taken}),
            prepare=res.start_model,
        )
    except Exception as exc:
        line, code = describe(exc)
        raise OpError(line, code, saved=await _kept(res, session)) from exc
    return {**result.to_json(), "recall_trace": result.recall_trace, "taken": result.taken}


async def _kept(res: Resources, session: str) -> bool:
    """The session's last message is checkpointed and unanswered (a retry finishes it)."""
    try:
        agent = await res.agent()
        snapshot = await agent.graph.aget_state({"configurable": {"thread_id": session}})
    except Exception:
        return False
    return unanswered(snapshot) is not None


# -- sessions ---------------------------------------------------------------------------


@op("sessions.list")
async def sessions_list(res: Resources, args: dict[str, Any], emit: Emit) -> list[dict[str, Any]]:
    graph, saver = await res.sessions()
    user, customer = args.get("user"), args.get("customer")
    return [
        r
        for r in await session_rows(graph, saver)
        if (user is None or r["user_id"] == user)
        and (customer is None or r["customer_id"] == customer)
    ]


@op("sessions.show")
async def sessions_show(res: Resources, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    from memagent.graph.agent import validate_session

    session = str(args["session"])
    validate_session(session)
    graph, _ = await res.sessions()
    state = await session_values(graph, session)
    if state is None:
        raise OpError(f"no session {session!r}", 2)
    return {
        "session": session,
        "messages": message_rows(state),
        "recall_trace": state.get("recall_trace") or {},
    }


# -- memories ---------------------------------------------------------------------------


async def _on_store(
    res: Resources, fn: Callable[..., Any], *args: Any, write: bool = False, **kwargs: Any
) -> Any:
    """``fn(store, *args, **kwargs)`` in a thread; ``write``: it changes the store."""
    store = await res.store(write=write)
    return await asyncio.to_thread(fn, store, *args, **kwargs)


def _on_loop(loop: asyncio.AbstractEventLoop, coro: Any) -> Any:
    """Run ``coro`` on ``loop`` from a worker thread (the checkpointer lives on the loop)."""
    return asyncio.run_coroutine_threadsafe(coro, loop).result()


@op("memories.list")
async def memories_list(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.memory.memory_ops import list_memories

    status = args.get("status", "active")
    return await _on_store(
        res, list_memories, args["user"], args.get("customer"),
        status=None if status == "all" else status,
    )  # fmt: skip


@op("memories.search")
async def memories_search(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.memory.memory_ops import search_memories

    return await _on_store(
        res, search_memories, args["user"], args["customer"], args["query"],
        limit=int(args.get("limit", 10)),
    )  # fmt: skip


@op("memories.show")
async def memories_show(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.memory.memory_ops import show_memory

    return await _on_store(res, show_memory, args["user"], args["customer"], args["id"])


@op("memories.history")
async def memories_history(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.memory.memory_ops import history

    return await _on_store(res, history, args["user"], args["customer"], args["id"])


@op("memories.delete")
async def memories_delete(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    """The memory and what was derived from it: the profile and episodes
    (``memory_ops.delete_memory``) and the sessions' latest state (``session_scrub``)."""
    from memagent.graph.session_scrub import scrub_sessions
    from memagent.memory.memory_ops import SessionSources, delete_memory

    user, customer = str(args["user"]), str(args["customer"])
    graph, saver = await res.sessions(write=True)
    loop = asyncio.get_running_loop()

    async def scrub_async(sources: SessionSources, texts: list[str]) -> int:
        threads = [
            r["session"]
            for r in await session_rows(graph, saver)
            if r["user_id"] == user and r["customer_id"] == customer
        ]
        return await scrub_sessions(graph, threads, sources, texts)

    def scrub(sources: SessionSources, texts: list[str]) -> int:
        return int(_on_loop(loop, scrub_async(sources, texts)))

    return await _on_store(
        res, delete_memory, user, customer, args["id"], write=True,
        all_versions=bool(args.get("all_versions")), scrub_sessions=scrub,
    )  # fmt: skip


@op("memories.release")
async def memories_release(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    """A quarantined item back into recall (the user vouches for it), through the write
    path's optimistic compare-and-set like any write."""
    from memagent.memory.profile import compact_profile
    from memagent.memory.quarantine import release

    user, customer = str(args["user"]), str(args["customer"])

    def run(store: Any) -> Any:
        rep = release(store, user, customer, str(args["id"]))
        if rep["kind"] == "memory":
            compact_profile(store, user, customer)
        return rep

    return await _on_store(res, run, write=True)


@op("memories.export")
async def memories_export(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.memory.memory_ops import export

    return await _on_store(res, export, args["user"], args.get("customer"))


@op("memories.add")
async def memories_add(res: Resources, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Through the write path extraction uses; the queue's lock serialises it with workers."""
    from memagent.graph.validation import validate_memory_text
    from memagent.memory.extractors import candidate_from_text
    from memagent.memory.namespaces import check_customer_id
    from memagent.memory.profile import compact_profile
    from memagent.memory.write_path import WriteConfig, write_memory

    text = validate_memory_text(str(args["text"]))
    check_customer_id(str(args["customer"]))
    cand = candidate_from_text(text)
    updates = {k: args[k] for k in ("type", "importance") if args.get(k) is not None}
    cand = cand.model_copy(update=updates)
    queue = res.queue(write=True)
    config = WriteConfig.for_settings(res.settings)
    user, customer = args["user"], args["customer"]

    def add(store: Any) -> Any:
        result = write_memory(
            store, user, customer, cand, origin="manual", lock=queue.lock, config=config
        )
        if result.action in ("created", "versioned"):  # as the worker does after extraction
            compact_profile(store, user, customer)
        return result

    res_ = await _on_store(res, add, write=True)
    return {"stored": res_.stored, "content": res_.content, "reason": res_.reason,
            "id": res_.id, "action": res_.action}  # fmt: skip


@op("forget")
async def forget(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.memory.memory_ops import forget as forget_scope

    graph, saver = await res.sessions(write=True)
    loop = asyncio.get_running_loop()

    def delete_sessions(user: str, customer: str | None) -> int:
        # forget runs in a worker thread; the checkpointer lives on this loop.
        return int(_on_loop(loop, delete_scope_sessions(graph, saver, user, customer)))

    return await _on_store(
        res, forget_scope, args["user"], args.get("customer"), write=True,
        jobs=res.queue(write=True), delete_sessions=delete_sessions,
    )  # fmt: skip


@op("maintain")
async def maintain(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.memory.forgetting import DecayPolicy
    from memagent.memory.forgetting import maintain as run_maintenance

    policy = DecayPolicy(
        half_life_days=float(args.get("half_life_days", 30.0)),
        retention_days=float(args.get("retention_days", 180.0)),
    )

    def work(store: Any) -> dict[str, Any]:
        report = run_maintenance(
            store, args.get("user"), args.get("customer"), policy=policy,
            dry_run=bool(args.get("dry_run")),
        )  # fmt: skip
        return report.to_dict()

    return await _on_store(res, work, write=not args.get("dry_run"))


@op("store.check")
async def store_check(res: Resources, args: dict[str, Any], emit: Emit) -> str:
    """One scoped search (``memagent doctor``)."""
    from memagent.memory.namespaces import namespace

    store = await res.store()
    await asyncio.to_thread(
        store.search, namespace("doctor", "doctor", "facts"), query="budget", limit=1
    )
    snapshot = getattr(getattr(store, "engine", None), "snapshot_of", None)
    note = " (read-only: read from a private copy)" if snapshot is not None else ""
    return f"{type(store).__name__} at {res.settings.resolved_store_location()}{note}"


# -- jobs -------------------------------------------------------------------------------


@op("jobs.status")
async def jobs_status(res: Resources, args: dict[str, Any], emit: Emit) -> Any:
    from memagent.graph.cli_jobs import status_report

    return await asyncio.to_thread(status_report, res.queue(), limit=int(args.get("limit", 20)))


@op("jobs.retry")
async def jobs_retry(res: Resources, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Every dead job, or the one ``id`` names (an id or a unique prefix of one)."""
    from memagent.graph.cli_jobs import retry_jobs

    return dict(await asyncio.to_thread(retry_jobs, res.queue(write=True), args.get("id")))


@op("jobs.drain")
async def jobs_drain(res: Resources, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Every pending job now: through the running in-process worker when there is one
    (its background thread and the drain claim jobs safely side by side)."""
    from memagent.graph.worker import Worker

    agent = res.opened_agent
    queue = res.queue(write=True)
    running = agent.worker if agent is not None else None
    store = await res.store(write=True)
    worker = running or Worker.for_settings(res.settings, queue=queue, store=store)
    try:
        report = (await asyncio.to_thread(worker.drain)).to_dict()
    finally:
        if worker is not running:
            worker.close()
    report["counts"] = await asyncio.to_thread(queue.counts)
    return report
