"""async_extract node: hand the latest turn to the background worker and return.

The reply never waits for extraction: the node only appends a row to the
durable outbox (``memagent.stores.jobs``) and returns ``{}``. Rules decide
whether the job is urgent (amounts, dates, decisions, explicit preferences);
otherwise it is debounced per thread. If the outbox cannot be written the turn
still succeeds and ``degraded`` says so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from memagent.graph.context import Context
from memagent.graph.state import State
from memagent.nodes.extract_triggers import early_triggers
from memagent.stores.jobs import JobQueue, Turn

log = logging.getLogger(__name__)

_ROLES = {"human": "user", "ai": "assistant"}


def latest_turn(messages: Sequence[AnyMessage]) -> list[Turn]:
    """The last user message and the assistant text after it, plus the assistant
    message before it as context (so "no, 3 million" knows what was asked).

    Tool calls and results are dropped: they are not statements of the user.
    """
    start = None
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            start = i
            break
    if start is None:
        return []
    before = [m for m in messages[:start] if m.type == "ai" and str(m.text).strip()]
    turns: list[Turn] = []
    for m in [*before[-1:], *messages[start:]]:
        role = _ROLES.get(m.type)
        text = str(m.text)
        if role is None or not text.strip():
            continue
        turns.append(Turn(role=role, content=text, id=m.id or ""))
    return turns


def _thread_id(runtime: Runtime[Context]) -> str | None:
    info = getattr(runtime, "execution_info", None)
    tid = getattr(info, "thread_id", None) if info is not None else None
    if tid:
        return str(tid)
    try:
        tid = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:
        return None
    return str(tid) if tid else None


def make_async_extract(
    queue: JobQueue,
) -> Callable[[State, Runtime[Context]], Awaitable[dict[str, Any]]]:
    """Node factory: the returned node enqueues the latest turn on ``queue``."""

    async def async_extract(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        turns = latest_turn(state.messages)
        if not turns:
            return {}
        ctx = runtime.context or Context()
        thread_id = _thread_id(runtime) or f"ephemeral-{state.trace_id or 'none'}"
        user_text = " ".join(t.content for t in turns if t.role == "user")
        fired = early_triggers(user_text)
        try:
            # SQLite with fsync: a few ms, kept off the event loop.
            await asyncio.to_thread(
                queue.submit,
                thread_id=thread_id,
                user_id=ctx.user_id,
                customer_id=ctx.customer_id,
                turns=turns,
                trigger=",".join(fired),
                urgent=bool(fired),
            )
        except Exception as exc:  # the reply must survive a broken outbox
            log.warning(
                "async_extract: could not enqueue: %s", exc, extra={"trace": state.trace_id}
            )
            return {"degraded": [*state.degraded, "extraction"]}
        return {}

    return async_extract
