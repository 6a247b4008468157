"""What the product relies on from its session backend, run on SQLite and PostgreSQL.

One suite over both (``MEMAGENT_DATABASE_URL`` unset, or a fresh PostgreSQL database):
turns are checkpointed with their scope, sessions are listed, shown and forgotten
through the checkpointer's public API, a session belongs to one user and customer,
turns of one session from two agents (two processes' worth of connections, locks and
checkpointers) are serialised, the end of a turn enqueues its job in that backend's
outbox, and the CRM keeps its records there. Real LangGraph, real checkpointers, the
embedded store on disk with hash embeddings; the chat model is scripted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from memagent.core.settings import Settings
from memagent.graph.agent import (
    SessionScopeError,
    aopen_agent,
    arun_turn,
    delete_sessions,
    list_sessions,
    session_state,
)
from memagent.graph.jobs import open_queue
from memagent.memory.crm import new_customer, open_crm

BACKENDS = ["sqlite", "postgres"]


class Echo(GenericFakeChatModel):
    """Answers ``re: <the user's message>`` after yielding to the event loop."""

    delay_s: float = 0.05

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        await asyncio.sleep(self.delay_s)
        asked = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(f"re: {asked.text}"))])


@pytest.fixture(params=BACKENDS)
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    url = None
    if request.param == "postgres":
        url = request.getfixturevalue("pg_url")
    return Settings(
        home=tmp_path,
        embedder="hash",
        extractor="rules",
        rewriter="rules",
        worker="external",
        store_shared=True,
        database_url=url,
    )


def _agent(settings: Settings, delay_s: float = 0.05) -> Any:
    model = Echo(messages=iter(()), delay_s=delay_s)
    return aopen_agent(settings, chat_model_factory=lambda s=None, *, small=False: model)


Turn = Callable[..., Any]


async def test_turns_are_listed_shown_and_scoped(settings: Settings) -> None:
    async with _agent(settings) as agent:
        a = await arun_turn(agent, "Hello there", user_id="alice", customer_id="acme")
        await arun_turn(agent, "Budget is 2 million", user_id="alice", customer_id="acme",
                        session=a.session)  # fmt: skip
        b = await arun_turn(agent, "Hi globex", user_id="bob", customer_id="globex")
        with pytest.raises(SessionScopeError):
            await arun_turn(agent, "Let me in", user_id="bob", customer_id="acme",
                            session=a.session)  # fmt: skip
    rows = {r["session"]: r for r in await list_sessions(settings)}
    assert set(rows) == {a.session, b.session}
    assert (rows[a.session]["user_id"], rows[a.session]["customer_id"]) == ("alice", "acme")
    assert rows[a.session]["turns"] == 2 and rows[a.session]["last"] == "Budget is 2 million"
    state = await session_state(a.session, settings)
    assert state is not None
    assert [str(m.text) for m in state["messages"]] == [
        "Hello there", "re: Hello there", "Budget is 2 million", "re: Budget is 2 million",
    ]  # fmt: skip
    assert await session_state("nosuchsession", settings) is None


async def test_forget_deletes_only_that_scope(settings: Settings) -> None:
    async with _agent(settings) as agent:
        kept = await arun_turn(agent, "hello", user_id="alice", customer_id="globex")
        gone = [
            (await arun_turn(agent, f"hello {i}", user_id="alice", customer_id="acme")).session
            for i in range(2)
        ]
        other = await arun_turn(agent, "hello", user_id="bob", customer_id="acme")
    assert await delete_sessions("alice", "acme", settings=settings) == 2
    left = {r["session"] for r in await list_sessions(settings)}
    assert left == {kept.session, other.session}
    assert [await session_state(s, settings) for s in gone] == [None, None]
    assert await delete_sessions("alice", settings=settings) == 1
    assert {r["session"] for r in await list_sessions(settings)} == {other.session}


async def test_two_agents_serialise_turns_of_one_session(settings: Settings) -> None:
    """Two agents on one backend (their own checkpointer, pools and locks, as two
    processes have) take turns of one session at once: each reply follows its own
    message, none is lost."""
    async with _agent(settings, 0.2) as one, _agent(settings, 0.2) as two:
        texts = [f"message {i}" for i in range(6)]
        results = await asyncio.gather(
            *(
                arun_turn(agent, text, user_id="alice", customer_id="acme", session="shared")
                for agent, text in zip([one, two] * 3, texts, strict=True)
            )
        )
        assert sorted(r.turn for r in results) == list(range(1, 7))
    state = await session_state("shared", settings)
    assert state is not None
    pairs = [(m.type, str(m.text)) for m in state["messages"]]
    assert len(pairs) == 12, pairs
    for (kind, text), (reply_kind, reply) in zip(pairs[::2], pairs[1::2], strict=True):
        assert (kind, reply_kind) == ("human", "ai") and reply == f"re: {text}", pairs
    assert sorted(text for kind, text in pairs if kind == "human") == texts


async def test_a_turn_enqueues_its_job_in_the_backends_outbox(settings: Settings) -> None:
    async with _agent(settings) as agent:
        r = await arun_turn(agent, "Our budget is $2 million.", user_id="alice",
                            customer_id="acme")  # fmt: skip
    queue = open_queue(settings)
    try:
        jobs = queue.jobs(limit=10)
        assert [(j.thread_id, j.user_id, j.customer_id) for j in jobs] == [
            (r.session, "alice", "acme")
        ]
        assert "Our budget is $2 million." in [t.content for t in jobs[0].turns]
    finally:
        queue.close()


def test_crm_records_are_shared_by_every_opener(settings: Settings) -> None:
    one, two = open_crm(settings.crm_location), open_crm(settings.crm_location)
    try:
        assert [c.id for c in one.customers()] == ["acme", "globex", "initech", "lanhai"]
        one.add(new_customer("huaxin.com", name="华信", deal_size=5))
        assert two.customer("huaxin.com").name == "华信"
        with pytest.raises(Exception, match="already in the CRM"):
            two.add(new_customer("huaxin.com", name="again"))
        first = one.log_commitment("alice", "acme", "send the quote", "2026-12-04")
        second = two.log_commitment("alice", "acme", "call legal", "2026-12-01")
        assert first.id != second.id
        assert [c.description for c in one.open_commitments("alice", "acme")] == [
            "call legal", "send the quote",
        ]  # fmt: skip
    finally:
        one.close()
        two.close()


def test_doctor_names_each_parts_backend_and_reaches_it(settings: Settings) -> None:
    from memagent.graph.doctor_backends import backend_rows

    rows = {name: (status, detail) for name, status, detail in backend_rows(settings)}
    assert set(rows) == {"sessions", "job outbox", "crm"}
    kind = "PostgreSQL" if settings.database_dsn else "SQLite"
    for status, detail in rows.values():
        assert status == "ok" and detail.startswith(kind), rows
    if settings.database_dsn:
        assert "PostgreSQL 1" in detail  # the server answered with its version


def test_jobs_status_names_the_outbox_without_its_password(settings: Settings) -> None:
    from memagent.graph.cli_jobs import status_report

    queue = open_queue(settings)
    try:
        report = status_report(queue, limit=5)
    finally:
        queue.close()
    assert report["counts"]["pending"] == 0
    where = settings.database_dsn or str(settings.jobs_path)
    assert report["path"] == where  # the test URL has no password to hide
