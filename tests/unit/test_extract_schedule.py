"""async_extract's routing (``MEMAGENT_EXTRACTION_MODE``): runs a LangGraph server executes
schedule a debounced ``memory_extractor`` run; other runs use the local outbox; a server
that refuses the run leaves the turn in the outbox, and the reply never fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.state import InputState, State
from memagent.graph.builder import make_extractor
from memagent.graph.extraction_server import (
    SERVER_STAMP,
    SdkScheduler,
    extractor_thread,
    routed_extractor,
)
from memagent.graph.jobs import JobQueue
from memagent.nodes.extract_schedule import make_server_extract, recent_turns

SERVER_RUN = {SERVER_STAMP: "0.16.7"}  # what langgraph_api stamps on every run's metadata


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, dict[str, Any], int]] = []
        self.fail = fail

    async def schedule(
        self, thread_id: str, payload: dict[str, Any], *, after_seconds: int
    ) -> None:
        if self.fail:
            raise ConnectionError("404: graph memory_extractor not found")
        self.calls.append((thread_id, payload, after_seconds))


def _graph(node: Any) -> Any:
    async def llm(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        return {"messages": [AIMessage("Noted.")]}

    b = StateGraph(State, input_schema=InputState, context_schema=Context)
    b.add_node("llm", llm)
    b.add_node("async_extract", node)
    b.add_edge(START, "llm")
    b.add_edge("llm", "async_extract")
    b.add_edge("async_extract", END)
    return b.compile(checkpointer=InMemorySaver())


def _node(queue: JobQueue, rec: Recorder, mode: Any = "auto", debounce_s: float = 7.5) -> Any:
    from memagent.graph.builder import queue_extractor

    local = queue_extractor(lambda: queue)
    server = make_server_extract(rec, debounce_s=debounce_s, every_n_turns=4, fallback=local)
    return routed_extractor(mode, local=local, server=server)


async def _turn(g: Any, text: str, *, server: bool, thread: str = "s1") -> dict[str, Any]:
    cfg: Any = {"configurable": {"thread_id": thread}}
    if server:
        cfg["metadata"] = dict(SERVER_RUN)
    return dict(
        await g.ainvoke({"messages": [HumanMessage(text)]}, cfg, context=Context("u1", "c1"))
    )


async def test_a_server_run_schedules_the_extractor_instead_of_the_outbox(tmp_path: Path) -> None:
    q, rec = JobQueue(tmp_path / "jobs.sqlite", delay_s=60.0), Recorder()
    g = _graph(_node(q, rec))
    out = await _turn(g, "nice weather today", server=True)
    assert out.get("degraded", []) == [] and q.jobs() == []
    ((thread, payload, delay),) = rec.calls
    assert thread == "s1" and delay == 8  # the debounce, whole seconds, rounded up
    assert (payload["thread_id"], payload["user_id"], payload["customer_id"]) == ("s1", "u1", "c1")
    assert [t["role"] for t in payload["turns"]] == ["user", "assistant"]
    assert all(t["id"] and t["at"] for t in payload["turns"])
    # The next turn carries the first one too (a rolled-back run loses nothing) and,
    # with an amount in it, is due at once.
    await _turn(g, "Our budget is $3 million", server=True)
    _, payload2, delay2 = rec.calls[-1]
    assert delay2 == 0 and "amount" in payload2["trigger"]
    assert [t["content"] for t in payload2["turns"]] == [
        "nice weather today", "Noted.", "Our budget is $3 million", "Noted."
    ]  # fmt: skip
    assert payload2["turns"][0]["id"] == payload["turns"][0]["id"]
    assert q.jobs() == []


async def test_every_nth_turn_is_scheduled_without_debounce(tmp_path: Path) -> None:
    q, rec = JobQueue(tmp_path / "jobs.sqlite"), Recorder()
    g = _graph(_node(q, rec))
    for text in ("hello", "how are you", "what is new", "fine thanks"):
        await _turn(g, text, server=True)
    assert [d for _, _, d in rec.calls] == [8, 8, 8, 0]


async def test_runs_outside_a_server_use_the_local_outbox(tmp_path: Path) -> None:
    q, rec = JobQueue(tmp_path / "jobs.sqlite", delay_s=60.0), Recorder()
    g = _graph(_node(q, rec))
    await _turn(g, "Our budget is $3 million", server=False)
    assert rec.calls == [] and len(q.jobs("pending")) == 1


@pytest.mark.parametrize(("mode", "server", "scheduled"), [
    ("server", False, True), ("local", True, False), ("auto", True, True), ("auto", False, False),
])  # fmt: skip
async def test_the_mode_forces_either_path(
    tmp_path: Path, mode: str, server: bool, scheduled: bool
) -> None:
    q, rec = JobQueue(tmp_path / "jobs.sqlite"), Recorder()
    await _turn(_graph(_node(q, rec, mode=mode)), "Budget is $5 million", server=server)
    assert bool(rec.calls) is scheduled and bool(q.jobs()) is not scheduled


async def test_a_refused_schedule_falls_back_to_the_outbox_and_the_reply_stands(
    tmp_path: Path,
) -> None:
    q, rec = JobQueue(tmp_path / "jobs.sqlite"), Recorder(fail=True)
    out = await _turn(_graph(_node(q, rec)), "Our budget is $3 million", server=True)
    assert out["messages"][-1].content == "Noted." and out.get("degraded", []) == []
    (job,) = q.jobs("pending")
    assert job.thread_id == "s1" and "amount" in job.trigger


def test_recent_turns_drop_tools_keep_ids_and_window() -> None:
    msgs = [
        HumanMessage("a", id="h1"), AIMessage("b", id="a1"), HumanMessage("c", id="h2"),
        AIMessage("", id="a2", tool_calls=[{"name": "crm", "args": {}, "id": "c1"}]),
        ToolMessage("ok", tool_call_id="c1", id="t1"), AIMessage("d", id="a3"),
    ]  # fmt: skip
    turns = recent_turns(msgs)
    assert [t.id for t in turns] == ["h1", "a1", "h2", "a3"]
    assert [bool(t.at) for t in turns] == [False, False, True, True]
    assert [t.id for t in recent_turns(msgs, window=2)] == ["h2", "a3"]


def test_the_extraction_mode_is_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="extraction mode"):
        routed_extractor("cloud", local=lambda s, r: None, server=lambda s, r: None)  # type: ignore[arg-type]
    assert make_extractor("off", lambda: None, mode="server") is not None


async def test_the_sdk_scheduler_debounces_on_a_thread_derived_from_the_conversation() -> None:
    seen: dict[str, Any] = {}

    class Runs:
        async def create(self, thread_id: str, assistant_id: str, **kwargs: Any) -> dict[str, Any]:
            seen.update(thread_id=thread_id, assistant_id=assistant_id, **kwargs)
            return {"run_id": "r1"}

    class Client:
        runs = Runs()

    sched = SdkScheduler()
    sched._client = Client()
    payload = {"thread_id": "s1", "user_id": "u1", "customer_id": "c1", "turns": []}
    await sched.schedule("s1", payload, after_seconds=5)
    assert seen["assistant_id"] == "memory_extractor"
    assert seen["thread_id"] == extractor_thread("s1") != "s1"
    assert extractor_thread("s1") == extractor_thread("s1") != extractor_thread("s2")
    assert seen["multitask_strategy"] == "rollback" and seen["after_seconds"] == 5
    assert seen["if_not_exists"] == "create" and seen["input"] == payload
    assert seen["metadata"]["user_id"] == "u1"  # `forget` finds the extractor thread too
