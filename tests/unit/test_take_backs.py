"""Take-backs as a user says them: "forget what I just said", "scratch that", "作废",
"剛才講嘅唔算" close what the message before left (pending facts too) and store nothing
themselves, through the agent's own turn, outbox and worker; facts about the customer
that use the same words ("the customer scrapped the old plan") are kept as facts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import factory, memory_store, scripted

from memagent.core.types import Turn
from memagent.graph.agent import Agent, aopen_agent, arun_turn
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker
from memagent.memory.extract_corrections import retracts_previous
from memagent.memory.extractors import LLMExtractor
from memagent.memory.namespaces import namespace
from memagent.memory.write_retract import RETRACTION

USER, CUSTOMER = "alice", "acme"

TAKE_BACKS = [
    "forget what I just said",
    "Scratch that.",
    "disregard my last message",
    "ignore the previous note, it was wrong",
    "Never mind what I just said, I was wrong.",
    "刚才说的不算",
    "上一条作废",
    "作废",
    "撤回",
    "剛才講嘅唔算",
    "上一則作廢",
]
FACTS = [
    "the customer scrapped the old plan",
    "他们把旧合同作废了",
    "Budget 1.2M - scratch that, 1.5M.",
    "Scratch that, the budget is 1.5M.",
    "forget what I just said, the budget is 1.5M",
    "撤回报价单，下周重新报",
    "作废的合同要重新签",
    "never mind",
    "Forget it.",
]


@pytest.mark.parametrize("text", TAKE_BACKS)
def test_a_take_back_in_either_language_is_read_as_one(text: str) -> None:
    assert retracts_previous(text) is True


@pytest.mark.parametrize("text", FACTS)
def test_the_same_words_in_a_fact_or_a_reply_take_nothing_back(text: str) -> None:
    assert retracts_previous(text) is False


def _settings(home: Path) -> Settings:
    # the worker runs here, between turns, not in a thread racing the assertions
    return Settings(home=home, embedder="hash", extractor="rules", rewriter="rules",
                    worker="external")  # fmt: skip


async def _say(agent: Agent, *texts: str) -> None:
    for text in texts:
        await arun_turn(agent, text, user_id=USER, customer_id=CUSTOMER, session="s1")
        assert agent.queue is not None
        Worker.for_settings(agent.settings, queue=agent.queue, store=agent.store).drain()


def _facts(agent: Agent, status: str) -> list[dict[str, Any]]:
    ns = namespace(USER, CUSTOMER, "facts")
    return [dict(i.value) for i in agent.store.search(ns, filter={"status": status}, limit=500)]


def _episodes(agent: Agent) -> dict[str, str]:
    ns = namespace(USER, CUSTOMER, "episodes")
    return {str(i.value["content"]): str(i.value["status"])
            for i in agent.store.search(ns, limit=500) if "content" in i.value}  # fmt: skip


FIRST = {
    "en": ("Acme's budget is 1.2 million USD and Li Wei is the decision maker.", "1.2 million"),
    "zh": ("华信的预算是300万，采购负责人是王芳。", "300万"),
}


@pytest.mark.parametrize(
    ("lang", "take_back"),
    [("en", "forget what I just said"), ("en", "Scratch that."), ("zh", "刚才说的不算"),
     ("zh", "作废"), ("zh", "剛才講嘅唔算"), ("zh", "上一則作廢")],
)  # fmt: skip
async def test_a_take_back_through_the_agent_closes_what_the_last_message_left(
    tmp_path: Path, lang: str, take_back: str
) -> None:
    first, value = FIRST[lang]
    model = factory(scripted("Noted."))
    async with aopen_agent(_settings(tmp_path), chat_model_factory=model,
                           store=memory_store()) as agent:  # fmt: skip
        await _say(agent, "We had a call with the customer today.", first)
        assert any(value in str(f["content"]) for f in _facts(agent, "active"))
        await _say(agent, take_back)
        active = [str(f["content"]) for f in _facts(agent, "active")]
        closed = [str(f["content"]) for f in _facts(agent, "deprecated")]
        episodes = _episodes(agent)
    assert not [a for a in active if value in a], active
    assert any(value in c for c in closed), closed  # closed, history kept
    assert not [a for a in active if take_back.strip(".") in a], active
    assert episodes[first] == "outdated" and episodes[take_back] == "outdated"
    assert episodes["We had a call with the customer today."] == "active"


@pytest.mark.parametrize("take_back", ["Scratch that, wrong account.", "scratch that", "作废"])
async def test_a_take_back_drops_the_unconfirmed_facts_of_the_message(
    tmp_path: Path, take_back: str
) -> None:
    model = factory(scripted("Noted."))
    async with aopen_agent(_settings(tmp_path), chat_model_factory=model,
                           store=memory_store()) as agent:  # fmt: skip
        await _say(agent, "Acme might have a budget of 2 million, not sure yet.")
        pending = [f for f in _facts(agent, "archived") if "2 million" in str(f["content"])]
        assert pending, _facts(agent, "archived")
        await _say(agent, take_back)
        assert not [f for f in _facts(agent, "archived") if "2 million" in str(f["content"])]
        # a later firm mention is a first mention again, not a confirmation of the guess
        await _say(agent, "Acme might have a budget of 2 million.")
        again = [f for f in _facts(agent, "archived") if "2 million" in str(f["content"])]
        assert again and not [
            f for f in _facts(agent, "active") if "2 million" in str(f["content"])
        ]


async def test_a_fact_in_take_back_words_is_stored(tmp_path: Path) -> None:
    model = factory(scripted("Noted."))
    async with aopen_agent(_settings(tmp_path), chat_model_factory=model,
                           store=memory_store()) as agent:  # fmt: skip
        await _say(agent, "Acme's budget is 1.2 million USD.",
                   "Forget what I just said, the budget is 1.5 million USD.")  # fmt: skip
        active = [str(f["content"]) for f in _facts(agent, "active")]
    assert any("1.5 million" in a for a in active), active
    assert not [a for a in active if "1.2 million" in a], active


@pytest.mark.parametrize("hybrid", [True, False])
@pytest.mark.parametrize(
    "text", ["作废", "forget what I just said", "Scratch that, wrong account."]
)
async def test_the_llm_extractor_sends_a_take_back_and_not_a_fact(text: str, hybrid: bool) -> None:
    # a model that makes up a note for the take-back
    note = "They prefer quarterly invoicing over monthly."
    said = json.dumps({"memories": [{"content": note, "attribute": "note", "value": note}]})
    extractor = LLMExtractor(scripted(said), hybrid=hybrid)
    got = await extractor([Turn("user", text, "m2", "2026-11-03T10:00:00+08:00")])
    assert [c.attribute for c in got.candidates] == [RETRACTION], got
