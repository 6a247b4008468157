"""Running a turn's graph from the saved user message, and what a failed reply leaves.

``arun_turn`` (``memagent.graph.agent``) saves the message, then ``answer`` runs the
graph to the end of the turn, streaming reply tokens when asked. When that raises (the
model failed or timed out), ``remember_unanswered`` still hands what the user said to the
extraction worker, as the end of the turn would have."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
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

log = memagent_logger(__name__)


async def answer(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    config: RunnableConfig,
    context: Context,
    on_token: Callable[[str], None] | None,
) -> None:
    """Run the graph from the saved message to the end of the turn; ``on_token`` gets the
    reply's tokens as they come."""
    if on_token is None:
        await graph.ainvoke(None, config, context=context)
        return
    async for part in graph.astream(None, config, context=context, stream_mode="messages"):
        chunk, meta = cast(tuple[Any, dict[str, Any]], part)
        if (
            isinstance(chunk, AIMessageChunk)
            and meta.get("langgraph_node") == LLM
            and REPLY_TAG in (meta.get("tags") or [])
            and chunk.text
        ):
            on_token(str(chunk.text))


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
