"""What the salesperson said is remembered even when the reply failed: the turn whose
model call raised still hands its message to the extraction worker, exactly once, however
often the same message is retried, and a message another one joined is not lost.

``arun_turn`` through the real graph, SQLite checkpointer and outbox with a failing and
then a scripted model; the worker is drained between turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graph_fakes import FailingChatModel, factory, memory_store, scripted
from langgraph.store.base import BaseStore

from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker
from memagent.memory.namespaces import namespace

USER, CUSTOMER, SESSION = "alice", "acme", "s1"
NOTE = "Acme's budget is 1.2 million USD and Li Wei is the decision maker."
LATER = "They need SSO with Okta before the rollout."


def _settings(home: Path) -> Settings:
    return Settings(home=home, embedder="hash", extractor="rules", rewriter="rules",
                    worker="external")  # fmt: skip


async def _turn(home: Path, store: BaseStore, model: Any, text: str | None, drain: bool) -> None:
    async with aopen_agent(_settings(home), chat_model_factory=factory(model),
                           store=store) as agent:  # fmt: skip
        try:
            await arun_turn(agent, text, user_id=USER, customer_id=CUSTOMER, session=SESSION)
        finally:
            if drain:
                assert agent.queue is not None
                Worker.for_settings(agent.settings, queue=agent.queue, store=store).drain()


async def _fail(home: Path, store: BaseStore, text: str, *, drain: bool = True) -> None:
    with pytest.raises(Exception, match="connection refused"):
        await _turn(home, store, FailingChatModel(messages=iter(())), text, drain)


def _records(store: BaseStore, needle: str) -> list[dict[str, Any]]:
    ns = namespace(USER, CUSTOMER, "facts")
    return [
        dict(i.value) for i in store.search(ns, limit=1000) if needle in str(i.value.get("content"))
    ]


def _episodes(store: BaseStore, needle: str) -> list[dict[str, Any]]:
    ns = namespace(USER, CUSTOMER, "episodes")
    return [
        dict(i.value) for i in store.search(ns, limit=1000) if needle in str(i.value.get("content"))
    ]


def _once(store: BaseStore, needle: str) -> None:
    got = _records(store, needle)
    assert len(got) == 1, got
    assert got[0]["status"] == "active" and got[0].get("mentions", 1) == 1, got
    assert len(got[0]["source"]["message_ids"]) == 1, got
    assert len(_episodes(store, needle)) == 1


async def test_a_message_whose_reply_failed_is_remembered(tmp_path: Path) -> None:
    store = memory_store()
    await _fail(tmp_path, store, NOTE)
    _once(store, "1.2 million")


@pytest.mark.parametrize("drain_between", [True, False])
async def test_retrying_the_same_message_extracts_it_once(
    tmp_path: Path, drain_between: bool
) -> None:
    store = memory_store()
    await _fail(tmp_path, store, NOTE, drain=drain_between)
    await _fail(tmp_path, store, NOTE, drain=drain_between)
    await _turn(tmp_path, store, scripted("Noted."), NOTE, drain=True)
    await _turn(tmp_path, store, scripted("Noted."), "ok", drain=True)
    _once(store, "1.2 million")


async def test_a_message_failing_twice_is_one_job(tmp_path: Path) -> None:
    store = memory_store()
    await _fail(tmp_path, store, NOTE, drain=False)
    await _fail(tmp_path, store, "  " + NOTE, drain=False)
    async with aopen_agent(_settings(tmp_path), chat_model_factory=factory(scripted("x")),
                           store=store) as agent:  # fmt: skip
        assert agent.queue is not None
        assert agent.queue.counts().get("pending") == 1, agent.queue.counts()


async def test_retry_without_text_extracts_it_once(tmp_path: Path) -> None:
    store = memory_store()
    await _fail(tmp_path, store, NOTE)
    await _turn(tmp_path, store, scripted("Noted."), None, drain=True)
    _once(store, "1.2 million")


async def test_a_failed_message_joined_by_the_next_is_remembered(tmp_path: Path) -> None:
    store = memory_store()
    await _fail(tmp_path, store, NOTE, drain=False)
    await _turn(tmp_path, store, scripted("Noted."), LATER, drain=True)
    _once(store, "1.2 million")
    assert _records(store, "Okta"), _records(store, "")
