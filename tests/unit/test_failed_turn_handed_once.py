"""A failed turn reaches extraction exactly once, whichever path it fails on: the llm
node's error in ``memagent chat`` (streamed or not), Ctrl-C there, a failed run a
LangGraph server (Studio) makes without ``arun_turn``, and a node before the llm failing
on either path. The graph hands over what a failing node leaves; ``arun_turn`` only what
the graph cannot (a cancellation, an error the graph did not hand over).

Real graph, SQLite checkpointer and outbox; a failing, a hanging and a raising node. The
count is of hand-overs to the outbox (``JobQueue.submit`` calls), not of rows: the outbox
folds a second submit of the same messages into one row, a server's scheduler does not."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import FailingChatModel, factory, memory_store
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from test_failed_reply_extraction import CUSTOMER, NOTE, SESSION, USER
from test_unanswered_interrupts import CONFIG, CONTEXT, HangingModel, _settings

from memagent.core.context import Context
from memagent.core.state import State
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.jobs import JobQueue


@pytest.fixture
def submits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The user messages of every hand-over to the outbox, in order."""
    seen: list[str] = []
    real = JobQueue.submit

    def counted(self: JobQueue, **kw: Any) -> Any:
        seen.extend(t.content for t in kw["turns"] if t.role == "user")
        return real(self, **kw)

    monkeypatch.setattr(JobQueue, "submit", counted)
    return seen


async def broken_recall(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    raise OSError("recall's disk is gone")


def _failing() -> dict[str, Any]:
    return {"chat_model_factory": factory(FailingChatModel(messages=iter(())))}


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_reply_failed_in_chat_is_handed_over_once(
    tmp_path: Path, submits: list[str], streamed: bool
) -> None:
    async with aopen_agent(_settings(tmp_path), store=memory_store(), **_failing()) as agent:
        with pytest.raises(ConnectionError):
            await arun_turn(agent, NOTE, user_id=USER, customer_id=CUSTOMER, session=SESSION,
                            on_token=(lambda text: None) if streamed else None)  # fmt: skip
    assert submits == [NOTE]


async def test_a_failed_server_run_is_handed_over_once(tmp_path: Path, submits: list[str]) -> None:
    async with aopen_agent(_settings(tmp_path), store=memory_store(), **_failing()) as agent:
        with pytest.raises(ConnectionError):
            await agent.graph.ainvoke({"messages": [HumanMessage(NOTE)]}, CONFIG, context=CONTEXT)
    assert submits == [NOTE]


async def test_a_turn_cancelled_in_chat_is_handed_over_once(
    tmp_path: Path, submits: list[str]
) -> None:
    model = HangingModel(messages=iter(()))
    async with aopen_agent(_settings(tmp_path), store=memory_store(),
                           chat_model_factory=factory(model)) as agent:  # fmt: skip
        turn = asyncio.ensure_future(
            arun_turn(agent, NOTE, user_id=USER, customer_id=CUSTOMER, session=SESSION)
        )
        await model._called.wait()
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
    assert submits == [NOTE]


async def test_a_node_before_the_llm_failing_in_chat_is_handed_over_once(
    tmp_path: Path, submits: list[str]
) -> None:
    async with aopen_agent(_settings(tmp_path), store=memory_store(), recall=broken_recall,
                           **_failing()) as agent:  # fmt: skip
        with pytest.raises(OSError, match="disk is gone"):
            await arun_turn(agent, NOTE, user_id=USER, customer_id=CUSTOMER, session=SESSION)
    assert submits == [NOTE]


async def test_a_node_before_the_llm_failing_in_a_server_run_is_handed_over_once(
    tmp_path: Path, submits: list[str]
) -> None:
    async with aopen_agent(_settings(tmp_path), store=memory_store(), recall=broken_recall,
                           **_failing()) as agent:  # fmt: skip
        with pytest.raises(OSError, match="disk is gone"):
            await agent.graph.ainvoke({"messages": [HumanMessage(NOTE)]}, CONFIG, context=CONTEXT)
    assert submits == [NOTE]
