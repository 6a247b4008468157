"""Ids as real users have them (an e-mail address, a domain, a prospect not in the CRM)
through the persisted agent and through Studio's factories.

Real SQLite checkpointer, real embedded Qdrant store on disk (hash embeddings), the
real job queue, in-process worker and rules extractor; only the chat model is a
scripted fake. A fact told in one session is extracted under the encoded namespace,
recalled in the next, and listed, exported and forgotten under the ids as typed.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import ScriptedChatModel, factory
from langchain_core.messages import AIMessage, HumanMessage

from memagent.core.context import Context
from memagent.core.settings import Settings
from memagent.graph.agent import (
    aopen_agent,
    arun_turn,
    checkpointer_factory,
    delete_sessions,
    list_sessions,
    settle,
    studio_store,
)
from memagent.graph.builder import build_default_graph
from memagent.graph.jobs import JobQueue
from memagent.memory import memory_ops
from memagent.memory.namespaces import namespace, scope_of

USER, CUSTOMER = "john.smith@corp.com", "huaxin.com"
FACT = "Our budget for the CRM rollout is $3 million, for 200 seats."
QUESTION = "Remind me, what budget did we agree on last time?"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, embedder="hash", extractor="rules", rewriter="rules")


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel(messages=(AIMessage("Noted.") for _ in itertools.count()))


async def test_dotted_ids_and_a_new_prospect_through_the_agent(
    settings: Settings, model: ScriptedChatModel
) -> None:
    async with aopen_agent(settings, chat_model_factory=factory(model)) as agent:
        assert agent.crm.find(CUSTOMER) is None  # a prospect without a CRM record
        await arun_turn(agent, FACT, user_id=USER, customer_id=CUSTOMER, session="s1")
        await settle(agent)
        jobs = agent.queue.jobs(limit=10) if agent.queue else []
        assert jobs and {(j.user_id, j.customer_id) for j in jobs} == {(USER, CUSTOMER)}
        facts = agent.store.search(namespace(USER, CUSTOMER, "facts"), limit=10)
        assert any("3 million" in i.value["content"] for i in facts)
        assert {scope_of(i.namespace) for i in facts} == {(USER, CUSTOMER, "facts")}
        result = await arun_turn(agent, QUESTION, user_id=USER, customer_id=CUSTOMER, session="s2")
        assert any("3 million" in r["content"] for r in result.recalled), result.recalled
        other = await arun_turn(agent, QUESTION, user_id="john", customer_id=CUSTOMER)
        assert other.recalled == []
        listed = memory_ops.list_memories(agent.store, USER)
        assert {(r["user_id"], r["customer_id"]) for r in listed} == {(USER, CUSTOMER)}
        sessions = [r for r in await list_sessions(settings) if r["user_id"] == USER]
        assert {(r["session"], r["customer_id"]) for r in sessions} == {
            ("s1", CUSTOMER),
            ("s2", CUSTOMER),
        }
        report = await asyncio.to_thread(  # the sessions hook runs its own event loop
            memory_ops.forget,
            agent.store,
            USER,
            jobs=agent.queue,
            delete_sessions=lambda u, c: asyncio.run(delete_sessions(u, c, settings=settings)),
        )
        assert report["customers"] == [CUSTOMER] and report["remaining"] == 0
        assert report["sessions"] == 2 and report["removed"]["facts"] >= 1
        assert memory_ops.list_memories(agent.store, "john", CUSTOMER, status=None) == []


async def test_studio_factories_take_dotted_ids_in_the_context(
    settings: Settings, model: ScriptedChatModel
) -> None:
    """What ``langgraph dev`` runs: langgraph.json's store and checkpointer, the graph
    compiled with them, and the assistant's context naming the user and customer."""
    graph_builder = build_default_graph(settings, chat_model_factory=factory(model))
    context = Context(user_id=USER, customer_id=CUSTOMER)
    async with checkpointer_factory(settings) as saver, studio_store(settings) as store:
        graph = graph_builder.compile(checkpointer=saver, store=store)
        for thread, text in (("t1", FACT), ("t2", QUESTION)):
            config: Any = {"configurable": {"thread_id": thread}}
            await graph.ainvoke({"messages": [HumanMessage(text)]}, config, context=context)
            queue = JobQueue(settings.jobs_path)
            for _ in range(400):  # the in-process worker of studio_store applies the job
                if not queue.outstanding():
                    break
                await asyncio.sleep(0.05)
            queue.close()
        state = (await graph.aget_state({"configurable": {"thread_id": "t2"}})).values
    items = state["recall_trace"]["items"]
    assert any("3 million" in i["content"] for i in items), items
