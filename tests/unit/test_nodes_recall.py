"""recall: scoped, scored, filtered memories and a trace of why each was recalled."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from graph_fakes import memory_store, runtime
from langchain_core.messages import HumanMessage
from langgraph.store.base import BaseStore
from store_fakes import ExtensionStubs

from memagent.core.state import State
from memagent.memory.namespaces import namespace
from memagent.memory.profile import compact_profile
from memagent.memory.records import MemoryRecord
from memagent.memory.scoring import ScoreWeights
from memagent.nodes.recall import (
    AccessLog,
    make_recall_node,
    recall_memories,
    should_search,
)

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def put(
    store: BaseStore,
    key: str,
    content: str,
    *,
    user: str = "alice",
    customer: str = "acme",
    **fields: Any,
) -> None:
    fields.setdefault("last_accessed_at", NOW)
    record = MemoryRecord(content=content, **fields)
    store.put(namespace(user, customer, "facts"), key, record.to_store())


@pytest.fixture
def store() -> BaseStore:
    s = memory_store()
    put(s, "budget", "Acme's budget for the rollout is 3 million USD", importance=0.9)
    put(s, "contact", "Dana prefers email over phone calls", type="preference")
    put(
        s,
        "old-budget",
        "Acme's budget for the rollout is 1 million USD",
        status="deprecated",
        valid_from=NOW - timedelta(days=9),
        valid_to=NOW,
    )
    put(s, "bob-budget", "Acme's budget for the rollout is 9 million USD", user="bob")
    return s


def test_finds_the_relevant_record_with_its_score_parts(store: BaseStore) -> None:
    result = recall_memories(
        store, "alice", "acme", "rollout budget", now=NOW, weights=ScoreWeights(threshold=0.0)
    )
    assert result.searched and not result.degraded
    top = result.items[0]
    assert top.key == "budget"
    assert top.relevance > 0 and top.recency == pytest.approx(1.0)
    assert top.score == pytest.approx((0.6 * top.relevance + 0.2 * 1.0 + 0.2 * 0.9) * 0.8, abs=1e-3)
    trace = result.trace()
    assert trace["queries"] == ["rollout budget"] and trace["items"][0]["key"] == "budget"


def test_only_active_records_of_the_own_scope(store: BaseStore) -> None:
    result = recall_memories(
        store, "alice", "acme", "rollout budget", now=NOW, weights=ScoreWeights(threshold=0.0)
    )
    contents = " ".join(i.content for i in result.items)
    assert "3 million" in contents
    assert "1 million" not in contents  # deprecated
    assert "9 million" not in contents  # another user's memory
    other = recall_memories(
        store, "carol", "acme", "rollout budget", now=NOW, weights=ScoreWeights(threshold=0.0)
    )
    assert other.items == []


def test_threshold_max_items_and_length() -> None:
    s = memory_store()
    for i in range(12):
        put(s, f"k{i}", f"budget note number {i} " + "x" * 120)
    result = recall_memories(
        s,
        "alice",
        "acme",
        "budget note",
        now=NOW,
        weights=ScoreWeights(threshold=0.0, max_items=8, max_chars=60),
    )
    assert len(result.items) == 8
    assert all(len(i.content) <= 60 for i in result.items)
    assert result.items == sorted(result.items, key=lambda i: -i.score)
    nothing = recall_memories(
        s, "alice", "acme", "budget note", now=NOW, weights=ScoreWeights(threshold=0.99)
    )
    assert nothing.items == [] and nothing.candidates > 0


def test_older_memories_score_lower() -> None:
    s = memory_store()
    put(s, "new", "budget is 3 million", last_accessed_at=NOW)
    put(s, "old", "budget is 3 million!", last_accessed_at=NOW - timedelta(days=90))
    items = {
        i.key: i
        for i in recall_memories(
            s, "alice", "acme", "budget is 3 million", now=NOW, weights=ScoreWeights(threshold=0)
        ).items
    }
    assert items["old"].recency < items["new"].recency


def test_session_start_pins_profile_and_commitments(store: BaseStore) -> None:
    put(
        store,
        "promise",
        "Send the SOC2 report to Dana by Friday",
        type="commitment",
        importance=0.8,
    )
    put(store, "procurement", "Acme procurement is strict: 3-year license", importance=1.0)
    compact_profile(store, "alice", "acme")
    result = recall_memories(store, "alice", "acme", "ok", now=NOW, new_session=True)
    assert not result.searched  # small talk: no search
    origins = {i.origin: i.content for i in result.items}
    assert "SOC2" in origins["commitment"]
    assert "procurement" in origins["profile"]
    later = recall_memories(store, "alice", "acme", "ok", now=NOW, new_session=False)
    assert later.items == []


def test_back_references_search_even_short_messages(store: BaseStore) -> None:
    assert not should_search("ok")
    assert not should_search("好的")
    assert should_search("上次")
    assert should_search("按老规矩")
    assert should_search("as usual?")
    forced = recall_memories(store, "alice", "acme", "ok", now=NOW, force_search=True)
    assert forced.searched


class BrokenStore(BaseStore):
    def batch(self, ops: Any) -> Any:
        raise RuntimeError("disk on fire")

    async def abatch(self, ops: Any) -> Any:
        raise RuntimeError("disk on fire")


def test_a_broken_store_degrades_instead_of_failing() -> None:
    result = recall_memories(BrokenStore(), "alice", "acme", "budget", new_session=True)
    assert result.degraded and result.items == []
    assert any("disk on fire" in e for e in result.errors)


class ScoredStore(ExtensionStubs):
    """A store with the hybrid ``search_scored`` extension (relevance from the store)."""

    def __init__(self, inner: BaseStore) -> None:
        self.inner = inner
        self.modes: list[str] = []

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.search(*args, **kwargs)

    def keyword_idf(self, ns: tuple[str, ...], text: str) -> dict[str, float]:
        return {}  # no known terms: feedback expansion adds nothing

    def search_scored(
        self, ns: tuple[str, ...], *, query: str, mode: str, filter: Any = None, limit: int = 10
    ) -> list[Any]:
        self.modes.append(mode)

        class Hit:
            def __init__(self, item: Any) -> None:
                self.item, self.relevance, self.dense, self.keyword = item, 0.9, 0.8, 0.7

        return [Hit(i) for i in self.inner.search(ns, query=query, filter=filter, limit=limit)]


def test_uses_search_scored_with_the_mode(store: BaseStore) -> None:
    scored = ScoredStore(store)
    result = recall_memories(
        scored,
        "alice",
        "acme",
        "rollout budget",
        mode="keyword",  # type: ignore[arg-type]
        now=NOW,
    )
    assert scored.modes == ["keyword"]  # one search over facts and episodes
    assert result.items and all(i.relevance == 0.9 and i.keyword == 0.7 for i in result.items)


def test_keyword_mode_without_search_scored_says_so(store: BaseStore) -> None:
    result = recall_memories(store, "alice", "acme", "rollout budget", mode="keyword", now=NOW)
    assert result.notes


async def test_node_writes_trace_and_briefing_and_access_stats(store: BaseStore) -> None:
    log = AccessLog()
    node = make_recall_node("hybrid", weights=ScoreWeights(threshold=0.0), access_log=log)
    state = State(
        messages=[HumanMessage("what is the rollout budget")], turn=2, query="rollout budget"
    )
    update = await node(state, runtime(store))
    assert update["briefing"][0]["content"].startswith("Acme's budget")
    assert update["recall_trace"]["mode"] == "hybrid"
    assert "degraded" not in update
    before = store.get(namespace("alice", "acme", "facts"), "budget")
    assert before is not None and before.value["access_count"] == 0
    log.flush(store)
    await log.drain()
    after = store.get(namespace("alice", "acme", "facts"), "budget")
    assert after is not None and after.value["access_count"] == 1
    assert after.value["content"] == before.value["content"]


async def test_node_off_and_without_store() -> None:
    state = State(messages=[HumanMessage("budget?")], turn=1)
    off = await make_recall_node("off")(state, runtime(memory_store()))
    assert off["briefing"] == [] and off["recall_trace"]["mode"] == "off"
    missing = await make_recall_node("hybrid")(state, runtime(None))
    assert missing["briefing"] == [] and missing["degraded"] == ["recall"]


def test_commitments_are_pinned_without_a_profile(store: BaseStore) -> None:
    put(store, "promise", "Call Dana back about pricing", type="commitment")
    result = recall_memories(store, "alice", "acme", "hi", now=NOW, new_session=True)
    assert [(i.origin, i.key) for i in result.items] == [("commitment", "promise")]


def test_pinned_item_found_by_search_keeps_its_origin_and_search_relevance(
    store: BaseStore,
) -> None:
    put(store, "procurement", "Acme procurement is strict: 3-year license", importance=1.0)
    compact_profile(store, "alice", "acme")
    query = "what is Acme procurement like for the license"
    searched = recall_memories(store, "alice", "acme", query, now=NOW)
    started = recall_memories(store, "alice", "acme", query, now=NOW, new_session=True)
    found = {i.key: i for i in searched.items}
    pinned = {i.key: i for i in started.items}
    assert found["procurement"].origin == "search"
    assert pinned["procurement"].origin == "profile"
    assert pinned["procurement"].relevance == found["procurement"].relevance < 1.0
    assert [i.key for i in started.items].count("procurement") == 1


async def test_node_judges_a_broad_question_by_the_users_words(store: BaseStore) -> None:
    """The rewritten query may carry the previous turn or be rephrased by the model; a
    broad question ("Acme?") still pins the account's key facts."""
    node = make_recall_node("hybrid")
    state = State(
        messages=[HumanMessage("Acme?")], turn=3, query="Acme? Dana prefers email over phone"
    )
    update = await node(state, runtime(store))
    origins = {b["content"]: b["origin"] for b in update["briefing"]}
    assert origins.get("Acme's budget for the rollout is 3 million USD") == "overview", origins
    assert "broad question" in " ".join(update["recall_trace"]["notes"])
