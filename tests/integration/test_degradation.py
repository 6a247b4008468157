"""The store goes down mid-conversation: the turn still gets a reply, no job is lost.

Real SQLite checkpointer and outbox, real embedded Qdrant store (hash embeddings) behind
a switch that makes every store call raise ``ConnectionError``, the real rules extractor
and worker; only the chat model is scripted. While the store is down the reply comes from
short-term memory (the session's own messages), ``degraded`` names recall, and the
extraction job waits in the outbox however often the worker tries it. When the store is
back, a drain applies the job and a new session recalls what was said.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import ScriptedChatModel
from langchain_core.messages import AIMessage
from langgraph.store.base import BaseStore, Op, Result
from store_fakes import gated

from memagent.core.settings import Settings
from memagent.graph.agent import Agent, aopen_agent, arun_turn, settle, store_factory
from memagent.graph.jobs import JobQueue
from memagent.graph.worker import Worker
from memagent.memory.namespaces import namespace

OUTAGE_DELAY_S = 0.05


Scripted = ScriptedChatModel


def scripted(*replies: str) -> Scripted:
    # A fresh message per reply: a reused object keeps its id and would replace the last.
    return Scripted(messages=(AIMessage(r) for r in itertools.cycle(replies)))


def factory(model: Scripted) -> Any:
    return lambda settings=None, *, small=False: model


class SwitchableStore(BaseStore):
    """A real store behind an on/off switch: off, every call raises ``ConnectionError``."""

    def __init__(self, inner: BaseStore) -> None:
        self.inner = inner
        self.down = False
        self.refused = 0

    def _check(self) -> None:
        if self.down:
            self.refused += 1
            raise ConnectionError("store unavailable: connection refused")

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        self._check()
        return self.inner.batch(ops)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        self._check()
        return await self.inner.abatch(ops)

    # the store's extensions (``MemoryStoreExtensions``), behind the same switch
    get_rev, aget_rev = gated("get_rev"), gated("aget_rev")
    put_if, aput_if = gated("put_if"), gated("aput_if")
    touch, atouch = gated("touch"), gated("atouch")
    search_scored, asearch_scored = gated("search_scored"), gated("asearch_scored")
    keyword_idf = gated("keyword_idf")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        home=tmp_path, embedder="hash", extractor="rules", rewriter="rules", recall="hybrid"
    )


@contextlib.asynccontextmanager
async def degradable_agent(
    settings: Settings, model: Scripted
) -> AsyncIterator[tuple[Agent, SwitchableStore, Worker]]:
    """The agent on the real embedded store behind an off switch, with its worker given a
    short outage back-off so the test need not wait 5 s."""
    async with store_factory(settings) as real:
        store = SwitchableStore(real)
        async with aopen_agent(
            settings, chat_model_factory=factory(model), store=store, start_worker=False
        ) as agent:
            assert agent.queue is not None
            worker = Worker.for_settings(
                agent.settings, queue=agent.queue, store=store, outage_delay_s=OUTAGE_DELAY_S
            )
            agent.worker = worker
            yield agent, store, worker


async def drain_while_down(queue: JobQueue, worker: Worker, rounds: int) -> int:
    """Let the worker try the due jobs ``rounds`` times; returns how often it gave one back."""
    released = 0
    for _ in range(rounds):
        await asyncio.sleep(OUTAGE_DELAY_S * 2)
        released += (await asyncio.to_thread(worker.drain, max_jobs=5)).released
    return released


async def test_store_outage_degrades_the_turn_and_the_job_waits(settings: Settings) -> None:
    model = scripted("Noted.", "You said the budget is $3 million.", "It is $3 million.")
    statement = "Our budget for the CRM rollout is $3 million, for 200 seats."
    async with degradable_agent(settings, model) as (agent, store, worker):
        store.down = True

        first = await arun_turn(agent, statement, user_id="alice", customer_id="acme", session="s1")
        assert first.reply == "Noted."
        assert "recall" in first.degraded, first.degraded
        assert first.recall_trace.get("degraded") and first.recalled == []

        # Short-term memory still works: the second turn's prompt holds the first.
        second = await arun_turn(
            agent, "What budget did I mention?", user_id="alice", customer_id="acme",
            session="s1",
        )  # fmt: skip
        assert second.reply == "You said the budget is $3 million." and second.turn == 2
        assert "recall" in second.degraded
        assert statement in "\n".join(str(m.text) for m in model.seen[-1])

        # The extraction jobs wait in the outbox, never dead-lettered by the outage,
        # however many times the worker tries (more than any job's attempt budget).
        submitted = agent.queue.outstanding()
        assert submitted >= 1
        max_attempts = max(j.max_attempts for j in agent.queue.jobs("pending"))
        released = await drain_while_down(agent.queue, worker, rounds=max_attempts + 2)
        assert released >= max_attempts + 2 and store.refused > 0
        counts = agent.queue.counts()
        assert counts["dead"] == 0 and counts["done"] == 0, counts
        assert counts["pending"] == submitted, counts
        waiting = agent.queue.jobs("pending")
        assert all("ConnectionError" in (j.last_error or "") for j in waiting)
        # A job superseded by the second turn's carried its messages over: none lost.
        assert any(statement in t.content for j in waiting for t in j.turns)

        # The store is back: the jobs are applied, each once.
        store.down = False
        await asyncio.sleep(OUTAGE_DELAY_S * 2)
        await settle(agent)
        counts = agent.queue.counts()
        assert counts["pending"] == counts["running"] == counts["dead"] == 0, counts
        assert counts["done"] == submitted, counts

        facts = store.inner.search(namespace("alice", "acme", "facts"), limit=50)
        assert any("3 million" in i.value.get("content", "") for i in facts), facts

        # A new session recalls it, and the turn is no longer degraded.
        third = await arun_turn(
            agent, "Remind me of the budget from last time?", user_id="alice",
            customer_id="acme", session="s2",
        )  # fmt: skip
        assert "recall" not in third.degraded, third.degraded
        assert any("3 million" in i["content"] for i in third.recalled), third.recall_trace
        await settle(agent)


async def test_an_outage_during_the_write_loses_no_job(settings: Settings) -> None:
    """The store fails while the worker writes (after the extraction succeeded): the job
    is given back with its extracted candidates and applied exactly once later."""
    model = scripted("Noted.")
    async with degradable_agent(settings, model) as (agent, store, worker):
        await arun_turn(
            agent, "Dana Whitfield signs off on the purchase; budget is $2 million.",
            user_id="bob", customer_id="acme", session="w1",
        )  # fmt: skip
        store.down = True
        released = await drain_while_down(agent.queue, worker, rounds=3)
        assert released >= 3 and agent.queue.counts()["dead"] == 0
        store.down = False
        await asyncio.sleep(OUTAGE_DELAY_S * 2)
        await settle(agent)
        assert agent.queue.counts()["done"] == 1, agent.queue.counts()
        facts = store.inner.search(namespace("bob", "acme", "facts"), limit=50)
        budgets = [i for i in facts if "2 million" in i.value.get("content", "")]
        assert len(budgets) == 1, [i.value for i in facts]
