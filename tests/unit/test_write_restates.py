"""One fact written under two labels (the rules' requirement, the profile's preference)
is one memory, though cosine misses it: the longer words win, the shorter stay in history."""

from __future__ import annotations

from langgraph.store.memory import InMemoryStore

from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.write_path import Candidate, write_memory
from memagent.stores.embeddings import hash_embeddings

NS = namespace("u1", "c1", "facts")


def _store() -> InMemoryStore:
    return InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})


def _all(store: InMemoryStore) -> list[MemoryRecord]:
    return [MemoryRecord.from_store(i.value) for i in store.search(NS, limit=50)]


def test_a_restatement_under_another_label_is_one_memory() -> None:
    store = _store()
    write_memory(store, "u1", "c1", Candidate(content='许振华: 要求"一个平台管到底"',
                                              attribute="requirement:cf5ccd09", message_ids=["m1"]))  # fmt: skip
    more = Candidate(content='客户偏好：- 许振华：要求"一个平台管到底"，不要多家拼凑；',
                     attribute="pref_e0e4ac81", message_ids=["m1"], type="preference")  # fmt: skip
    res = write_memory(store, "u1", "c1", more)
    assert res.action == "merged"
    active = [r for r in _all(store) if r.status == "active"]
    assert [r.content for r in active] == [
        '客户偏好：- 许振华：要求"一个平台管到底"，不要多家拼凑；'
    ]
    assert active[0].attribute == "requirement:cf5ccd09"
    assert [r.content for r in _all(store) if r.status != "active"] == [
        '许振华: 要求"一个平台管到底"'
    ]


def test_the_same_words_of_two_people_stay_apart() -> None:
    store = _store()
    write_memory(store, "u1", "c1", Candidate(content="Karen Oduya: wants SSO via Okta",
                                              attribute="requirement:1"))  # fmt: skip
    write_memory(store, "u1", "c1", Candidate(content="Requirement: Mark Lindqvist: wants SSO via Okta",
                                              attribute="requirement:2"))  # fmt: skip
    assert len([r for r in _all(store) if r.status == "active"]) == 2


def test_two_named_subjects_are_never_near_duplicates() -> None:
    """Whatever the embedder says (threshold 0 lets every pair through cosine), two
    competitors are two memories; a rewording of one is still one."""
    from memagent.memory.write_path import WriteConfig

    store = _store()
    cfg = WriteConfig(near_duplicate=0.0, check_instructions=False)
    for text, attr in [("Competitors: Relativity (incumbent)", "competitor:a:a"),
                       ("Competitors: Everlaw", "competitor:b:b"),
                       ("The competitors: Everlaw", "competitor:c:c")]:  # fmt: skip
        write_memory(store, "u1", "c1", Candidate(content=text, attribute=attr), config=cfg)
    active = sorted(r.content for r in _all(store) if r.status == "active")
    assert active == ["Competitors: Everlaw", "Competitors: Relativity (incumbent)"]
