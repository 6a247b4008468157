"""async_extract: the turn is enqueued durably and the reply never waits for extraction."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from memagent.core.context import Context
from memagent.core.state import InputState, State
from memagent.graph.jobs import JobQueue
from memagent.graph.worker import Worker
from memagent.memory.extractors import ExtractionResult, rules_extractor
from memagent.memory.namespaces import namespace
from memagent.nodes.async_extract import latest_turn, make_async_extract


def build(queue: JobQueue) -> Any:
    async def llm(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        return {"messages": [AIMessage("Noted.")]}

    b = StateGraph(State, input_schema=InputState, context_schema=Context)
    b.add_node("llm", llm)
    b.add_node("async_extract", make_async_extract(queue))
    b.add_edge(START, "llm")
    b.add_edge("llm", "async_extract")
    b.add_edge("async_extract", END)
    return b.compile(checkpointer=InMemorySaver())


def test_latest_turn_keeps_context_and_drops_tools() -> None:
    msgs = [
        HumanMessage("hi", id="h1"),
        AIMessage("What is your budget?", id="a1"),
        HumanMessage("No, 3 million", id="h2"),
        AIMessage("", id="a2", tool_calls=[{"name": "crm", "args": {}, "id": "c1"}]),
        ToolMessage("crm says ok", tool_call_id="c1", id="t1"),
        AIMessage("Got it, 3 million.", id="a3"),
    ]
    assert [(t.role, t.id) for t in latest_turn(msgs)] == [
        ("assistant", "a1"),
        ("user", "h2"),
        ("assistant", "a3"),
    ]
    assert latest_turn([AIMessage("hello")]) == []


def test_latest_turn_stamps_this_turns_messages_with_the_submit_time() -> None:
    msgs = [AIMessage("Budget?", id="a1"), HumanMessage("3 million", id="h1"),
            AIMessage("Noted.", id="a2")]  # fmt: skip
    now = datetime(2026, 11, 3, 1, 30, tzinfo=UTC)
    turns = latest_turn(msgs, now=now)
    assert [(t.id, t.at) for t in turns] == [
        ("a1", ""),  # the earlier question's time is not known here
        ("h1", "2026-11-03T01:30:00+00:00"),
        ("a2", "2026-11-03T01:30:00+00:00"),
    ]
    assert datetime.fromisoformat(latest_turn(msgs)[1].at).tzinfo is not None


async def test_turn_is_enqueued_with_scope_and_trigger(tmp_path: Path) -> None:
    q = JobQueue(tmp_path / "jobs.sqlite", delay_s=60.0)
    g = build(q)
    cfg = {"configurable": {"thread_id": "s1"}}
    out = await g.ainvoke(
        {"messages": [HumanMessage("Our budget is 300万")]}, cfg, context=Context("u1", "c1")
    )
    assert out.get("degraded", []) == []
    (job,) = q.jobs("pending")
    assert (job.thread_id, job.user_id, job.customer_id) == ("s1", "u1", "c1")
    assert "amount" in job.trigger and job.run_at <= job.created_at  # urgent: no debounce
    await g.ainvoke(
        {"messages": [HumanMessage("nice weather")]},
        {"configurable": {"thread_id": "s1b"}},
        context=Context("u1", "c1"),
    )
    (newer,) = [j for j in q.jobs("pending") if j.thread_id == "s1b"]
    assert newer.run_at > newer.created_at  # small talk waits for the debounce


async def test_reply_does_not_wait_for_extraction(tmp_path: Path) -> None:
    q = JobQueue(tmp_path / "jobs.sqlite")
    release = threading.Event()
    started = threading.Event()

    async def blocked(turns: Any) -> ExtractionResult:
        started.set()
        release.wait(10)
        return await rules_extractor()(turns)

    store = InMemoryStore()
    worker = Worker(q, store, extractor=blocked, poll_s=0.05)
    g = build(q)
    with worker.running():
        out = await g.ainvoke(
            {"messages": [HumanMessage("We need 50 seats.")]},
            {"configurable": {"thread_id": "s2"}},
            context=Context("u1", "c1"),
        )
        assert out["messages"][-1].text == "Noted."
        assert started.wait(10)  # the worker has the job...
        assert q.counts()["done"] == 0  # ...and the reply came back before it finished
        release.set()
        for _ in range(200):
            if q.counts()["done"]:
                break
            threading.Event().wait(0.05)
    assert q.counts()["done"] == 1
    assert [i.value["value"] for i in store.search(namespace("u1", "c1", "facts"))] == ["50"]


async def test_broken_outbox_degrades_but_replies(tmp_path: Path) -> None:
    q = JobQueue(tmp_path / "jobs.sqlite")
    (tmp_path / "jobs.sqlite").unlink()
    q.close()
    (tmp_path / "jobs.sqlite").mkdir()  # the path is now a directory: every write fails
    out = await build(q).ainvoke(
        {"messages": [HumanMessage("Our budget is $1m")]},
        {"configurable": {"thread_id": "s3"}},
        context=Context("u1", "c1"),
    )
    assert out["messages"][-1].text == "Noted." and out["degraded"] == ["extraction"]
