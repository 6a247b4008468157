"""The agent's recall additions: feedback expansion and entity focus, as pure functions and
through the real store (qdrant-edge in memory, hash embeddings)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.scoring import ScoreWeights
from memagent.nodes.recall import recall_memories
from memagent.nodes.recall_expand import (
    NO_EXPANSION,
    RecallTuning,
    feedback_terms,
    focus,
    is_opaque_term,
    mentioned,
    mentions,
    named_entities,
    without_names,
    without_placeholders,
)
from memagent.stores import bm25_index
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.hybrid_search import HybridSearcher
from memagent.stores.qdrant_store import QdrantStore
from memagent.stores.tokenize import tokenize_cached

NOW = datetime(2026, 11, 1, tzinfo=UTC)
ALL = ScoreWeights(threshold=0.0, max_items=20)


def test_feedback_terms_sum_idf_over_top_results_and_skip_query_terms() -> None:
    top = [{"adopt": 2.0, "agency": 1.5, "kid": 0.5}, {"agency": 1.5, "shelter": 1.0}]
    assert feedback_terms(["adopt"], top, 2) == ["agency", "shelter"]
    assert feedback_terms(["adopt"], [{"common": 0.0, "rare": -1.0}], 5) == []


def test_mentions_is_whole_word_for_latin_and_substring_for_chinese() -> None:
    assert mentions("What did Li Wei say?", "li wei")
    assert not mentions("What did Dana's team say?", "Dan")
    assert mentions("王总对预算怎么看", "王总")
    assert not mentions("anything", "  ")
    assert mentions("Where does Li Wei want it?", "li_wei")  # records keep slugs


def test_named_entities_needs_a_specific_subset() -> None:
    ents = ["Dana", "Li Wei", "customer", None]
    assert named_entities("What does Dana want?", ents) == {"Dana"}
    # naming every specific entity, or only the generic one, prefers nothing
    assert named_entities("Dana and Li Wei disagree", ents) == set()
    assert named_entities("What does the customer want?", ents) == set()


def test_focus_scales_other_specific_entities_only() -> None:
    rel = {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}
    ent = {"a": "Dana", "b": "Li Wei", "c": "customer", "d": None}
    assert focus(rel, ent, {"Dana"}, 0.5) == {"a": 1.0, "b": 0.5, "c": 1.0, "d": 1.0}


@pytest.mark.parametrize(
    "bad",
    [
        {"candidates": 0},
        {"feedback_docs": 0},
        {"feedback_terms": 0},
        {"feedback_weight": 1.5},
        {"entity_focus": -0.1},
    ],
)
def test_tuning_rejects_bad_values(bad: dict) -> None:
    with pytest.raises(ValueError):
        RecallTuning(**bad)


@pytest.fixture
def store() -> Iterator[QdrantStore]:
    index = {"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]}
    with QdrantStore.from_location(":memory:", index=index) as s:
        yield s


def put(store: QdrantStore, key: str, content: str, entity: str, user: str = "alice") -> None:
    rec = MemoryRecord(content=content, entity=entity, attribute=key, last_accessed_at=NOW)
    store.put(namespace(user, "acme", "facts"), key, rec.to_store())


def test_entity_focus_prefers_the_named_person(store: QdrantStore) -> None:
    put(store, "dana-rollout", "Rollout should start in the Berlin office", "Dana")
    put(store, "li-rollout", "Rollout should start in the Berlin office first", "Li Wei")
    query = "Where does Li Wei want the rollout to start?"
    plain = recall_memories(
        store, "alice", "acme", query, weights=ALL, tuning=NO_EXPANSION, now=NOW
    )
    focused = recall_memories(
        store,
        "alice",
        "acme",
        query,
        weights=ALL,
        now=NOW,
        tuning=RecallTuning(feedback_weight=0.0, entity_focus=0.5, names_out=False),
    )
    rel = {i.key: i.relevance for i in focused.items}
    plain_rel = {i.key: i.relevance for i in plain.items}
    assert focused.items[0].key == "li-rollout"
    assert rel["dana-rollout"] == pytest.approx(plain_rel["dana-rollout"] * 0.5, abs=1e-3)
    assert "entity focus: li_wei" in focused.notes


def test_feedback_expansion_reaches_evidence_without_query_words(store: QdrantStore) -> None:
    put(store, "a", "Procurement approved the adoption budget for the Shenzhen plant", "customer")
    put(store, "b", "The Shenzhen plant adoption needs a second procurement sign-off", "customer")
    put(store, "c", "Second sign-off comes from the plant controller, Mr Zhou", "customer")
    for i in range(30):
        put(store, f"noise{i}", f"Weekly call {i} covered pricing and logistics", "customer")
    query = "Who approves the Shenzhen adoption budget?"
    plain = recall_memories(
        store, "alice", "acme", query, weights=ALL, tuning=NO_EXPANSION, now=NOW
    )
    expanded = recall_memories(
        store, "alice", "acme", query, weights=ALL, now=NOW, tuning=RecallTuning(entity_focus=1.0)
    )
    assert "c" not in {i.key for i in plain.items if i.keyword}
    assert len(expanded.queries) == 2 and expanded.queries[1].startswith(query)
    ranks = [i.key for i in expanded.items]
    assert "c" in ranks
    assert ranks.index("c") < ([i.key for i in plain.items] + ["c"]).index("c")
    # everything recalled is still this user's
    assert all(not k.startswith("other") for k in ranks)


def test_expansion_never_crosses_users(store: QdrantStore) -> None:
    put(store, "mine", "Budget is 3 million for the Berlin rollout", "customer")
    put(
        store, "theirs", "Budget is 9 million for the Berlin rollout plus Zurich", "customer", "bob"
    )
    result = recall_memories(store, "alice", "acme", "Berlin rollout budget", weights=ALL, now=NOW)
    assert [i.key for i in result.items] == ["mine"]


def test_keyword_idf_is_scoped_and_validated(store: QdrantStore) -> None:
    put(store, "a", "Zurich office renewal", "customer")
    put(store, "b", "Berlin office renewal", "customer", "bob")
    idf = store.keyword_idf(namespace("alice", "acme", "facts"), "zurich berlin renewal")
    assert "berlin" not in idf and set(idf) == {"zurich", "renew"}  # stemmed
    assert store.keyword_idf(namespace("nobody", "acme", "facts"), "zurich") == {}
    with pytest.raises(Exception, match="[Nn]amespace"):
        store.keyword_idf(("",), "zurich")


def test_expansion_never_adds_redaction_placeholders_or_ids(store: QdrantStore) -> None:
    """Issue 14: placeholder tags are the rarest terms of the records that hold them, so
    they joined every query of the account and pulled PII records into unrelated turns."""
    put(store, "phone", "Li Wei's mobile is [PHONE#e7783dbb]", "li_wei")
    put(store, "id", "Li Wei's ID number is [CN_ID#d235fbea]", "li_wei")
    put(store, "mail", "Li Wei's e-mail is [EMAIL#0a1b2c3d], ticket 3f2a9c1e-77aa", "li_wei")
    put(store, "budget", "Li Wei has a budget of 2 million CNY for the fleet rollout", "li_wei")
    put(store, "deadline", "The fleet rollout decision is due by end of March", "customer")
    for i in range(10):
        put(store, f"noise{i}", f"Weekly call {i} covered pricing and logistics", "customer")
    for question in ("What is Li Wei's budget?", "When is the rollout decision due?"):
        result = recall_memories(store, "alice", "acme", question, now=NOW)
        assert len(result.queries) == 2, result.queries  # the expansion ran
        expanded = result.queries[1].lower()
        for code in ("e7783dbb", "d235fbea", "0a1b2c3d", "3f2a9c1e", "#"):
            assert code not in expanded, result.queries
    # a question about the deadline does not recall the phone, ID and e-mail records
    assert {i.key for i in result.items} & {"phone", "id", "mail"} == set(), result.items


def test_opaque_terms_are_ids_and_placeholders_not_words() -> None:
    for term in ("d235fbea", "cn_id#d235fbea", "cnidd235fbea", "3f2a9c1e-77aa", "e7783dbb"):
        assert is_opaque_term(term), term
    for term in ("fleet-tracking", "okta", "2026", "1200000", "facade", "q3", "sso"):
        assert not is_opaque_term(term), term
    assert "d235fbea" not in without_placeholders("ID [CN_ID#d235fbea], cn_id#d235fbea")


def test_without_names_removes_every_mention_possessive_and_slug() -> None:
    assert without_names("What is Li Wei's budget?", {"li_wei"}) == "What is budget?"
    assert without_names("Did Melanie and Caroline paint?", {"Melanie", "Caroline"}) == (
        "Did and paint?"
    )
    assert without_names("王总对预算怎么看", {"王总"}) == "对预算怎么看"
    # a name inside another word is not a mention
    assert without_names("Is Danamark Dan's?", {"Dan"}) == "Is Danamark ?"
    assert mentioned("Dana and Li Wei disagree", ["Dana", "li_wei", "customer"]) == {
        "Dana",
        "li_wei",
    }


def test_names_out_of_the_search_text_lets_the_evidence_beat_mere_mentions(
    store: QdrantStore,
) -> None:
    put(store, "pottery", "Signed up for a pottery class yesterday", "Melanie")
    put(store, "thanks", "Thanks Melanie! Melanie, a class act, Melanie", "Caroline")
    for i in range(20):
        put(store, f"noise{i}", f"Weekly call {i} covered pricing and logistics", "customer")
    query = "What class did Melanie sign up for?"
    flat = RecallTuning(feedback_weight=0.0, entity_focus=1.0)
    with_names = recall_memories(
        store, "alice", "acme", query, weights=ALL, now=NOW, tuning=replace(flat, names_out=False)
    )
    assert with_names.items[0].key == "thanks"  # the name alone pulls the chatter up
    result = recall_memories(store, "alice", "acme", query, weights=ALL, now=NOW, tuning=flat)
    assert result.items[0].key == "pottery"
    assert "searched without names: melanie" in result.notes
    # the default recall (expansion and focus on) searches without the name as well
    default = recall_memories(store, "alice", "acme", query, weights=ALL, now=NOW)
    assert default.items[0].key == "pottery"


def test_a_query_that_is_only_a_name_is_searched_as_it_is(store: QdrantStore) -> None:
    put(store, "li", "Li Wei decides on the rollout", "Li Wei")
    put(store, "dana", "Dana runs procurement", "Dana")
    result = recall_memories(store, "alice", "acme", "Li Wei?", weights=ALL, now=NOW)
    assert result.items[0].key == "li"
    assert not any(n.startswith("searched without names") for n in result.notes)


def test_names_stay_when_too_little_would_be_left_to_search(store: QdrantStore) -> None:
    put(store, "crm", "They run Salesforce for every team and it is expensive", "salesforce")
    put(store, "okta", "SSO goes through Okta", "okta")
    for i, thing in enumerate(["The hotel", "Shipping", "The pilot", "Their cloud bill"]):
        put(store, f"noise{i}", f"{thing} is expensive", "customer")
    query = "Is Salesforce expensive?"  # "expensive" alone would be searched
    result = recall_memories(store, "alice", "acme", query, weights=ALL, now=NOW)
    assert result.items[0].key == "crm"
    assert not any(n.startswith("searched without names") for n in result.notes)


def _bm25_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []
    scores = bm25_index.scores

    def counted(corpus: Any, query: Any) -> Any:
        calls.append(tuple(query))
        return scores(corpus, query)

    monkeypatch.setattr(bm25_index, "scores", counted)
    return calls


def _fresh(store: QdrantStore, query: str) -> Any:
    """The recall with no keyword side left from an earlier search of this thread."""
    local = getattr(store._searcher, "_local", None)
    if local is not None:
        local.__dict__.clear()
    return recall_memories(store, "alice", "acme", query, weights=ALL, now=NOW)


def test_the_names_probe_keyword_side_is_the_hybrid_searchs_own(
    store: QdrantStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names-out probe searches the keyword index for the question; when the question
    is searched unchanged, the hybrid search reuses that keyword side: the index is scored
    once for it, and the recall is the same as with a search of its own."""
    put(store, "li", "Li Wei decides on the rollout budget", "Li Wei")
    put(store, "dana", "Dana runs procurement and the rollout budget", "Dana")
    for i in range(20):
        put(store, f"noise{i}", f"Weekly call {i} covered pricing and logistics", "customer")
    query = "Is the rollout budget approved by procurement?"
    question = tuple(tokenize_cached(query))
    calls = _bm25_calls(monkeypatch)
    reused = _fresh(store, query)
    assert not any(n.startswith("searched without names") for n in reused.notes)
    assert calls.count(question) == 1, calls
    # the same recall with the keyword side computed again for the hybrid search
    monkeypatch.setattr(HybridSearcher, "_keyword_side", _unshared_keyword_side)
    calls.clear()
    own = _fresh(store, query)
    assert calls.count(question) == 2
    assert [(i.key, i.relevance, i.score) for i in reused.items] == [
        (i.key, i.relevance, i.score) for i in own.items
    ]
    assert reused.items and reused.queries == own.queries


def _unshared_keyword_side(
    self: HybridSearcher, corpus: Any, qtok: tuple[str, ...], depth: int
) -> tuple[Any, dict[str, float]]:
    scores = bm25_index.scores(corpus, qtok)
    return scores, bm25_index.best(corpus, scores, depth)


def test_a_write_between_two_searches_is_seen(store: QdrantStore) -> None:
    """The keyword side is reused only for the same corpus: a write makes a new one."""
    put(store, "li", "Li Wei decides on the rollout budget", "Li Wei")
    query = "Who decides on the rollout budget?"
    first = _fresh(store, query)
    put(store, "zhou", "Mr Zhou decides on the rollout budget now", "Zhou")
    again = recall_memories(store, "alice", "acme", query, weights=ALL, now=NOW)
    assert {i.key for i in first.items} == {"li"}
    assert {i.key for i in again.items} == {"li", "zhou"}
