"""query_rewrite: each implementation opens the turn and writes a standalone query."""

from __future__ import annotations

import pytest
from graph_fakes import FailingChatModel, runtime, scripted
from langchain_core.messages import AIMessage, HumanMessage

from memagent.core.state import State, add_notes
from memagent.nodes.query_rewrite import make_rewriter, needs_context, rules_query


def _state(*texts: str, turn: int = 0) -> State:
    msgs = [HumanMessage(t) if i % 2 == 0 else AIMessage(t) for i, t in enumerate(texts)]
    return State(messages=msgs, turn=turn, degraded=["store"])


async def test_rules_opens_the_turn() -> None:
    node = make_rewriter("rules", small_model=lambda: scripted("unused"))
    update = await node(
        _state("What is Acme's budget for the rollout this year?", turn=3), runtime()
    )
    assert update["turn"] == 4
    assert len(update["trace_id"]) == 16
    assert add_notes(["store"], update["degraded"]) == []  # last turn's notes are cleared
    assert "budget" in update["query"].lower()


async def test_rules_adds_the_previous_turn_to_a_pronoun_message() -> None:
    node = make_rewriter("rules", small_model=lambda: scripted("unused"))
    state = _state("Acme wants SSO with Okta before signing.", "Noted.", "Is it done?")
    update = await node(state, runtime())
    assert "Okta" in update["query"]


def test_rules_adds_working_memory_terms_only_when_needed() -> None:
    working = {"facts": {"budget": {"value": "budget 3M USD"}}}
    assert "3M" in rules_query("那个呢?", [], working)
    long = "Please prepare the renewal proposal for Initech with three pricing options."
    assert "3M" not in rules_query(long, [], working)


def test_needs_context() -> None:
    assert needs_context("上次说的那个")
    assert needs_context("ok")
    assert not needs_context("Please prepare the renewal proposal for Initech with options.")


async def test_llm_rewriter_uses_the_small_model() -> None:
    model = scripted("acme sso okta deadline")
    node = make_rewriter("llm", small_model=lambda: model)
    update = await node(_state("Acme wants SSO.", "ok", "when is it due?"), runtime())
    assert update["query"] == "acme sso okta deadline"
    assert "when is it due?" in model.seen[0][0].text
    assert add_notes(["store"], update["degraded"]) == []


async def test_llm_rewriter_falls_back_to_rules_when_the_model_fails() -> None:
    node = make_rewriter("llm", small_model=lambda: FailingChatModel(messages=iter([])))
    update = await node(_state("Budget for Acme is 3 million dollars this year."), runtime())
    assert "budget" in update["query"].lower()
    assert add_notes(["store"], update["degraded"]) == ["rewriter"]
    assert update["turn"] == 1


async def test_off_passes_the_message_through() -> None:
    node = make_rewriter("off", small_model=lambda: scripted("unused"))
    update = await node(_state("  hello there  "), runtime())
    assert update["query"] == "hello there"


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown rewriter"):
        make_rewriter("magic", small_model=lambda: scripted("x"))  # type: ignore[arg-type]
