"""Trimming invariants over random histories with tool calls (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from memagent.llm.tokens import count_message_tokens
from memagent.nodes.trimming import broken_indices, trim_messages

WORDS = st.text(alphabet="abc xyz 预算订单 0123", min_size=0, max_size=40)


@st.composite
def histories(draw: st.DrawFn) -> list[BaseMessage]:
    """A system prompt, then turns of: human, optional tool rounds, AI answer.

    Sometimes breaks a pair (drops a ToolMessage or adds an orphan) and
    sometimes delays a tool result past the next human message, to check
    that trimming survives bad input too.
    """
    out: list[BaseMessage] = []
    n = 0

    def nid() -> str:
        nonlocal n
        n += 1
        return f"m{n}"

    if draw(st.booleans()):
        out.append(SystemMessage(draw(WORDS) or "sys", id=nid()))
    for _ in range(draw(st.integers(0, 8))):
        out.append(HumanMessage(draw(WORDS) or "q", id=nid()))
        for _ in range(draw(st.integers(0, 2))):
            k = draw(st.integers(1, 3))
            calls = [{"name": "crm", "args": {"q": draw(WORDS)}, "id": nid()} for _ in range(k)]
            out.append(AIMessage("", tool_calls=calls, id=nid()))
            for call in calls:
                fate = draw(st.sampled_from(["ok", "ok", "ok", "ok", "drop", "late"]))
                tool = ToolMessage(draw(WORDS) or "r", tool_call_id=call["id"], id=nid())
                if fate == "ok":
                    out.append(tool)
                elif fate == "late":
                    out.append(HumanMessage("interjection", id=nid()))
                    out.append(tool)
        if draw(st.booleans()):
            out.append(ToolMessage("orphan", tool_call_id="nope-" + nid(), id=nid()))
        out.append(AIMessage(draw(WORDS) or "a", id=nid()))
    return out


def count(m: BaseMessage) -> int:
    return count_message_tokens(m)


def assert_no_orphans(kept: list[BaseMessage]) -> None:
    asked = {c["id"] for m in kept if isinstance(m, AIMessage) for c in m.tool_calls}
    answered = {m.tool_call_id for m in kept if isinstance(m, ToolMessage)}
    assert answered <= asked, f"orphan ToolMessage(s): {answered - asked}"
    assert asked <= answered, f"tool call(s) without result: {asked - answered}"
    # Results come after their call.
    seen: set[str] = set()
    for m in kept:
        if isinstance(m, AIMessage):
            seen |= {str(c["id"]) for c in m.tool_calls}
        if isinstance(m, ToolMessage):
            assert m.tool_call_id in seen


@settings(max_examples=300, deadline=None)
@given(history=histories(), budget=st.integers(0, 400), pin=st.integers(0, 30))
def test_trim_invariants(history: list[BaseMessage], budget: int, pin: int) -> None:
    must_keep = {f"m{pin}"}
    r = trim_messages(history, max_tokens=budget, must_keep=must_keep, count=count)
    ids = [str(m.id) for m in history]
    # Partition in original order.
    assert sorted(ids) == sorted([str(m.id) for m in r.kept + r.evicted])
    assert [str(m.id) for m in r.kept] == [i for i in ids if i in {str(m.id) for m in r.kept}]
    # System and valid must-keep always kept.
    kept_ids = {m.id for m in r.kept}
    broken_ids = {history[i].id for i in broken_indices(history)}
    for m in history:
        if isinstance(m, SystemMessage):
            assert m.id in kept_ids
        if m.id in must_keep and m.id not in broken_ids:
            assert m.id in kept_ids
    assert_no_orphans(r.kept)
    # Budget respected unless flagged.
    assert r.tokens == sum(count(m) for m in r.kept)
    if not r.over_budget:
        assert r.tokens <= budget


@settings(max_examples=200, deadline=None)
@given(history=histories(), budget=st.integers(0, 400))
def test_oldest_turns_go_first(history: list[BaseMessage], budget: int) -> None:
    r = trim_messages(history, max_tokens=budget, count=count)
    broken_ids = {history[i].id for i in broken_indices(history)}
    kept_ids = {m.id for m in r.kept}
    positions = {m.id: i for i, m in enumerate(history)}
    evicted = [
        positions[m.id]
        for m in r.evicted
        if m.id not in broken_ids and not isinstance(m, SystemMessage)
    ]
    kept = [positions[i] for i in kept_ids if not isinstance(history[positions[i]], SystemMessage)]
    if evicted and kept:
        assert max(evicted) < min(kept), "a newer turn was evicted before an older one"
    # The last turn is kept even over budget.
    humans = [m for m in history if isinstance(m, HumanMessage)]
    if humans and humans[-1].id not in broken_ids:
        assert humans[-1].id in kept_ids


def test_pair_kept_together_when_budget_allows_only_part() -> None:
    call = {"name": "crm", "args": {"id": "PO-1"}, "id": "c1"}
    history: list[BaseMessage] = [
        SystemMessage("You are a sales assistant.", id="s"),
        HumanMessage("Look up order PO-1", id="h1"),
        AIMessage("", tool_calls=[call], id="a1"),
        ToolMessage("PO-1: 40 seats, shipped " + "x " * 200, tool_call_id="c1", id="t1"),
        AIMessage("It shipped.", id="a2"),
        HumanMessage("thanks", id="h2"),
    ]
    r = trim_messages(history, max_tokens=60, count=count)
    assert [m.id for m in r.kept] == ["s", "h2"]
    assert {m.id for m in r.evicted} == {"h1", "a1", "t1", "a2"}
    r = trim_messages(history, max_tokens=60, must_keep={"t1"}, count=count)
    assert {"a1", "t1"} <= {m.id for m in r.kept}
    assert_no_orphans(r.kept)


def test_broken_pairs_are_evicted() -> None:
    history: list[BaseMessage] = [
        HumanMessage("hi", id="h1"),
        AIMessage("", tool_calls=[{"name": "crm", "args": {}, "id": "c1"}], id="a1"),
        ToolMessage("stray", tool_call_id="zzz", id="t0"),
        HumanMessage("again", id="h2"),
    ]
    r = trim_messages(history, max_tokens=10_000, count=count)
    assert [m.id for m in r.kept] == ["h1", "h2"]
    assert {m.id for m in r.broken} == {"a1", "t0"}


def test_rejects_negative_budget() -> None:
    try:
        trim_messages([], max_tokens=-1)
    except ValueError as e:
        assert "max_tokens" in str(e)
    else:
        raise AssertionError("negative budget accepted")
