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

Graph = CompiledStateGraph[Any, Any, Any, Any]


Saver = BaseCheckpointSaver[Any]


async def session_threads(saver: Saver, scope: dict[str, str] | None = None) -> list[str]:
    """The thread id of every session (whose checkpoint metadata matches ``scope``), each
    once, newest first as the saver lists them."""
    threads: dict[str, None] = {}
    async for item in saver.alist(None, filter=scope or None):
        conf = item.config["configurable"]
        if not conf.get("checkpoint_ns"):
            threads.setdefault(str(conf["thread_id"]))
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
    doomed = await session_threads(saver, scope)
    for thread in doomed:
        await saver.adelete_thread(thread)
    return len(doomed)


async def session_values(graph: Graph, session: str) -> dict[str, Any] | None:
    """The checkpointed state of one session, or None if there is no such session."""
    snapshot = await graph.aget_state({"configurable": {"thread_id": session}})
    return dict(snapshot.values) if snapshot.values else None


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
