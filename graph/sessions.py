"""Sessions as the CLI shows them, read through a compiled graph and its checkpointer.

Shared by the library helpers in ``memagent.graph.agent`` (which open their own
checkpointer) and the per-home service (which reads through the agent it owns).
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph.state import CompiledStateGraph

Graph = CompiledStateGraph[Any, Any, Any, Any]


async def session_rows(graph: Graph, saver: AsyncSqliteSaver) -> list[dict[str, Any]]:
    """Every session with its scope, turn count and last user message."""
    async with saver.conn.execute(
        "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
    ) as cursor:
        threads = [str(r[0]) async for r in cursor]
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
    graph: Graph, saver: AsyncSqliteSaver, user_id: str, customer_id: str | None = None
) -> int:
    """Delete the sessions of a user, or of one of their customers (forget)."""
    doomed = [
        row["session"]
        for row in await session_rows(graph, saver)
        if row["user_id"] == user_id and (customer_id is None or row["customer_id"] == customer_id)
    ]
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
