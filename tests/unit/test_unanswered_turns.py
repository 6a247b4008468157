"""A turn whose reply never came: its message is kept once, and what follows finishes it.

``arun_turn`` through the real graph and SQLite checkpointer with a scripted or a
failing model: the same message sent again resumes the unanswered turn instead of
appending a copy, a different one joins it (one reply answers both, one turn), a retry
with nothing unfinished says so, and a turn cancelled once its message is saved keeps
the message for ``--retry``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import FailingChatModel, factory, memory_store, scripted
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from memagent.graph.agent import (
    Agent,
    InvalidMessageError,
    aopen_agent,
    arun_turn,
)
from memagent.graph.settings import Settings

SCOPE = {"user_id": "alice", "customer_id": "acme", "session": "s"}


def settings(home: Path) -> Settings:
    return Settings(home=home, embedder="hash", extractor="off")


async def state(agent: Agent) -> dict[str, Any]:
    snapshot = await agent.graph.aget_state({"configurable": {"thread_id": "s"}})
    return dict(snapshot.values)


def pairs(values: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.type, str(m.text)) for m in values["messages"]]


async def fail_times(home: Path, *messages: str) -> None:
    store = memory_store()
    down = factory(FailingChatModel(messages=iter(())))
    async with aopen_agent(settings(home), chat_model_factory=down, store=store) as agent:
        for message in messages:
            with pytest.raises(Exception, match="connection refused"):
                await arun_turn(agent, message, **SCOPE)


def agent_with(home: Path, model: Any) -> Any:
    return aopen_agent(settings(home), chat_model_factory=factory(model), store=memory_store())


async def test_the_same_message_sent_again_is_kept_once(tmp_path: Path) -> None:
    await fail_times(tmp_path, "hello", "hello", "  hello ")
    async with agent_with(tmp_path, scripted("hi there")) as agent:
        assert pairs(await state(agent)) == [("human", "hello")]
        result = await arun_turn(agent, "hello", **SCOPE)
        values = await state(agent)
    assert result.reply == "hi there" and result.taken == "resumed"
    assert pairs(values) == [("human", "hello"), ("ai", "hi there")]
    assert values["turn"] == result.turn == 1


async def test_retry_after_failures_answers_one_turn(tmp_path: Path) -> None:
    await fail_times(tmp_path, "hello", "hello", "hello")
    async with agent_with(tmp_path, scripted("hi there")) as agent:
        result = await arun_turn(agent, None, **SCOPE)
        values = await state(agent)
        assert pairs(values) == [("human", "hello"), ("ai", "hi there")]
        assert values["turn"] == 1 and result.taken == "resumed"
        with pytest.raises(InvalidMessageError, match="nothing to retry"):
            await arun_turn(agent, None, **SCOPE)
        follow = await arun_turn(agent, "and then?", **SCOPE)
    assert follow.turn == 2 and follow.taken == "new"


async def test_a_different_message_joins_the_unanswered_one(tmp_path: Path) -> None:
    await fail_times(tmp_path, "hello")
    model = scripted("answering both")
    async with agent_with(tmp_path, model) as agent:
        result = await arun_turn(agent, "are you there?", **SCOPE)
        values = await state(agent)
    assert result.taken == "joined" and result.turn == 1
    assert pairs(values) == [
        ("human", "hello"),
        ("human", "are you there?"),
        ("ai", "answering both"),
    ]
    sent = [str(m.text) for m in model.seen[-1]]
    assert any("hello" in t for t in sent) and any("are you there?" in t for t in sent)


class Stalled(GenericFakeChatModel):
    """A model that waits until the test lets it answer."""

    release: Any = None

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        await self.release.wait()
        return ChatResult(generations=[ChatGeneration(message=AIMessage("finally"))])


async def cancelled_once_saved(agent: Agent, message: str) -> None:
    saved = asyncio.Event()
    task = asyncio.create_task(arun_turn(agent, message, on_saved=lambda _: saved.set(), **SCOPE))
    await saved.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_cancelled_turn_keeps_its_message_for_retry(tmp_path: Path) -> None:
    model = Stalled(messages=iter(()), release=asyncio.Event())
    async with agent_with(tmp_path, model) as agent:
        await cancelled_once_saved(agent, "hello")
        assert pairs(await state(agent)) == [("human", "hello")]
        model.release.set()
        result = await arun_turn(agent, None, **SCOPE)
        values = await state(agent)
    assert result.reply == "finally"
    assert pairs(values) == [("human", "hello"), ("ai", "finally")] and values["turn"] == 1


async def test_prepare_runs_after_the_message_is_saved(tmp_path: Path) -> None:
    """The service starts the local model in ``prepare``: if that fails, the message stays."""

    async def model_does_not_start() -> None:
        raise ConnectionError("the model server did not start")

    prepare: Callable[[], Awaitable[None]] = model_does_not_start
    async with agent_with(tmp_path, scripted("ok")) as agent:
        with pytest.raises(ConnectionError):
            await arun_turn(agent, "hello", prepare=prepare, **SCOPE)
        assert pairs(await state(agent)) == [("human", "hello")]
        assert (await arun_turn(agent, None, **SCOPE)).reply == "ok"
