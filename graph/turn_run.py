"""Running a turn's graph from the saved user message, and what a failed reply leaves.

``arun_turn`` (``memagent.graph.agent``) saves the message, then ``answer`` runs the
graph to the end of the turn, streaming reply tokens when asked. When that is cancelled
(Ctrl-C in ``memagent chat``) or raises an error the graph's nodes did not hand over
themselves (``memagent.graph.failed_turn``), ``remember_unanswered`` still hands what the
user said to the extraction worker, as the end of the turn would have."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, cast

from langchain_core.messages import AIMessageChunk
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.graph.builder import LLM
from memagent.graph.jobs import Outbox
from memagent.graph.turn_state import unanswered
from memagent.nodes.async_extract import submit_latest
from memagent.nodes.llm import REPLY_TAG
from memagent.nodes.reply_repeat import earlier_replies, same_start

log = memagent_logger(__name__)


ASKED_AGAIN = "\n[that repeated an earlier reply; asked again:]\n"
"""Streamed between a near copy already shown and the reply asked again in its place."""


class ReplyStream:
    """Hands reply tokens to ``on_token``, except a copy the llm node asks again for: while
    a reply is so far the start of an earlier reply (``same_start``) its tokens are held;
    they go out once it differs, or when the turn ends, and are dropped when another
    reply call starts (the node asked again, ``memagent.nodes.reply_repeat``)."""

    def __init__(self, on_token: Callable[[str], None], earlier: list[str]) -> None:
        self.on_token, self.earlier = on_token, earlier
        self.call: str | None = None
        self.held: list[str] = []
        self.flowing = False

    def add(self, call: str | None, text: str) -> None:
        if call != self.call:  # a new reply call: a held copy is not shown
            if self.flowing:  # a near copy, shown already: say why another reply follows
                self.on_token(ASKED_AGAIN)
            self.call, self.held, self.flowing = call, [], False
        if self.flowing:
            self.on_token(text)
            return
        self.held.append(text)
        if not same_start("".join(self.held), self.earlier):
            self.close()

    def close(self) -> None:
        """Let the held tokens out (the reply stands)."""
        self.flowing = True
        for text in self.held:
            self.on_token(text)
        self.held = []


async def answer(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    config: RunnableConfig,
    context: Context,
    on_token: Callable[[str], None] | None,
) -> None:
    """Run the graph from the saved message to the end of the turn; ``on_token`` gets the
    reply's tokens as they come (``ReplyStream``)."""
    if on_token is None:
        await graph.ainvoke(None, config, context=context)
        return
    before = await graph.aget_state(config)
    stream = ReplyStream(on_token, earlier_replies((before.values or {}).get("messages", [])))
    async for part in graph.astream(None, config, context=context, stream_mode="messages"):
        chunk, meta = cast(tuple[Any, dict[str, Any]], part)
        if (
            isinstance(chunk, AIMessageChunk)
            and meta.get("langgraph_node") == LLM
            and REPLY_TAG in (meta.get("tags") or [])
            and chunk.text
        ):
            stream.add(chunk.id, str(chunk.text))
    stream.close()


async def finish(work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` to its end even if the task awaiting it is cancelled meanwhile (a
    second Ctrl-C); that cancellation is raised once ``work`` is done."""
    task = asyncio.ensure_future(work)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


async def remember_unanswered(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    queue: Outbox | None,
    config: RunnableConfig,
    context: Context,
    session: str,
) -> None:
    """The reply failed: the session's unanswered messages still go to the extraction
    worker. A retry of the same message is the same job, or carries these messages into
    its own, and every write is idempotent per message id, so nothing is stored twice. A
    broken outbox only logs: the caller raises the reply's own error."""
    if queue is None:
        return
    try:
        snapshot = await graph.aget_state(config)
        if unanswered(snapshot) is None:
            return
        await asyncio.to_thread(
            submit_latest,
            queue,
            list((snapshot.values or {}).get("messages", [])),
            thread_id=session,
            user_id=context.user_id,
            customer_id=context.customer_id,
        )
    except Exception as exc:
        log.warning("could not queue the unanswered message of %s for memory: %s", session, exc)
