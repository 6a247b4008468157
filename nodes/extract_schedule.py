"""async_extract under a LangGraph server: schedule a background extraction run.

Instead of a row in the local outbox, the end of the turn asks the server to run the
``memory_extractor`` graph (``memagent.graph.extractor_graph``) later: ``after_seconds``
is the debounce (0 when the turn fired an early trigger, expired working memory, or
completed every N-th turn), and the scheduler's ``multitask_strategy="rollback"`` makes a
newer turn's run replace a pending one. So that nothing is lost when a run is replaced,
every run carries the conversation's recent turns (``WINDOW`` messages) and the
working-memory digest; the extractor thread remembers which message ids it applied.

The reply never waits on the extraction and never fails because of it: a scheduling
error falls back to ``fallback`` (the local outbox) or marks the turn ``degraded``.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State
from memagent.core.types import Turn
from memagent.memory.extract_triggers import early_triggers
from memagent.memory.working_memory import WorkingMemory
from memagent.nodes.async_extract import digest_turns, thread_id_of

log = memagent_logger(__name__)

WINDOW: Final = 40
"""Recent user/assistant messages each run carries (20 turns): more turns than any
debounce window replaces, so a rolled-back run's turns ride on the next one."""

_ROLES = {"human": "user", "ai": "assistant"}


class Node(Protocol):
    """A graph node: ``async (state, runtime) -> partial state update``."""

    async def __call__(self, state: State, runtime: Runtime[Context]) -> dict[str, Any]: ...


class ExtractionScheduler(Protocol):
    """Schedules one debounced extraction run for a conversation thread."""

    async def schedule(
        self, thread_id: str, payload: dict[str, Any], *, after_seconds: int
    ) -> None: ...


def _message_id(m: AnyMessage) -> str:
    return m.id or "h" + hashlib.sha256(str(m.text).encode()).hexdigest()[:16]


def recent_turns(
    messages: Sequence[AnyMessage], *, window: int = WINDOW, now: datetime | None = None
) -> list[Turn]:
    """The last ``window`` user and assistant text messages as turns, each with its
    message id. The current turn (from the last user message on) is stamped with ``now``;
    earlier messages' times are not known here (the extractor uses the schedule time)."""
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    at = (now or datetime.now(UTC)).isoformat()
    turns: list[Turn] = []
    for i, m in enumerate(messages):
        role, text = _ROLES.get(m.type), str(m.text)
        if role is None or not text.strip() or getattr(m, "tool_calls", None):
            continue
        turns.append(
            Turn(role=role, content=text, id=_message_id(m), at=at if i >= last_human >= 0 else "")
        )
    return turns[-window:]


def _digest(state: State, thread_id: str) -> tuple[list[Turn], bool]:
    """The latest working-memory digest as turns, and whether this turn expired it."""
    try:
        wm = WorkingMemory.from_state(state.working)
    except ValueError:  # a corrupt record is prompt_assembly's to report
        return [], False
    turn = state.turn or sum(1 for m in state.messages if isinstance(m, HumanMessage))
    fresh = wm.expired is not None and wm.expired.turn == turn
    return digest_turns(thread_id, wm), fresh


def after_seconds(*, urgent: bool, debounce_s: float) -> int:
    """The run's delay: now when urgent, else the debounce rounded up to whole seconds."""
    return 0 if urgent else math.ceil(debounce_s)


def make_server_extract(
    scheduler: ExtractionScheduler,
    *,
    debounce_s: float,
    every_n_turns: int,
    fallback: Node | None = None,
    window: int = WINDOW,
) -> Node:
    """Node factory: the returned node schedules the conversation's extraction run."""

    async def server_extract(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        thread_id = thread_id_of(runtime) or f"ephemeral-{state.trace_id or 'none'}"
        said = recent_turns(state.messages, window=window)
        digest, expired_now = _digest(state, thread_id)
        if not said and not digest:
            return {}
        last_user = next((t.content for t in reversed(said) if t.role == "user"), "")
        fired = early_triggers(last_user)
        turn = state.turn or sum(1 for m in state.messages if isinstance(m, HumanMessage))
        urgent = bool(fired) or expired_now or (turn > 0 and turn % every_n_turns == 0)
        payload = {
            "thread_id": thread_id,
            "user_id": ctx.user_id,
            "customer_id": ctx.customer_id,
            "turns": [t.to_dict() for t in (*digest, *said)],
            "trigger": ",".join(fired),
            "scheduled_at": time.time(),
        }
        delay = after_seconds(urgent=urgent, debounce_s=debounce_s)
        try:
            await scheduler.schedule(thread_id, payload, after_seconds=delay)
        except Exception as exc:  # the reply must survive a server that refuses the run
            log.warning(
                "async_extract: could not schedule the extraction run (%s); %s",
                exc,
                "using the local outbox" if fallback else "skipped",
                extra={"trace": state.trace_id},
            )
            if fallback is not None:
                return await fallback(state, runtime)
            return {"degraded": ["extraction"]}
        return {}

    return server_extract
