"""The adapter against the real local llama.cpp server and the bundled Qwen model.

Assertions are about behaviour the product relies on (a reply, a valid structured
object, the obvious tool, server reuse), not about exact wording.
"""

from __future__ import annotations

import os
from typing import Literal

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from memagent.core.settings import Settings
from memagent.llm import server as llm_server
from memagent.llm.adapter import achoose_tool, aforce_tool_call, astructured, chat_model

pytestmark = [pytest.mark.llm, pytest.mark.slow]
ONE_LOOP = pytest.mark.asyncio(loop_scope="module")
"""langchain-openai caches its async HTTP client per endpoint, bound to the first event
loop that used it: the async tests against the one local server share one loop."""


@tool
def lookup_customer(name: str) -> str:
    """Look up a customer account (contacts, stage, deal size) by company name."""
    return name


@tool
def log_commitment(customer: str, what: str, due: str) -> str:
    """Log a commitment or follow-up for a customer with a due date (YYYY-MM-DD)."""
    return what


@tool
def draft_email(customer: str, topic: str) -> str:
    """Draft a follow-up email to a customer about a topic."""
    return topic


TOOLS = [lookup_customer, log_commitment, draft_email]


class Deal(BaseModel):
    customer: str = Field(max_length=60)
    budget_usd: int
    stage: Literal["prospect", "demo", "negotiation", "closed"]
    contacts: list[str] = Field(max_length=3)


def test_plain_chat_reply(llm_settings: Settings) -> None:
    reply = chat_model(llm_settings).invoke(
        [
            SystemMessage("You are a terse assistant."),
            HumanMessage("Reply with exactly one word: pong"),
        ]  # fmt: skip
    )
    assert "pong" in reply.text.lower()
    assert reply.usage_metadata and reply.usage_metadata["output_tokens"] > 0


def test_streaming_reply(llm_settings: Settings) -> None:
    chunks = list(chat_model(llm_settings, max_tokens=16).stream("Count: one, two, three,"))
    assert len(chunks) > 1 and "".join(c.text for c in chunks).strip()


def test_tool_turns_in_history_are_accepted(llm_settings: Settings) -> None:
    """ChatOpenAI sends None content for tool-call turns; the server must not reject it."""
    history = [
        HumanMessage("What stage is Acme in?"),
        AIMessage(
            "", tool_calls=[{"name": "lookup_customer", "args": {"name": "Acme"}, "id": "call_1"}]
        ),  # fmt: skip
        ToolMessage("Acme Corp: stage negotiation, deal 120000 USD", tool_call_id="call_1"),
    ]
    reply = chat_model(llm_settings, max_tokens=16).invoke(history)
    # Raw tool turns are only checked for acceptance: the llm node renders tool
    # exchanges as plain text for the reply, which small models handle better.
    assert reply.text.strip()


@ONE_LOOP
async def test_structured_returns_a_valid_object(llm_settings: Settings) -> None:
    deal = await astructured(
        chat_model(llm_settings, temperature=0),
        [
            SystemMessage("Extract the deal as JSON."),
            HumanMessage(
                "Acme Corp is in negotiation with a budget of 50000 USD. "
                "We talk to Jane Doe and Raj Patel."
            ),
        ],  # fmt: skip
        Deal,
    )
    assert "acme" in deal.customer.lower()
    assert deal.budget_usd == 50000
    assert deal.stage == "negotiation"
    assert len(deal.contacts) <= 3


@ONE_LOOP
async def test_choose_tool_picks_the_obvious_tool(llm_settings: Settings) -> None:
    call = await achoose_tool(chat_model(llm_settings), "Look up the Globex account for me.", TOOLS)
    assert call is not None and call["name"] == "lookup_customer"
    assert "globex" in call["args"]["name"].lower()


@ONE_LOOP
async def test_forced_tool_call_fills_the_schema(llm_settings: Settings) -> None:
    call = await aforce_tool_call(
        chat_model(llm_settings, temperature=0),
        [HumanMessage("Remind me to send Initech the pricing deck by 2026-12-04.")],
        log_commitment,
    )
    assert call["name"] == "log_commitment"
    assert set(call["args"]) == {"customer", "what", "due"}
    assert "initech" in call["args"]["customer"].lower()


def test_second_start_reuses_the_running_server(llm_settings: Settings) -> None:
    url = llm_server.ensure_local_server(llm_settings)
    path = next((llm_settings.home / "llm").glob("server-*.json"))
    before = llm_server.read_state(path)
    assert before is not None and before.base_url == url
    assert llm_server.ensure_local_server(llm_settings) == url
    with llm_server.LocalServer(llm_settings) as again:  # as another caller would
        assert again.reused and again.base_url == url
        assert again.state is not None and again.state.pid == before.pid
    after = llm_server.read_state(path)
    assert after is not None and after.pid == before.pid
    assert llm_server.pid_alive(before.pid) and os.getpid() in after.clients


def test_the_session_serves_the_machine_copy_of_the_model(llm_settings: Settings) -> None:
    """One assembled copy per machine (the model cache), none per home or per session."""
    state = llm_server.read_state(next((llm_settings.home / "llm").glob("server-*.json")))
    assert state is not None
    assert state.model == str(llm_settings.model_dir / llm_server.MODEL_FILENAME)
    assert llm_server.is_verified(llm_settings.model_dir / llm_server.MODEL_FILENAME)
    assert not (llm_settings.home / "models").exists()
