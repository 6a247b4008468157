"""Working memory that expires after its idle TTL is promoted to long-term memory.

Real graph, SQLite checkpointer and job queue, embedded Qdrant store (hash embeddings),
rules extractor and in-process worker; only the chat model is scripted. The constraint
used is one the rules extractor does not keep from the turn itself, so the long-term
record can only come from the working-memory digest.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from memagent.core.settings import Settings
from memagent.graph.agent import Agent, aopen_agent, arun_turn, settle
from memagent.graph.worker import DIGEST_ROLE
from memagent.memory.namespaces import namespace
from memagent.memory.working_memory import WorkingMemory
from memagent.nodes.async_extract import offer_digest

TTL_S = 0.5
CONSTRAINT = "Keep every proposal under 500 words."


def factory() -> Any:
    model = GenericFakeChatModel(messages=(AIMessage("Noted.") for _ in itertools.count()))
    return lambda settings=None, *, small=False: model


def facts(agent: Agent, needle: str) -> list[dict[str, Any]]:
    found = agent.store.search(namespace("alice", "acme", "facts"), limit=50)
    return [i.value for i in found if needle in i.value.get("content", "")]


async def test_expired_working_memory_becomes_a_long_term_record(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path,
        embedder="hash",
        extractor="rules",
        rewriter="rules",
        recall="hybrid",
        working_memory_ttl_s=TTL_S,
    )
    async with aopen_agent(settings, chat_model_factory=factory()) as agent:
        scope = {"user_id": "alice", "customer_id": "acme"}
        await arun_turn(agent, CONSTRAINT, session="s1", **scope)
        await settle(agent)
        assert facts(agent, "500 words") == []  # the turn's own extraction keeps nothing

        await asyncio.sleep(TTL_S * 2)  # idle past the TTL
        second = await arun_turn(agent, "Let's talk about the renewal.", session="s1", **scope)
        assert any("expired" in note for note in second.degraded)
        await settle(agent)

        (record,) = facts(agent, "500 words")
        assert record["status"] == "active" and record["source"]["thread_id"] == "s1"
        digests = [
            j
            for j in agent.queue.jobs("done")
            if any(t.role == DIGEST_ROLE and "500 words" in t.content for t in j.turns)
        ]
        assert len(digests) == 1  # offered once, at the end of the expiring turn

        # A third turn (no new expiry) offers nothing again.
        await arun_turn(agent, "And the timeline?", session="s1", **scope)
        await settle(agent)
        assert len(facts(agent, "500 words")) == 1

        # Recalled in a new session of the same user and customer.
        fresh = await arun_turn(agent, "How long should the proposal be?", session="s2", **scope)
        assert any("500 words" in i["content"] for i in fresh.recalled), fresh.recall_trace


async def test_submitting_the_same_digest_twice_yields_one_record(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, embedder="hash", extractor="rules", recall="hybrid")
    async with aopen_agent(settings, chat_model_factory=factory()) as agent:
        assert agent.queue is not None
        wm = WorkingMemory.model_validate(
            {
                "version": 4,
                "expired": {
                    "version": 4,
                    "turn": 3,
                    "lines": ["Constraints · length_limit: " + CONSTRAINT],
                },
            }
        )
        scope = {"thread_id": "s9", "user_id": "alice", "customer_id": "acme"}
        one = offer_digest(agent.queue, wm=wm, **scope)
        two = offer_digest(agent.queue, wm=wm, **scope)
        assert one is not None and two is not None and one.id == two.id
        await settle(agent)
        again = offer_digest(agent.queue, wm=wm, **scope)  # after the job is done
        assert again is not None and again.id == one.id
        await settle(agent)
        assert len(facts(agent, "500 words")) == 1
        assert offer_digest(agent.queue, wm=WorkingMemory(), **scope) is None
