"""Replies stream token by token: in the Studio graph (LangGraph's ``messages`` stream
mode) and through ``arun_turn``'s ``on_token`` (what ``memagent chat`` prints, through the
service or in process).

The scripted model holds its second token until the consumer has received the first: a
reply that reaches the consumer only once complete (buffered) times the test out.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

from graph_fakes import factory, memory_store
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from memagent.core.context import Context
from memagent.core.settings import Settings
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.builder import LLM, build_default_graph
from memagent.nodes.llm import REPLY_TAG

WORDS = ["Hello", " there,", " how", " can", " I", " help?"]
GATE_S = 20.0


class GatedStreamingModel(GenericFakeChatModel):
    """Streams ``WORDS``; after the first it waits until ``release()`` (the consumer saw it)."""

    _gate: asyncio.Event | None = PrivateAttr(default=None)

    def release(self) -> None:
        if self._gate is not None:
            self._gate.set()

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise AssertionError("the reply was not streamed")

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        raise AssertionError("the reply was streamed synchronously")

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        self._gate = asyncio.Event()
        for i, word in enumerate(WORDS):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=word))
            if run_manager is not None:
                await run_manager.on_llm_new_token(word, chunk=chunk)
            yield chunk
            if i == 0:  # a buffered reply never lets the consumer release this
                await asyncio.wait_for(self._gate.wait(), GATE_S)


def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, embedder="hash", extractor="rules", rewriter="rules")


async def test_studio_graph_streams_reply_tokens_in_messages_mode(tmp_path: Path) -> None:
    model = GatedStreamingModel(messages=iter([]))
    graph = build_default_graph(settings(tmp_path), chat_model_factory=factory(model)).compile(
        store=memory_store()
    )
    tokens: list[str] = []
    async for part in graph.astream(
        {"messages": [HumanMessage("hello")]},
        context=Context(user_id="alice", customer_id="acme"),
        stream_mode="messages",
    ):
        chunk, meta = cast(tuple[Any, dict[str, Any]], part)
        if (
            isinstance(chunk, AIMessageChunk)
            and meta.get("langgraph_node") == LLM
            and REPLY_TAG in (meta.get("tags") or [])
            and chunk.text  # the closing chunk carries no text
        ):
            tokens.append(str(chunk.text))
            model.release()
    assert tokens == WORDS


async def test_run_turn_hands_tokens_over_as_they_come(tmp_path: Path) -> None:
    model = GatedStreamingModel(messages=iter([]))
    tokens: list[str] = []

    def on_token(text: str) -> None:
        tokens.append(text)
        model.release()

    async with aopen_agent(settings(tmp_path), chat_model_factory=factory(model)) as agent:
        result = await arun_turn(
            agent, "hello", user_id="alice", customer_id="acme", session="s1", on_token=on_token
        )
        assert tokens == WORDS and result.reply == "".join(WORDS)
        state = await agent.graph.aget_state({"configurable": {"thread_id": "s1"}})
        replies = [m for m in state.values["messages"] if isinstance(m, AIMessage)]
        assert [m.text for m in replies] == ["".join(WORDS)]  # stored once, whole
