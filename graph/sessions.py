"""Sessions as the CLI shows them, read through a compiled graph and its checkpointer.

Shared by the library helpers in ``memagent.graph.agent`` (which open their own
checkpointer) and the per-home service (which reads through the agent it owns). Only the
checkpointer's public API is used (``alist``, ``aget_tuple`` through the graph,
``adelete_thread``), never SQL on its tables, so this works on every saver: SQLite,
PostgreSQL, or any other LangGraph checkpointer.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from memagent.graph.extractor_graph import EXTRACTOR_GRAPH

Graph = CompiledStateGraph[Any, Any, Any, Any]


Saver = BaseCheckpointSaver[Any]


def is_extractor_checkpoint(metadata: Any) -> bool:
    """Whether a checkpoint belongs to a ``memory_extractor`` thread, not a session.

    Under a LangGraph server the extractor runs on a thread derived from the conversation
    (``extraction_server.extractor_thread``) in the sessions' checkpointer; the server
    copies the run's metadata (its ``graph_id`` and the scheduler's ``conversation_thread``)
    into every checkpoint's metadata."""
    meta = metadata or {}
    return meta.get("graph_id") == EXTRACTOR_GRAPH or "conversation_thread" in meta


async def session_threads(
    saver: Saver, scope: dict[str, str] | None = None, *, extractors: bool = False
) -> list[str]:
    """The thread id of every session (whose checkpoint metadata matches ``scope``), each
    once, newest first as the saver lists them; with ``extractors``, the extractor threads
    of that scope too (forget deletes them with the sessions)."""
    threads: dict[str, None] = {}
    skipped: set[str] = set()
    async for item in saver.alist(None, filter=scope or None):
        conf = item.config["configurable"]
        thread = str(conf["thread_id"])
        if not extractors and (thread in skipped or is_extractor_checkpoint(item.metadata)):
            skipped.add(thread)
            threads.pop(thread, None)
        elif not conf.get("checkpoint_ns"):
            threads.setdefault(thread)
    return list(threads)


async def session_rows(graph: Graph, saver: Saver) -> list[dict[str, Any]]:
    """Every session with its scope, turn count and last user message."""
    threads = await session_threads(saver)
    rows: list[dict[str, Any]] = []
    for thread in threads:
        config: Any = {"configurable": {"thread_id": thread}}
        snapshot = await graph.aget_state(config)
        meta = snapshot.metadata or {}
        messages = snapshot.values.get("messages", [])
        last = next((str(m.text) for m in reversed(messages) if m.type == "human"), "")
        rows.append(
            {
                "session": thread,
                "user_id": meta.get("user_id", ""),
                "customer_id": meta.get("customer_id", ""),
                "turns": snapshot.values.get("turn", 0),
                "last": last[:80],
            }
        )
    return rows


async def delete_scope_sessions(
    graph: Graph, saver: Saver, user_id: str, customer_id: str | None = None
) -> int:
    """Delete the sessions of a user, or of one of their customers (forget): every thread
    with a checkpoint of that scope (a session's scope never changes)."""
    scope = {"user_id": user_id}
    if customer_id is not None:
        scope["customer_id"] = customer_id
    doomed = await session_threads(saver, scope, extractors=True)
    for thread in doomed:
        await saver.adelete_thread(thread)
    return len(doomed)


async def session_values(graph: Graph, session: str) -> dict[str, Any] | None:
    """The checkpointed state of one session, or None if there is no such session."""
    snapshot = await graph.aget_state({"configurable": {"thread_id": session}})
    if not snapshot.values or is_extractor_checkpoint(snapshot.metadata):
        return None
    return dict(snapshot.values)


def message_rows(state: dict[str, Any]) -> list[dict[str, Any]]:
    """A session's messages as ``sessions show`` prints them."""
    return [
        {
            "role": m.type,
            "content": str(m.text),
            "tool_calls": [c["name"] for c in getattr(m, "tool_calls", [])],
        }
        for m in state.get("messages", [])
    ]
