"""Bad input anywhere, fuzzed: the CLI and the graph never crash and never lose a memory.

Over the CLI (``CliRunner`` against the fake OpenAI server, hash embeddings, the real
store, checkpointer and outbox) and over the graph (``arun_turn`` with a scripted model):
empty, whitespace, 1 MB, control-character, lone-surrogate and CJK/emoji messages; odd
user, customer and session ids; router/rewriter calls answered with JSON of the wrong
shape; tool calls with invalid arguments. The property: no traceback, either exit 0 with
a reply or a non-zero exit with one clear line on stderr (the graph: a ``TurnResult`` or
one of the documented input errors), and a memory stored before the run is still there.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from typer.testing import CliRunner

from memagent.core.settings import Settings
from memagent.graph.agent import (
    MAX_MESSAGE_CHARS,
    InvalidMessageError,
    SessionScopeError,
    aopen_agent,
    arun_turn,
    settle,
)
from memagent.graph.cli import app
from memagent.memory.crm import UnknownScopeError
from memagent.memory.namespaces import InvalidScopeError, namespace

UNANTICIPATED = re.compile(r"error: \w+(Error|Exception|Warning)\b")
SEED = "Our budget for the CRM rollout is $3 million."
# Each example opens the store, checkpointer and outbox (about half a second): the whole
# file stays under a minute on a shared machine.
HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
FUZZ = settings(max_examples=12, deadline=None, suppress_health_check=HEALTH)
FUZZ_CLI = settings(max_examples=9, deadline=None, suppress_health_check=HEALTH)
FUZZ_FEW = settings(max_examples=6, deadline=None, suppress_health_check=HEALTH)

# -- strategies -------------------------------------------------------------------------------

ODD_IDS = st.one_of(
    st.sampled_from(
        [
            "u1",
            "u10",
            "%",
            "_",
            "*",
            "a b",
            "a.b",
            "..",
            "销售张三",
            "",
            " ",
            "x" * 500,
            "u\x00",
            "u\udc80",
        ]
    ),
    st.text(alphabet="%_*. -中文ab1\u3000", min_size=0, max_size=40),
)
TOOL_HINTED = st.sampled_from(
    ["Please draft an email about ", "Log a commitment: ", "Who is the contact person? ", "跟进"]
)
MESSAGES = st.one_of(
    st.just(""),
    st.text(alphabet=" \t\n\r\u3000\u00a0", max_size=30),
    st.text(max_size=300),
    st.text(st.characters(categories=["Cc", "Cs", "Co", "Lo", "So"]), min_size=1, max_size=80),
    st.sampled_from(["\ud800", "ok \udfff end", "预算是300万元 🚀🎉", "\x00\x1b[31mred\x07"]),
    st.tuples(TOOL_HINTED, st.text(max_size=60)).map("".join),
    st.integers(MAX_MESSAGE_CHARS + 1, 1_000_000).map(lambda n: "a" * n),
)
BAD_ROUTES: list[Any] = [
    "garbage {not json",
    [1, 2, 3],
    None,
    {},
    {"tool": 5},
    {"tool": "log_commitment", "args": "not an object"},
    {"tool": "log_commitment", "args": {"due_date": "someday", "description": ""}},
    {"tool": "no_such_tool", "args": {}},
    {"tool": "none", "args": {}},
]
SESSIONS = st.one_of(st.none(), st.sampled_from(["s1", "unknown-session", "%_*", "会话 1"]))

# -- the CLI ----------------------------------------------------------------------------------


@pytest.fixture
def env(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MEMAGENT_REWRITER", "llm")  # one more structured call to break
    yield cli_env


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def assert_clean(result: Any) -> None:
    """Exit 0 with a JSON reply, or a non-zero exit with one line on stderr; no traceback."""
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, f"unhandled {result.exception!r}\n{result.stderr}"
    if result.exit_code == 0:
        assert isinstance(json.loads(result.stdout)["reply"], str)
        return
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and lines[0].startswith("error:"), result.stderr
    # Not the CLI's fallback for an exception nobody anticipated ("error: KeyError: ...").
    assert not UNANTICIPATED.match(lines[0]), result.stderr


def memories(user: str, customer: str) -> list[str]:
    result = run("memories", "list", "--user", user, "--customer", customer, "--json")
    assert result.exit_code == 0, result.output + result.stderr
    return [row["content"] for row in json.loads(result.stdout)]


@FUZZ_CLI
@given(
    message=MESSAGES,
    user=st.one_of(st.just("alice"), ODD_IDS),
    customer=st.one_of(st.just("acme"), ODD_IDS),
    session=SESSIONS,
    route=st.sampled_from(BAD_ROUTES),
)
@example(message="\ud800", user="alice", customer="acme", session=None, route="garbage")
@example(message="x" * MAX_MESSAGE_CHARS, user="alice", customer="acme", session=None, route=None)
@example(message="draft an email", user="alice", customer="acme", session="s1", route=[1])
def test_cli_ask_survives_bad_input(
    env: Path,
    fake_llm: FakeOpenAI,
    message: str,
    user: str,
    customer: str,
    session: str | None,
    route: Any,
) -> None:
    if not getattr(fake_llm, "seeded", False):
        added = run("memories", "add", SEED, "--user", "alice", "--customer", "acme", "--json")
        assert added.exit_code == 0 and json.loads(added.stdout)["stored"], added.output
        fake_llm.seeded = True  # type: ignore[attr-defined]
    fake_llm.route = route
    # "--opt=value" and "--": a value that starts with "-" is data, not an option.
    args = ["ask", f"--user={user}", f"--customer={customer}", "--json"]
    args += [f"--session={session}"] if session else []
    assert_clean(run(*args, "--", message))
    assert any("3 million" in m for m in memories("alice", "acme"))


@FUZZ_FEW
@given(session=st.one_of(SESSIONS.filter(bool), st.text(max_size=50)), user=ODD_IDS)
@example(session="s\udc80", user="alice")
def test_cli_unknown_sessions_are_clear_errors(env: Path, session: str, user: str) -> None:
    for args in (
        ["ask", "--retry", f"--session={session}", f"--user={user}", "--customer=acme", "--json"],
        ["sessions", "show", "--", session],
    ):
        result = run(*args)
        if result.exit_code == 0:  # only "sessions show" of a session that exists
            assert args[0] == "sessions" and json.loads(result.stdout) is not None
            continue
        crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
        assert not crashed, f"unhandled {result.exception!r}"
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
        assert not UNANTICIPATED.match(lines[0]), result.stderr


# -- the graph --------------------------------------------------------------------------------

INPUT_ERRORS = (InvalidMessageError, InvalidScopeError, UnknownScopeError, SessionScopeError)
BAD_TOOL_CALLS = [
    {"name": "log_commitment", "args": {}},
    {"name": "log_commitment", "args": {"description": 5, "due_date": "not-a-date"}},
    {"name": "draft_followup_email", "args": {"topic": None}},
    {"name": "search_memory", "args": {"query": "\ud800" * 3}},
    {"name": "no_such_tool", "args": {"x": 1}},
]


def script() -> GenericFakeChatModel:
    """Replies that alternate an invalid tool call with a plain answer, forever."""

    def replies() -> Iterator[AIMessage]:
        for n, call in enumerate(itertools.cycle(BAD_TOOL_CALLS)):
            yield AIMessage("", tool_calls=[{**call, "id": f"call_{n}"}])  # type: ignore[typeddict-item]
            yield AIMessage(f"answer {n}")

    return GenericFakeChatModel(messages=replies())


@FUZZ
@given(
    message=MESSAGES,
    user=st.one_of(st.just("alice"), ODD_IDS),
    session=st.one_of(st.none(), st.sampled_from(["g1", "g2", "%", "会话", "g\udc80"])),
)
@example(message="hello", user="u\udc80", session=None)
@example(message="hello", user="alice", session="g\udc80")
def test_graph_turns_survive_bad_input(
    tmp_path: Path, message: str, user: str, session: str | None
) -> None:
    settings_ = Settings(home=tmp_path, embedder="hash", extractor="rules", rewriter="rules")
    model = script()

    async def go() -> None:
        async with aopen_agent(
            settings_, chat_model_factory=lambda settings=None, *, small=False: model
        ) as agent:
            facts = namespace("alice", "acme", "facts")
            if not agent.store.search(facts, limit=5):
                await arun_turn(agent, SEED, user_id="alice", customer_id="acme", session="seed")
                await settle(agent)
            before = [i.key for i in agent.store.search(facts, limit=50)]
            assert before
            try:
                result = await arun_turn(
                    agent, message, user_id=user, customer_id="acme", session=session
                )
            except INPUT_ERRORS as exc:
                assert str(exc).strip()
            else:
                assert isinstance(result.reply, str) and result.turn >= 1
            await settle(agent)
            after = {i.key for i in agent.store.search(facts, limit=50)}
            assert set(before) <= after

    asyncio.run(go())
