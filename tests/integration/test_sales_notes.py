"""Issue 14's sales notes, end to end: the real outbox (SQLite), the real worker with
the rules extractor, the real embedded Qdrant store; message times carried by ``Turn.at``.

Each note must leave every salient fact as an active (confirmed) memory, with dates
resolved from the message time; deadlines of different things must not supersede
each other, while a correction of a single-valued attribute must.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memagent.graph.jobs import JobQueue, Turn
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker
from memagent.memory.namespaces import namespace
from memagent.stores import open_store


class Notes:
    """Submit user messages as the agent does (one job per message) and drain them."""

    def __init__(self, queue: JobQueue, store: Any) -> None:
        self.queue, self.store = queue, store
        self.worker = Worker(queue, store, profile=False)
        self.n = 0

    def say(self, customer: str, text: str, at: str) -> None:
        self.n += 1
        self.queue.submit(
            thread_id=f"t-{customer}",
            user_id="u1",
            customer_id=customer,
            turns=[Turn("user", text, f"m{self.n}", at)],
            urgent=True,
        )
        self.worker.drain()

    def memories(self, customer: str, *, status: str = "active") -> list[dict[str, Any]]:
        items = self.store.search(namespace("u1", customer, "facts"), limit=1000)
        if status == "pending":
            return [i.value for i in items if i.key.startswith("pending")]
        return [i.value for i in items if i.value.get("status") == status]


@pytest.fixture
def notes(tmp_path: Path) -> Iterator[Notes]:
    settings = Settings(home=tmp_path, embedder="hash", extractor="rules")
    queue = JobQueue(tmp_path / "jobs.sqlite")
    with open_store(settings.resolved_store_location(), settings=settings) as store:
        yield Notes(queue, store)
    queue.close()


def _text(m: dict[str, Any]) -> str:
    return f"{m.get('content')} {m.get('value') or ''}".lower()


def _has(memories: list[dict[str, Any]], *needles: str) -> bool:
    """One memory holds every needle (each "a|b" means either)."""
    return any(
        all(any(n.lower() in _text(m) for n in needle.split("|")) for needle in needles)
        for m in memories
    )


def test_acme_logistics_note_keeps_all_eight_facts(notes: Notes) -> None:
    notes.say(
        "acme",
        "Met with Acme Logistics today. Their CTO Li Wei is the decision maker. Budget is "
        "1.2 million CNY for the fleet-tracking rollout, decision by end of March. He hates "
        "phone calls, email only.",
        "2026-11-03T10:00:00+08:00",
    )
    notes.say(
        "acme",
        "They currently use Salesforce and were quoted 900k by a competitor. They need SSO with "
        "Okta.",
        "2026-11-03T10:04:00+08:00",
    )
    mem = notes.memories("acme")
    facts = {
        "decision maker": ("li wei", "decision maker"),
        "role": ("li wei", "cto"),
        "budget": ("budget", "1200000 cny", "fleet-tracking"),
        "decision date": ("decision", "2027-03-31"),
        "no phone": ("li wei", "phone"),
        "email only": ("li wei", "email"),
        "incumbent": ("salesforce",),
        "competitor quote": ("competitor", "900k"),
        "sso": ("sso", "okta"),
    }
    missing = [name for name, needles in facts.items() if not _has(mem, *needles)]
    assert missing == [], [m["content"] for m in mem]
    by_key = {m["attribute"]: m for m in mem}
    assert by_key["decision_maker"]["value"] == "li wei"
    assert by_key["budget"]["value"] == "1200000 CNY"
    assert notes.memories("acme", status="pending") == []


def test_huaxin_note_confirms_approximate_budget_and_resolves_next_month(notes: Notes) -> None:
    notes.say(
        "huaxin",
        "华信科技的采购负责人是王芳，项目预算大概300万，必须私有化部署，下个月15号之前要报价。",
        "2026-11-12T10:00:00+08:00",
    )
    mem = notes.memories("huaxin")
    assert _has(mem, "王芳", "采购负责人")
    assert _has(mem, "私有化部署")
    assert _has(mem, "报价", "2026-12-15")
    (budget,) = [m for m in mem if m["attribute"] == "budget"]
    assert budget["value"] == "3000000 approx" and "大概" in budget["content"]
    assert notes.memories("huaxin", status="pending") == []  # hedging is not doubt


def test_uncertain_statement_is_held_as_pending_with_its_key(notes: Notes) -> None:
    notes.say("dongfang", "预算可能是500万，还不确定。", "2026-11-12T10:00:00+08:00")
    assert not _has(notes.memories("dongfang"), "500万")
    (held,) = notes.memories("dongfang", status="pending")
    assert held["attribute"] == "budget" and held["value"] == "5000000"
    assert held["confidence"] < 0.6 and held["source"]["message_ids"] == ["m1"]


def test_lanhai_note_keeps_three_facts_with_the_demo_date(notes: Notes) -> None:
    notes.say(
        "lanhai",
        "Lanhai's CTO Wang Lei prefers monthly invoices, wants SSO, and we promised a demo "
        "next Tuesday",
        "2026-11-12T10:00:00+08:00",  # a Thursday
    )
    mem = notes.memories("lanhai")
    assert _has(mem, "wang lei", "monthly invoices")
    assert _has(mem, "sso")
    assert _has(mem, "demo", "2026-11-17")
    assert _has(mem, "wang lei", "cto")


def test_deadlines_of_different_things_do_not_supersede_each_other(notes: Notes) -> None:
    notes.say("acme", "The contract must be signed before March 31.", "2026-11-12T10:00:00+08:00")
    notes.say("acme", "We must send the proposal by Friday.", "2026-11-12T10:05:00+08:00")
    mem = notes.memories("acme")
    assert _has(mem, "signed", "2027-03-31")
    assert _has(mem, "proposal", "2026-11-13")
    assert notes.memories("acme", status="deprecated") == []
    # the same event moved: the new date supersedes the old one
    notes.say("acme", "The signing moved to April 15.", "2026-11-20T10:00:00+08:00")
    mem = notes.memories("acme")
    assert _has(mem, "sign", "2027-04-15") and not _has(mem, "2027-03-31")
    assert _has(mem, "proposal", "2026-11-13")
    (old,) = notes.memories("acme", status="deprecated")
    assert "2027-03-31" in _text(old)


@pytest.mark.parametrize(
    ("first", "correction", "old", "new"),
    [
        ("Budget is 1.5M for the rollout.", "No, the budget is 2M.", "1500000", "2000000"),
        ("项目预算是300万。", "更正一下，预算是250万。", "3000000", "2500000"),
    ],
)
def test_corrections_supersede_the_single_valued_record(
    notes: Notes, first: str, correction: str, old: str, new: str
) -> None:
    notes.say("c1", first, "2026-11-12T10:00:00+08:00")
    notes.say("c1", "We must send the proposal by Friday.", "2026-11-12T10:01:00+08:00")
    notes.say("c1", correction, "2026-11-12T10:02:00+08:00")
    budgets = [m for m in notes.memories("c1") if m["attribute"] == "budget"]
    assert [b["value"] for b in budgets] == [new]
    assert [m["value"] for m in notes.memories("c1", status="deprecated")] == [old]
    assert _has(notes.memories("c1"), "proposal")  # other keys untouched
