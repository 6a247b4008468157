"""async_extract node: hand the latest turn to the background worker and return.

The reply never waits for extraction: the node only appends a row to the
durable outbox (``memagent.graph.jobs``) and returns ``{}``. Rules decide
whether the job is urgent (amounts, dates, decisions, explicit preferences);
otherwise it is debounced per thread. If the outbox cannot be written the turn
still succeeds and ``degraded`` says so.

Consolidation rides on the same outbox: at the end of a turn whose start found
working memory idle past its TTL, the archived digest is submitted as digest
turns (``offer_digest``), and the worker promotes its stable lines through the
normal write path. The digest turns' ids are thread + expiry version, so a
retried turn or a second submit is the same job, not a second one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State
from memagent.core.types import DIGEST_ROLE, Job, JobSink, Turn
from memagent.memory.extract_triggers import early_triggers
from memagent.memory.working_memory import WorkingMemory

log = memagent_logger(__name__)

_ROLES = {"human": "user", "ai": "assistant"}


def _replied(message: AnyMessage) -> bool:
    return isinstance(message, AIMessage) and not message.tool_calls


def latest_turn(messages: Sequence[AnyMessage], *, now: datetime | None = None) -> list[Turn]:
    """The user messages of the last turn and the assistant text after them, plus the
    assistant message before them as context (so "no, 3 million" knows what was asked).

    The last turn's user messages are all those since the previous reply: a message
    whose reply failed and the one that joined it are answered, and extracted, as one.
    Tool calls and results are dropped: they are not statements of the user.
    The messages of this turn are stamped with ``now`` (the submit time, default the
    current UTC time) as their message time; the earlier assistant message is not,
    since its time is not known here.
    """
    start = None
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            start = i
            break
    if start is None:
        return []
    while start > 0 and not _replied(messages[start - 1]) and any(
        isinstance(m, HumanMessage) for m in messages[: start]
    ):  # fmt: skip
        start -= 1
    while not isinstance(messages[start], HumanMessage):
        start += 1
    before = [m for m in messages[:start] if m.type == "ai" and str(m.text).strip()]
    at = (now or datetime.now(UTC)).isoformat()
    context = before[-1:]
    turns: list[Turn] = []
    for m in [*context, *messages[start:]]:
        role = _ROLES.get(m.type)
        text = str(m.text)
        if role is None or not text.strip():
            continue
        stamp = "" if context and m is context[0] else at
        turns.append(Turn(role=role, content=text, id=m.id or "", at=stamp))
    return turns


def thread_id_of(runtime: Runtime[Context]) -> str | None:
    """The conversation thread of the run (None outside a checkpointed run)."""
    info = getattr(runtime, "execution_info", None)
    tid = getattr(info, "thread_id", None) if info is not None else None
    if tid:
        return str(tid)
    try:
        tid = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:
        return None
    return str(tid) if tid else None


def digest_turns(thread_id: str, wm: WorkingMemory) -> list[Turn]:
    """The latest expiry's digest as job turns; ids are thread + expiry version + line."""
    if wm.expired is None:
        return []
    version = wm.expired.version
    return [
        Turn(role=DIGEST_ROLE, content=line, id=f"wm-archive:{thread_id}:{version}:{i}")
        for i, line in enumerate(wm.expired.lines)
        if line.strip()
    ]


def offer_digest(
    queue: JobSink, *, thread_id: str, user_id: str, customer_id: str, wm: WorkingMemory
) -> Job | None:
    """Submit the latest expiry's digest for consolidation (None when there is none).

    Idempotent: the same thread and expiry version give the same turn ids, so the
    queue returns the existing job instead of adding one (and the write path's
    dedupe catches a digest that was carried into a differently keyed job).
    """
    turns = digest_turns(thread_id, wm)
    if not turns:
        return None
    return queue.submit(
        thread_id=thread_id,
        user_id=user_id,
        customer_id=customer_id,
        turns=turns,
        trigger="wm_expiry",
        urgent=True,
    )


def submit_latest(
    queue: JobSink,
    messages: Sequence[AnyMessage],
    *,
    thread_id: str,
    user_id: str,
    customer_id: str,
) -> Job | None:
    """Enqueue the last turn of ``messages`` (``latest_turn``), urgent when the user's
    words fire an early trigger; None when there is no user message. The end of every
    turn calls it, and so does a turn whose reply failed (``arun_turn``): the same
    messages again are the same job, or carried into the next one."""
    turns = latest_turn(messages)
    if not turns:
        return None
    fired = early_triggers(" ".join(t.content for t in turns if t.role == "user"))
    return queue.submit(
        thread_id=thread_id,
        user_id=user_id,
        customer_id=customer_id,
        turns=turns,
        trigger=",".join(fired),
        urgent=bool(fired),
    )


def _expired_this_turn(state: State) -> WorkingMemory | None:
    """Working memory when this turn's start expired it, else None."""
    try:
        wm = WorkingMemory.from_state(state.working)
    except ValueError:  # a corrupt record is prompt_assembly's to report
        return None
    turn = state.turn or sum(1 for m in state.messages if isinstance(m, HumanMessage))
    return wm if wm.expired is not None and wm.expired.turn == turn else None


def make_async_extract(
    queue: JobSink,
) -> Callable[[State, Runtime[Context]], Awaitable[dict[str, Any]]]:
    """Node factory: the returned node enqueues the latest turn on ``queue``."""

    async def async_extract(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        thread_id = thread_id_of(runtime) or f"ephemeral-{state.trace_id or 'none'}"
        degraded: list[str] = []
        expired = _expired_this_turn(state)
        if expired is not None:
            try:
                await asyncio.to_thread(
                    offer_digest,
                    queue,
                    thread_id=thread_id,
                    user_id=ctx.user_id,
                    customer_id=ctx.customer_id,
                    wm=expired,
                )
            except Exception as exc:  # the reply must survive a broken outbox
                log.warning(
                    "async_extract: could not offer the working-memory digest: %s",
                    exc,
                    extra={"trace": state.trace_id},
                )
                degraded.append("consolidation")
        try:
            # SQLite with fsync: a few ms, kept off the event loop.
            await asyncio.to_thread(
                submit_latest,
                queue,
                state.messages,
                thread_id=thread_id,
                user_id=ctx.user_id,
                customer_id=ctx.customer_id,
            )
        except Exception as exc:  # the reply must survive a broken outbox
            log.warning(
                "async_extract: could not enqueue: %s", exc, extra={"trace": state.trace_id}
            )
            degraded.append("extraction")
        return {"degraded": degraded} if degraded else {}

    return async_extract
