"""Fakes shared by the graph/node unit tests: a scripted chat model that records prompts."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore
from pydantic import Field

from memagent.core.context import Context
from memagent.stores.embeddings import hash_embeddings


class ScriptedChatModel(GenericFakeChatModel):
    """Replies from a script (cycled) and records every prompt it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, stop, run_manager, **kwargs)

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        self.seen.append(list(messages))
        yield from super()._stream(messages, stop, run_manager, **kwargs)


def scripted(*replies: str | AIMessage) -> ScriptedChatModel:
    messages = [r if isinstance(r, AIMessage) else AIMessage(r) for r in replies]
    # A copy per reply: a reused message keeps its id and would replace the previous one.
    copies = (m.model_copy() for m in itertools.cycle(messages))
    return ScriptedChatModel(messages=copies)


class FailingChatModel(GenericFakeChatModel):
    """A model whose endpoint is down."""

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        raise ConnectionError("connection refused")

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        raise ConnectionError("connection refused")


def memory_store() -> InMemoryStore:
    return InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})


def runtime(store: Any = None, user: str = "alice", customer: str = "acme") -> Runtime[Context]:
    return Runtime(context=Context(user_id=user, customer_id=customer), store=store)


def factory(model: Any) -> Any:
    """A chat_model_factory that always returns ``model``."""

    def make(settings: Any = None, *, small: bool = False) -> Any:
        return model

    return make
