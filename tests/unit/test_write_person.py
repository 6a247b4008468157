"""One memory per person: a stakeholder's facts fold into one record (``write_person``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.write_path import Candidate, write_memory
from memagent.memory.write_person import person_record
from memagent.stores import QdrantStore
from memagent.stores.embeddings import hash_embeddings

NS = namespace("u1", "c1", "facts")
T0 = datetime(2026, 11, 2, tzinfo=UTC)
INDEX = {"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]}


@pytest.fixture(params=["memory", "qdrant"])
def store(request: pytest.FixtureRequest) -> Iterator[BaseStore]:
    """A plain store and the real Qdrant engine (compare-and-set writes)."""
    if request.param == "memory":
        yield InMemoryStore(index=INDEX)  # type: ignore[arg-type]
        return
    with QdrantStore.from_location(":memory:", index=INDEX) as qs:  # type: ignore[arg-type]
        yield qs


def fact(content: str, attribute: str, value: str | None = None, msg: str = "m1") -> Candidate:
    return Candidate(content=content, attribute=attribute, value=value, message_ids=[msg])


def write(store: BaseStore, cand: Candidate, n: int = 0, rid: str | None = None) -> str:
    res = write_memory(store, "u1", "c1", cand, now=T0 + timedelta(minutes=n), record_id=rid,
                       config=None)  # fmt: skip
    return res.action


def active(store: BaseStore) -> list[MemoryRecord]:
    out = [MemoryRecord.from_store(i.value) for i in store.search(NS, limit=100)]
    return [r for r in out if r.status == "active"]


def everything(store: BaseStore) -> list[MemoryRecord]:
    return [MemoryRecord.from_store(i.value) for i in store.search(NS, limit=100)]


ROLE = fact("Karen Oduya: VP Operations.", "stakeholder:karen_oduya:role", "vp operations")
STANCE = fact("Karen Oduya: She's our champion", "stakeholder:karen_oduya:dcf86a80")


def test_two_facts_of_one_person_are_one_memory_with_history(store: BaseStore) -> None:
    write(store, ROLE, 0)
    write(store, STANCE, 1)
    (rec,) = active(store)
    assert rec.content == "Karen Oduya: VP Operations; She's our champion"
    assert rec.attribute == "stakeholder:karen_oduya:role" and rec.version == 2
    assert [p.attribute for p in rec.parts] == [ROLE.attribute, STANCE.attribute]
    closed = [r for r in everything(store) if r.status != "active"]
    assert [c.content for c in closed] == ["Karen Oduya: VP Operations."]  # history kept


def test_a_repeated_or_retried_fact_changes_nothing(store: BaseStore) -> None:
    write(store, ROLE, 0, rid="r1")
    write(store, STANCE, 1, rid="r2")
    before = sorted((r.content, r.status, r.version) for r in everything(store))
    write(store, STANCE, 3, rid="r2")  # the job retried
    write(store, STANCE, 3)  # the same words again, same message
    write(store, ROLE, 4, rid="r1")
    after = sorted((r.content, r.status, r.version) for r in everything(store))
    assert after == before
    (rec,) = active(store)
    assert rec.source.message_ids == ["m1"]


def test_a_corrected_role_replaces_its_part_not_the_other_facts(store: BaseStore) -> None:
    write(store, fact("Olivia Chen: Procurement lead.", "stakeholder:olivia_chen:role",
                      "procurement lead"), 0)  # fmt: skip
    write(
        store, fact("Olivia Chen: she leads the negotiation", "stakeholder:olivia_chen:1a2b3c4d"), 1
    )
    write(store, fact("Olivia Chen: Director of Strategic Sourcing.", "stakeholder:olivia_chen:role",
                      "director of strategic sourcing", msg="m2"), 2)  # fmt: skip
    (rec,) = active(store)
    assert "Procurement" not in rec.content
    assert rec.content == "Olivia Chen: Director of Strategic Sourcing; she leads the negotiation"


def test_the_decision_maker_takes_the_persons_memory_in_and_gives_it_back(store: BaseStore) -> None:
    """ "邓总是最终拍板人" after the attendee list named 邓建国 生产副总: one memory; a later
    decision maker who is someone else leaves 邓建国's role as his own memory."""
    write(store, fact("邓建国：生产副总。", "stakeholder:邓建国:role", "生产副总"), 0)
    write(store, fact("邓建国是最终拍板人", "decision_maker", "邓总"), 1)
    write(store, fact("邓建国: 对项目很支持", "stakeholder:邓总:5aa41380"), 2)
    (rec,) = active(store)
    assert rec.attribute == "decision_maker"
    assert rec.content == "邓建国：生产副总；邓建国是最终拍板人；对项目很支持"
    write(store, fact("最终拍板的是许振华", "decision_maker", "许振华", msg="m2"), 3)
    now = {r.attribute: r.content for r in active(store)}
    assert now["decision_maker"] == "最终拍板的是许振华"
    assert now["stakeholder:邓建国:role"] == "邓建国：生产副总；对项目很支持"
    assert len(now) == 2


def test_different_people_stay_apart(store: BaseStore) -> None:
    write(store, fact("Olivia Chen: Director of Strategic Sourcing.", "stakeholder:olivia_chen:role",
                      "director of strategic sourcing"), 0)  # fmt: skip
    write(store, fact("Olivia Grant: CMO.", "stakeholder:olivia_grant:role", "cmo"), 1)
    write(
        store,
        fact("Olivia Grant: she's the business sponsor", "stakeholder:olivia_grant:fce6106c"),
        2,
    )
    got = sorted(r.content for r in active(store))
    assert got == ["Olivia Chen: Director of Strategic Sourcing.",
                   "Olivia Grant: CMO; she's the business sponsor"]  # fmt: skip


def test_a_memory_too_long_to_fold_is_kept_apart() -> None:
    store = InMemoryStore(index=INDEX)  # type: ignore[arg-type]
    write(store, ROLE, 0)
    long = fact(
        "Karen Oduya: " + "she has opinions about every dock door, " * 3 + "and the yard too",
        "stakeholder:karen_oduya:aa11bb22",
    )
    write(store, long, 1)
    assert len(active(store)) == 2  # nothing lost, nothing cut


def test_the_person_named_first_is_the_one_a_keyless_fact_is_about() -> None:
    """An alias-keyed stance ("张伟（大张总）明确支持", keyed by 张总) names 张伟 first; 张敏
    appears later in it (the alias) and is not who it is about."""
    zw = MemoryRecord(
        content="张伟：集团总裁。", attribute="stakeholder:张伟:role", value="集团总裁"
    )
    zm = MemoryRecord(
        content="张敏：财务总监。", attribute="stakeholder:张敏:role", value="财务总监"
    )
    new = MemoryRecord(content="张伟（大张敏）明确支持", attribute="stakeholder:张总:4bcac485")
    assert person_record(new, [zm, zw]) is zw
    llm = MemoryRecord(content="Karen Oduya is our champion", attribute="stakeholder:0c1d2e3f")
    karen = MemoryRecord(
        content="Karen Oduya: VP Operations.", attribute="stakeholder:karen_oduya:role"
    )
    assert person_record(llm, [karen]) is karen
    req = MemoryRecord(content="Karen Oduya wants SSO", attribute="requirement:0c1d2e3f")
    assert person_record(req, [karen]) is None  # only stakeholder facts fold


def test_a_role_said_in_the_decision_maker_sentence_outlives_its_supersession(
    store: BaseStore,
) -> None:
    """ "决策人是总经理孟凡" + "孟凡: 他比较看重性价比", then "其实是董事长袁志国说了算": 孟凡 keeps
    both his role and what was said of him."""
    write(store, fact("决策人是总经理孟凡", "decision_maker", "孟凡"), 0)
    write(store, fact("孟凡: 他比较看重性价比", "stakeholder:孟凡:a4dd3011"), 1)
    write(store, fact("其实是集团董事长袁志国说了算", "decision_maker", "袁志国", msg="m2"), 2)
    now = {r.attribute: r.content for r in active(store)}
    assert now == {"decision_maker": "其实是集团董事长袁志国说了算",
                   "stakeholder:孟凡:role": "孟凡：总经理；他比较看重性价比"}  # fmt: skip


def test_a_surname_and_title_is_the_one_person_of_that_surname(store: BaseStore) -> None:
    """ "陈主任" (the email's greeting) and its signature "陈立新 信息科主任" are one person;
    with two known people named 陈 nothing is guessed."""
    write(store, fact("陈主任：仁和医院信息科。", "stakeholder:陈主任:role", "仁和医院信息科"), 0)
    write(store, fact("陈立新：信息科主任。", "stakeholder:陈立新:role", "信息科主任"), 1)
    assert [r.content for r in active(store)] == ["陈主任：仁和医院信息科；陈立新：信息科主任"]
    other = InMemoryStore(index=INDEX)  # type: ignore[arg-type]
    write(other, fact("陈主任：信息科。", "stakeholder:陈主任:role", "信息科"), 0)
    write(other, fact("陈晓：财务总监。", "stakeholder:陈晓:role", "财务总监"), 1)
    write(other, fact("陈立新：信息科主任。", "stakeholder:陈立新:role", "信息科主任"), 2)
    assert len(active(other)) >= 2


def test_taking_a_message_back_removes_only_its_part(store: BaseStore) -> None:
    from memagent.memory.write_retract import retract_previous

    write(store, ROLE, 0)
    write(store, fact("Karen Oduya: She's our champion", STANCE.attribute, msg="m2"), 1)
    assert len(active(store)) == 1
    # the episodes say which message came last: m2, before the retraction m3
    eps = namespace("u1", "c1", "episodes")
    for n, mid in enumerate(["m1", "m2", "m3"]):
        store.put(eps, mid, {"thread_id": "t1", "message_id": mid,
                             "created_at": f"2026-11-02T00:0{n}:00+00:00"})  # fmt: skip
    retract_previous(store, "u1", "c1", thread_id="t1", message_ids=["m3"],
                     now=T0 + timedelta(minutes=5))  # fmt: skip
    (rec,) = active(store)
    assert rec.content == "Karen Oduya: VP Operations." and rec.parts == []
