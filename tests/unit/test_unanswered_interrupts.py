"""What the salesperson said is remembered when no caller catches the failed reply, and
when the reply is cancelled:

- a LangGraph server (Studio) runs the graph itself: the llm node's error ends the run
  there, so the graph must hand the message to extraction before raising, on the local
  outbox and on the server's extraction scheduler alike;
- Ctrl-C in ``memagent chat`` cancels the turn (``arun_turn``'s task): the message is
  queued all the same, and ``/retry`` afterwards stores nothing twice.

Real graph, SQLite checkpointer and outbox; a failing, a hanging and a scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import FailingChatModel, factory, memory_store, scripted
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langgraph.store.base import BaseStore
from pydantic import PrivateAttr
from test_failed_reply_extraction import CUSTOMER, NOTE, SESSION, USER, _once, _records

from memagent.core.context import Context
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.extraction_server import server_extractor
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker

CONFIG: RunnableConfig = {"configurable": {"thread_id": SESSION},
                          "metadata": {"user_id": USER, "customer_id": CUSTOMER}}  # fmt: skip
CONTEXT = Context(user_id=USER, customer_id=CUSTOMER)


def _settings(home: Path) -> Settings:
    return Settings(home=home, embedder="hash", extractor="rules", rewriter="rules",
                    worker="external")  # fmt: skip


def _drain(agent: Any, store: BaseStore) -> None:
    assert agent.queue is not None
    Worker.for_settings(agent.settings, queue=agent.queue, store=store).drain()


async def _server_run(home: Path, store: BaseStore, model: Any, text: str | None) -> None:
    """One run as a LangGraph server makes it: the graph invoked with the input, no
    ``arun_turn`` around it; then the worker drains the outbox."""
    async with aopen_agent(_settings(home), chat_model_factory=factory(model),
                           store=store) as agent:  # fmt: skip
        try:
            update = None if text is None else {"messages": [HumanMessage(text)]}
            await agent.graph.ainvoke(update, CONFIG, context=CONTEXT)
        finally:
            _drain(agent, store)


async def test_a_server_run_whose_reply_failed_still_queues_the_message(tmp_path: Path) -> None:
    store = memory_store()
    with pytest.raises(Exception, match="connection refused"):
        await _server_run(tmp_path, store, FailingChatModel(messages=iter(())), NOTE)
    _once(store, "1.2 million")
    # Studio's retry of the failed run (from its checkpoint) answers it: nothing twice.
    await _server_run(tmp_path, store, scripted("Noted."), None)
    _once(store, "1.2 million")


class RecordingScheduler:
    def __init__(self) -> None:
        self.payloads: list[dict[str, Any]] = []

    async def schedule(
        self, thread_id: str, payload: dict[str, Any], *, after_seconds: int
    ) -> None:
        self.payloads.append(payload)


async def test_a_failed_reply_is_scheduled_on_the_server_extractor(tmp_path: Path) -> None:
    scheduler = RecordingScheduler()
    async with aopen_agent(_settings(tmp_path), store=memory_store(),
                           chat_model_factory=factory(FailingChatModel(messages=iter(()))),
                           extractor=server_extractor("server", local=None,  # type: ignore[arg-type]
                                                      debounce_s=0, every_n_turns=4,
                                                      scheduler=scheduler)) as agent:  # fmt: skip
        with pytest.raises(Exception, match="connection refused"):
            await agent.graph.ainvoke({"messages": [HumanMessage(NOTE)]}, CONFIG, context=CONTEXT)
    assert len(scheduler.payloads) == 1, scheduler.payloads
    said = [t for t in scheduler.payloads[0]["turns"] if t["role"] == "user"]
    assert [t["content"] for t in said] == [NOTE]


class HangingModel(GenericFakeChatModel):
    """A model that starts answering and never finishes (until cancelled)."""

    _called: asyncio.Event = PrivateAttr(default_factory=asyncio.Event)

    def _generate(self, messages: list[BaseMessage], *a: Any, **kw: Any) -> ChatResult:
        raise AssertionError("called synchronously")

    def _stream(self, *a: Any, **kw: Any) -> Iterator[ChatGenerationChunk]:
        raise AssertionError("called synchronously")

    async def _agenerate(self, *a: Any, **kw: Any) -> ChatResult:
        self._called.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def _astream(self, *a: Any, **kw: Any) -> AsyncIterator[ChatGenerationChunk]:
        self._called.set()
        await asyncio.Event().wait()
        yield ChatGenerationChunk(message=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_turn_cancelled_by_ctrl_c_is_remembered_once(
    tmp_path: Path, streamed: bool
) -> None:
    store = memory_store()
    model = HangingModel(messages=iter(()))
    async with aopen_agent(_settings(tmp_path), chat_model_factory=factory(model),
                           store=store) as agent:  # fmt: skip
        turn = asyncio.ensure_future(
            arun_turn(
                agent,
                NOTE,
                user_id=USER,
                customer_id=CUSTOMER,
                session=SESSION,
                on_token=(lambda text: None) if streamed else None,
            )  # fmt: skip
        )
        await model._called.wait()  # the reply has started: now the user presses Ctrl-C
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
        _drain(agent, store)
    _once(store, "1.2 million")
    async with aopen_agent(_settings(tmp_path), chat_model_factory=factory(scripted("Noted.")),
                           store=store) as agent:  # fmt: skip
        await arun_turn(agent, None, user_id=USER, customer_id=CUSTOMER, session=SESSION)
        _drain(agent, store)
    _once(store, "1.2 million")
    assert len(_records(store, "Li Wei")) == 1
