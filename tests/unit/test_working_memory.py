"""Working memory: gated merge rules, versions, TTL, model patches."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from pydantic import ValidationError

from memagent.core.reducers import reduce_working
from memagent.memory.working_memory import (
    Patch,
    SlotOp,
    StaleVersionError,
    WorkingMemory,
    apply_patch,
    expire,
    parse_model_patch,
    propose_patch,
    render,
    session_lock,
)
from memagent.memory.working_rules import rules_patch

T0 = datetime(2026, 1, 12, 9, 0, tzinfo=UTC)


def said(wm: WorkingMemory, text: str, turn: int, now: datetime = T0) -> WorkingMemory:
    patch = rules_patch(text, turn=turn, current=wm)
    new, _ = apply_patch(wm, patch, expected_version=wm.version, now=now)
    return new


@pytest.mark.parametrize(
    ("text", "category", "key", "needle"),
    [
        ("Please keep every proposal under 500 words.", "constraints", "length_limit", "500"),
        ("Our budget is $120,000 for this year.", "constraints", "budget", "120,000"),
        ("The order number is PO-4471.", "facts", "order_number", "PO-4471"),
        ("We need 40 seats.", "facts", "quantity", "40"),
        ("The decision-maker is Maria Lopez.", "facts", "contact", "Maria Lopez"),
        ("请把每份方案控制在500字以内。", "constraints", "length_limit", "500字"),
        ("我们的预算是12万元。", "constraints", "budget", "12万元"),
        ("订单号是PO-8812。", "facts", "order_number", "PO-8812"),
        ("联系人是张伟。", "facts", "contact", "张伟"),
    ],
)
def test_explicit_statements_fill_slots(text: str, category: str, key: str, needle: str) -> None:
    wm = said(WorkingMemory(), text, turn=1)
    assert needle in getattr(wm, category)[key].value
    assert wm.version == 1
    assert needle in render(wm)


@pytest.mark.parametrize(
    "text",
    [
        "If we had the money we'd buy three more servers.",
        "Hypothetically, what if the budget were $1M?",
        "Nice weather today, haha!",
        "Thanks, have a good weekend.",
        "What is the budget?",
        "假如预算够的话，我们会买三台服务器。",
        "今天天气不错，哈哈。",
    ],
)
def test_chit_chat_questions_and_hypotheticals_are_ignored(text: str) -> None:
    wm = said(WorkingMemory(), text, turn=1)
    assert wm.is_empty()
    assert wm.version == 0, "an empty patch must not bump the version"


@pytest.mark.parametrize(
    "text",
    [
        "What is a good next step after the demo?",
        "Should we follow up with Li Wei next week?",
        "下一步应该做什么？",
        "要不要跟进一下王芳？",
    ],
)
def test_a_question_that_mentions_a_to_do_is_not_a_to_do(text: str) -> None:
    # Latency bench, turn 12: "What is a good next step after the demo?" became the slot
    # "Open to-dos: ...", which sits in the system message, so the whole prompt was re-read.
    wm = said(WorkingMemory(), text, turn=1)
    assert wm.is_empty()


@pytest.mark.parametrize(
    "text",
    [
        "Can you remind me to call Li Wei tomorrow?",
        "Could you send the revised quote to Dana by Friday?",
        "能提醒我周五给王芳发报价吗？",
    ],
)
def test_a_request_to_keep_something_to_do_is_still_a_to_do(text: str) -> None:
    wm = said(WorkingMemory(), text, turn=1)
    assert wm.todos, render(wm)


def test_newer_turn_wins_and_older_is_ignored() -> None:
    wm = said(WorkingMemory(), "Our budget is $120,000.", turn=3)
    wm = said(wm, "Our budget is $90,000.", turn=5)
    assert "90,000" in wm.constraints["budget"].value
    late = Patch(
        ops=[SlotOp(category="constraints", key="budget", value="Budget $120,000")], turn=4
    )
    wm2, changes = apply_patch(wm, late, expected_version=wm.version, now=T0)
    assert changes == [] and "90,000" in wm2.constraints["budget"].value


def test_rules_beat_model_on_the_same_turn() -> None:
    wm = said(WorkingMemory(), "Our budget is $120,000.", turn=2)
    model = Patch(
        ops=[SlotOp(category="constraints", key="budget", value="budget about 100k")],
        turn=2,
        source="model",
    )
    wm2, changes = apply_patch(wm, model, expected_version=wm.version, now=T0)
    assert changes == [] and "120,000" in wm2.constraints["budget"].value


@pytest.mark.parametrize(
    ("first", "fix", "old", "new"),
    [
        ("Our budget is $120,000.", "Actually, the budget is $150,000.", "120,000", "150,000"),
        ("我们的预算是12万元。", "其实预算是15万元，不是12万。", "预算是12万元", "15万元"),
    ],
)
def test_correction_replaces_old_value(first: str, fix: str, old: str, new: str) -> None:
    wm = said(WorkingMemory(), first, turn=1)
    wm = said(wm, fix, turn=2)
    slot = wm.constraints["budget"]
    assert new in slot.value and old not in slot.value and slot.corrected
    assert old not in render(wm)


def test_correction_without_known_key_replaces_latest_slot() -> None:
    wm = said(WorkingMemory(), "Always cc Dana on proposals.", turn=1)
    wm = said(wm, "Make that cc Priya instead.", turn=2)
    (slot,) = wm.constraints.values()
    assert "Priya" in slot.value and slot.corrected


def test_stale_writer_is_rejected() -> None:
    wm = said(WorkingMemory(), "Our budget is $120,000.", turn=1)
    patch = rules_patch("The order number is PO-1.", turn=2)
    newer, _ = apply_patch(wm, patch, expected_version=1, now=T0)
    with pytest.raises(StaleVersionError, match="version 2"):
        apply_patch(newer, patch, expected_version=1, now=T0)
    # The channel reducer applies the same rule to whole records.
    assert reduce_working(newer.to_state(), wm.to_state())["version"] == 2
    assert reduce_working(wm.to_state(), newer.to_state())["version"] == 2
    assert reduce_working({}, wm.to_state()) == wm.to_state()


async def test_concurrent_turns_are_serialised() -> None:
    box = {"wm": WorkingMemory()}

    async def turn(text: str, n: int) -> None:
        async with session_lock("thread-1"):
            read = box["wm"]
            await asyncio.sleep(0.01)  # another turn would interleave here without the lock
            box["wm"], _ = apply_patch(
                read, rules_patch(text, turn=n), expected_version=read.version, now=T0
            )

    await asyncio.gather(turn("Our budget is $120,000.", 1), turn("We need 40 seats.", 2))
    wm = box["wm"]
    assert wm.version == 2 and "budget" in wm.constraints and "quantity" in wm.facts


async def test_without_the_lock_one_writer_is_rejected() -> None:
    box = {"wm": WorkingMemory()}
    errors: list[Exception] = []

    async def turn(text: str, n: int) -> None:
        read = box["wm"]
        await asyncio.sleep(0.01)
        try:
            box["wm"], _ = apply_patch(
                box["wm"], rules_patch(text, turn=n), expected_version=read.version, now=T0
            )
        except StaleVersionError as e:
            errors.append(e)

    await asyncio.gather(turn("Our budget is $120,000.", 1), turn("We need 40 seats.", 2))
    assert len(errors) == 1 and box["wm"].version == 1


def test_idle_ttl_archives_and_clears() -> None:
    wm = said(WorkingMemory(), "Our budget is $120,000.", turn=1, now=T0)
    same, archived = expire(wm, now=T0 + timedelta(minutes=59), ttl_s=3600)
    assert archived is None and same is wm
    cleared, archived = expire(wm, now=T0 + timedelta(hours=2), ttl_s=3600)
    assert archived and any("120,000" in line for line in archived)
    assert cleared.is_empty() and cleared.version == wm.version + 1
    assert cleared.archive == archived
    assert cleared.expired is not None and cleared.expired.lines == archived
    assert (cleared.expired.version, cleared.expired.turn) == (cleared.version, 0)
    _, again = expire(wm, now=T0 + timedelta(hours=2), ttl_s=3600, turn=7)
    assert again == archived
    # A later expiry keeps the whole archive but records only its own lines.
    refilled = said(cleared, "We need 40 seats.", turn=8, now=T0 + timedelta(hours=2))
    second, lines = expire(refilled, now=T0 + timedelta(hours=5), ttl_s=3600, turn=9)
    assert lines and second.expired is not None and second.expired.lines == lines
    assert second.archive == [*archived, *lines] and second.expired.turn == 9
    with pytest.raises(ValueError, match="ttl_s"):
        expire(wm, now=T0, ttl_s=0)


def test_completed_task_clears_task_state() -> None:
    wm = said(WorkingMemory(), "We are preparing the renewal proposal for Acme.", turn=1)
    assert wm.task_state is not None
    wm = said(wm, "Budget is $80k. The deal is signed!", turn=2)
    assert wm.task_state is None and "budget" in wm.constraints
    wm = said(WorkingMemory(), "我们正在准备续约方案。", turn=1)
    wm = said(wm, "已经签约了。", turn=2)
    assert wm.task_state is None


def test_model_patch_is_validated() -> None:
    ok = parse_model_patch(
        'Sure: {"set": [{"category": "facts", "key": "Order Number", "value": "PO-9"}],'
        ' "remove": [], "task_done": true}',
        turn=3,
    )
    assert ok is not None and ok.source == "model"
    assert ok.ops[0].key == "order_number" and ok.ops[-1].category == "task_state"
    assert parse_model_patch('{"set": [{"category": "secrets", "key": "x"}]}', turn=1) is None
    assert parse_model_patch("no json here", turn=1) is None
    assert parse_model_patch('{"set": "oops"}', turn=1) is None


async def test_propose_patch_with_fake_model() -> None:
    model = FakeListChatModel(
        responses=['{"set": [{"category": "goals", "key": "goal", "value": "Close by Q2"}]}']
    )
    patch = await propose_patch(model, WorkingMemory(), "We want to close by Q2", turn=4)
    assert patch is not None
    wm, changes = apply_patch(WorkingMemory(), patch, expected_version=0, now=T0)
    assert wm.goals["goal"].value == "Close by Q2" and changes == ["goals.goal set"]


def test_corrupt_state_raises() -> None:
    with pytest.raises(ValidationError):
        WorkingMemory.from_state({"version": -1})


OPS = st.builds(
    SlotOp,
    category=st.sampled_from(["constraints", "facts", "todos"]),
    key=st.sampled_from(["budget", "deadline", "po"]),
    value=st.sampled_from(["a", "b", "c"]),
)


@settings(max_examples=200, deadline=None)
@given(
    patches=st.lists(
        st.tuples(
            st.lists(OPS, max_size=4), st.integers(0, 6), st.sampled_from(["rules", "model"])
        ),
        max_size=12,
    )
)
def test_merge_invariants(patches: list[tuple[list[SlotOp], int, str]]) -> None:
    wm = WorkingMemory()
    changed_writes = 0
    for ops, turn, source in patches:
        patch = Patch(ops=ops, turn=turn, source=source)  # type: ignore[arg-type]
        before = wm
        wm, changes = apply_patch(wm, patch, expected_version=wm.version, now=T0)
        changed_writes += bool(changes)
        assert wm.version == before.version + bool(changes)
        # Idempotent: the same patch again changes nothing.
        again, more = apply_patch(wm, patch, expected_version=wm.version, now=T0)
        assert more == [] and again.version == wm.version
        # No slot ever moves back to an older turn.
        for category, key, slot in before.slots():
            new = getattr(wm, category).get(key)
            assert new is None or new.turn >= slot.turn
    assert wm.version == changed_writes
