"""Issue 14, end to end from the message to recall: the real outbox (SQLite), the real
worker with the rules extractor, the real embedded Qdrant store, then the agent's recall.

- A hedged amount ("大概300万", "about 3 million") is a confirmed fact with an approximate
  value: recalled like any fact, never labelled unconfirmed.
- What the speaker marks as uncertain ("可能", "maybe") is pending until a second
  mention, and recalled meanwhile, labelled unconfirmed.
- A broad question about the account brings its key current facts, whatever the wording.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memagent.graph.jobs import JobQueue, Turn
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker
from memagent.nodes.prompt_assembly import format_briefing
from memagent.nodes.recall import RecallResult, recall_memories
from memagent.stores import open_store


class Notes:
    """User messages submitted as the agent does (one job each), drained by the worker."""

    def __init__(self, queue: JobQueue, store: Any) -> None:
        self.queue, self.store = queue, store
        self.worker = Worker(queue, store, profile=True)
        self.n = 0

    def say(self, customer: str, text: str, at: str = "2026-11-12T10:00:00+08:00") -> None:
        self.n += 1
        turn = Turn("user", text, f"m{self.n}", at)
        self.queue.submit(
            thread_id=f"t-{customer}", user_id="u1", customer_id=customer, turns=[turn]
        )
        self.worker.drain()

    def recall(self, customer: str, question: str) -> RecallResult:
        return recall_memories(self.store, "u1", customer, question, new_session=True)


@pytest.fixture
def notes(tmp_path: Path) -> Iterator[Notes]:
    settings = Settings(home=tmp_path, embedder="hash", extractor="rules")
    queue = JobQueue(tmp_path / "jobs.sqlite")
    with open_store(settings.resolved_store_location(), settings=settings) as store:
        yield Notes(queue, store)
    queue.close()


def _recalled(result: RecallResult) -> str:
    return " | ".join(f"{getattr(i, 'status', 'active')}:{i.content}" for i in result.items)


def test_uncertain_fact_is_recalled_labelled_unconfirmed(notes: Notes) -> None:
    notes.say("dongfang", "东方集团的预算可能是500万，还不确定。")
    notes.say("initech", "The decision maker might be Zhang Min.")
    result = notes.recall("dongfang", "东方集团的预算是多少？")
    held = [i for i in result.items if "500万" in i.content]
    assert held and all(i.status == "unconfirmed" for i in held), _recalled(result)
    assert held[0].origin == "pending"
    briefing, _ = format_briefing(result.briefing(), max_tokens=500)
    assert '500万" (unconfirmed' in briefing, briefing
    english = notes.recall("initech", "Who is the decision maker at Initech?")
    assert any("Zhang Min" in i.content and i.status == "unconfirmed" for i in english.items), (
        _recalled(english)
    )
    # an unrelated question does not bring the pending guesses
    unrelated = notes.recall("dongfang", "Which CRM do they use today?")
    assert not any(i.status == "unconfirmed" for i in unrelated.items), _recalled(unrelated)


def test_hedged_amount_is_a_confirmed_fact_in_recall(notes: Notes) -> None:
    notes.say(
        "huaxin",
        "华信科技的采购负责人是王芳，项目预算大概300万，必须私有化部署，下个月15号之前要报价。",
    )
    notes.say("globex", "Globex has a budget of about 3 million USD for the rollout.")
    zh = notes.recall("huaxin", "华信的预算是多少？谁负责采购？")
    budget = [i for i in zh.items if "300万" in i.content]
    assert budget and budget[0].status == "active", _recalled(zh)
    assert any("王芳" in i.content for i in zh.items), _recalled(zh)
    en = notes.recall("globex", "What is Globex's budget?")
    budget = [i for i in en.items if "3 million" in i.content]
    assert budget and budget[0].status == "active", _recalled(en)
    briefing, _ = format_briefing(en.briefing(), max_tokens=500)
    assert "(unconfirmed" not in briefing and "3 million" in briefing, briefing


ACME = (
    "Met with Acme Logistics today. Their CTO Li Wei is the decision maker. Budget is "
    "1.2 million CNY for the fleet-tracking rollout, decision by end of March. He hates "
    "phone calls, email only.",
    "They currently use Salesforce and were quoted 900k by a competitor. They need SSO with Okta.",
    "The warehouse team complained about the old scanners again.",
    "Lunch with the ops team was nice, they like the new office.",
    "Weekly sync covered the pilot logistics and parking at the depot.",
)


@pytest.mark.parametrize(
    "question",
    [
        "What do you know about Acme?",
        "tell me about this customer",
        "brief me before the call",
        "Catch me up on Acme Logistics",
        "Give me an overview of the account",
        "介绍一下这个客户",
        "这个客户什么情况？",
        "打电话之前帮我梳理一下",
    ],
)
def test_broad_question_brings_the_key_facts(notes: Notes, question: str) -> None:
    for text in ACME:
        notes.say("acme", text, "2026-11-03T10:00:00+08:00")
    result = notes.recall("acme", question)
    text = _recalled(result).lower()
    for needle in ("1.2 million", "decision maker", "2027-03-31", "okta", "email"):
        assert needle in text, (needle, text)
