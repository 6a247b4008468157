"""Extractor threads are not sessions: ``sessions list``/``show`` skip them, forget deletes them.

Under ``langgraph dev`` the ``memory_extractor`` graph runs on a thread derived from the
conversation (``extractor_thread``) in the same checkpointer as the sessions; the server
copies the run's metadata (``graph_id``, ``conversation_thread``, the scope) into each
checkpoint's metadata. Real LangGraph and a real SQLite checkpointer.
"""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import aiosqlite
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages

from memagent.graph.extraction_server import extractor_thread
from memagent.graph.extractor_graph import EXTRACTOR_GRAPH
from memagent.graph.sessions import delete_scope_sessions, session_rows, session_values

SCOPE = {"user_id": "u1", "customer_id": "c1"}


class Chat(TypedDict, total=False):
    messages: Annotated[list[Any], add_messages]
    turn: int
    extracted: Annotated[list[str], operator.add]


def _graph(saver: AsyncSqliteSaver) -> Any:
    def node(state: Chat) -> dict[str, Any]:
        if "messages" in state:
            return {"messages": [AIMessage("ok")], "turn": state.get("turn", 0) + 1}
        return {"extracted": ["m1"]}

    g = StateGraph(Chat)
    g.add_node("node", node)
    g.add_edge(START, "node")
    return g.compile(checkpointer=saver)


async def _scenario(db: Path) -> tuple[list[str], dict[str, Any] | None, int, list[str]]:
    async with aiosqlite.connect(str(db)) as conn:
        saver = AsyncSqliteSaver(conn)
        graph = _graph(saver)
        await graph.ainvoke(
            {"messages": [HumanMessage("hello")]},
            {"configurable": {"thread_id": "conv-1"}, "metadata": dict(SCOPE)},
        )
        extractor = extractor_thread("conv-1")
        server_meta = {"graph_id": EXTRACTOR_GRAPH, "conversation_thread": "conv-1", **SCOPE}
        await graph.ainvoke(
            {"extracted": []},
            {"configurable": {"thread_id": extractor}, "metadata": server_meta},
        )
        listed = [r["session"] for r in await session_rows(graph, saver)]
        shown = await session_values(graph, extractor)
        deleted = await delete_scope_sessions(graph, saver, "u1")
        left = [str(item.config["configurable"]["thread_id"]) async for item in saver.alist(None)]
        return listed, shown, deleted, left


def test_extractor_threads_are_not_sessions_but_forget_deletes_them(tmp_path: Path) -> None:
    listed, shown, deleted, left = asyncio.run(_scenario(tmp_path / "sessions.sqlite"))
    assert listed == ["conv-1"]
    assert shown is None
    assert deleted == 2
    assert left == []
