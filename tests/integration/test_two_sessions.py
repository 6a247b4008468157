"""Two sessions of one user and customer through the compiled graph, persisted for real.

Real SQLite checkpointer, real embedded Qdrant store (hash embeddings), the real job
queue and rules extractor; only the chat model is a scripted fake. A budget stated in
session 1 must be in session 2's recall trace and in the prompt the model receives, in
English and in Chinese; another user sees none of it; a session resumes after the agent
is closed and reopened from the same files.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import ScriptedChatModel
from langchain_core.messages import AIMessage

from memagent.core.settings import Settings
from memagent.graph.agent import Agent, aopen_agent, arun_turn, settle
from memagent.memory.namespaces import namespace


class Recording(ScriptedChatModel):
    def prompt_text(self) -> str:
        return "\n".join(str(m.text) for m in self.seen[-1])


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        home=tmp_path, embedder="hash", extractor="rules", rewriter="rules", recall="hybrid"
    )


@pytest.fixture
def model() -> Recording:
    # A fresh message per reply: a reused object keeps its id and would replace the last.
    return Recording(messages=(AIMessage("Noted.") for _ in itertools.count()))


def factory(model: Recording) -> Any:
    return lambda settings=None, *, small=False: model


async def drain(agent: Agent) -> None:
    assert agent.worker is not None, "the in-process worker must run with the agent"
    await settle(agent)
    assert agent.queue.outstanding() == 0


@pytest.mark.parametrize(
    ("customer", "statement", "question", "needle"),
    [
        (
            "acme",
            "Our budget for the CRM rollout is $3 million, for 200 seats.",
            "Remind me, what budget did we agree on last time?",
            "3 million",
        ),
        ("lanhai", "我们这次CRM项目的预算是300万元。", "上次说的预算是多少？", "300万"),
    ],
)
async def test_budget_from_session_one_is_recalled_in_session_two(
    settings: Settings,
    model: Recording,
    customer: str,
    statement: str,
    question: str,
    needle: str,
) -> None:
    async with aopen_agent(settings, chat_model_factory=factory(model)) as agent:
        first = await arun_turn(
            agent, statement, user_id="alice", customer_id=customer, session="s1"
        )
        assert first.reply == "Noted." and first.turn == 1 and first.trace_id
        await drain(agent)

        second = await arun_turn(
            agent, question, user_id="alice", customer_id=customer, session="s2"
        )
        recalled = [item["content"] for item in second.recall_trace["items"]]
        assert any(needle in c for c in recalled), second.recall_trace
        assert needle in model.prompt_text()  # injected into the assembled prompt
        assert statement not in model.prompt_text()  # ... as a memory, not session 1's history
        item = next(i for i in second.recall_trace["items"] if needle in i["content"])
        assert {"relevance", "recency", "importance", "confidence", "score"} <= set(item)
        assert second.prompt_tokens > 0

        other = await arun_turn(agent, question, user_id="bob", customer_id=customer, session="s3")
        assert other.recalled == []
        assert needle not in model.prompt_text()


async def test_recall_updates_access_stats_without_losing_the_memory(
    settings: Settings, model: Recording
) -> None:
    async with aopen_agent(settings, chat_model_factory=factory(model)) as agent:
        await arun_turn(
            agent,
            "Our budget is $3 million for the rollout.",
            user_id="alice",
            customer_id="acme",
            session="a1",
        )
        await drain(agent)
        for session in ("a2", "a3"):
            result = await arun_turn(
                agent,
                "What was the budget last time?",
                user_id="alice",
                customer_id="acme",
                session=session,
            )
            assert any("3 million" in i["content"] for i in result.recalled), (
                result.recall_trace,
                agent.queue.counts(),
                [
                    i.value
                    for i in agent.store.search(namespace("alice", "acme", "facts"), limit=20)
                ],
            )
            await agent.access_log.drain()
        facts = agent.store.search(namespace("alice", "acme", "facts"), limit=20)
        counts = [
            i.value.get("access_count", 0)
            for i in facts
            if "3 million" in i.value.get("content", "")
        ]
        assert counts and max(counts) >= 2


async def test_a_session_resumes_after_a_restart(settings: Settings, model: Recording) -> None:
    async with aopen_agent(settings, chat_model_factory=factory(model)) as agent:
        await arun_turn(
            agent,
            "We meet Dana from Acme on Tuesday about the renewal.",
            user_id="alice",
            customer_id="acme",
            session="resume",
        )
    async with aopen_agent(settings, chat_model_factory=factory(model)) as agent:
        again = await arun_turn(
            agent,
            "What should I prepare for it?",
            user_id="alice",
            customer_id="acme",
            session="resume",
        )
        assert again.turn == 2
        assert "Dana from Acme on Tuesday" in model.prompt_text()
        state = await agent.graph.aget_state({"configurable": {"thread_id": "resume"}})
        assert [m.type for m in state.values["messages"]] == ["human", "ai", "human", "ai"]


def test_sync_variant_runs_turns(settings: Settings, model: Recording) -> None:
    from memagent.graph.agent import open_agent, run_turn

    with open_agent(settings, chat_model_factory=factory(model)) as agent:
        first = run_turn(agent, "hello", user_id="alice", customer_id="acme", session="sync")
        second = run_turn(agent, "again", user_id="alice", customer_id="acme", session="sync")
    assert (first.turn, second.turn) == (1, 2) and second.reply == "Noted."


async def test_a_new_session_starts_with_profile_and_open_commitments(
    settings: Settings, model: Recording
) -> None:
    from memagent.memory.profile import compact_profile
    from memagent.memory.records import MemoryRecord

    async with aopen_agent(settings, chat_model_factory=factory(model)) as agent:
        facts = namespace("alice", "acme", "facts")
        promise = MemoryRecord(
            content="Send Dana the SOC2 report by Friday",
            type="commitment",
            attribute="soc2_report",
            importance=0.9,
        )
        agent.store.put(facts, "soc2", promise.to_store())
        decider = MemoryRecord(
            content="Dana Whitfield signs off on the purchase",
            attribute="decision_maker",
            importance=1.0,
        )
        agent.store.put(facts, "decider", decider.to_store())
        compact_profile(agent.store, "alice", "acme")
        start = await arun_turn(agent, "hi", user_id="alice", customer_id="acme", session="n1")
        contents = " | ".join(i["content"] for i in start.recalled)
        assert "SOC2" in contents and "signs off" in contents
        assert {i["origin"] for i in start.recalled} <= {"profile", "commitment"}
        assert "SOC2" in model.prompt_text()
        later = await arun_turn(agent, "ok", user_id="alice", customer_id="acme", session="n1")
        assert later.recalled == []  # pinned once, at the session start
