"""Trim a conversation to a token budget without breaking it.

Invariants (property-tested in tests/unit/test_trimming.py):

- system messages and must-keep messages are always kept;
- whole turns are removed, oldest first; the last ``keep_last_turns`` turns
  are kept even when they alone exceed the budget (``over_budget`` says so);
- an AIMessage with tool calls and the ToolMessages answering it are kept or
  evicted together: the result has no orphan ToolMessage and no call without
  its result. Pairs that were already broken in the input are evicted, since
  an OpenAI-compatible endpoint rejects them anyway;
- kept + evicted is exactly the input, each in the original order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from memagent.nodes.messages import tokens_of

Counter = Callable[[BaseMessage], int]


@dataclass(frozen=True)
class TrimResult:
    kept: list[BaseMessage]
    evicted: list[BaseMessage]
    tokens: int
    """Tokens of ``kept`` as counted by the counter (no reply priming)."""
    over_budget: bool = False
    broken: list[BaseMessage] = field(default_factory=list)
    """Evicted because their tool call/result pair was already incomplete."""


def _call_ids(message: BaseMessage) -> set[str]:
    if isinstance(message, AIMessage):
        return {c["id"] for c in message.tool_calls if c.get("id")}  # type: ignore[misc]
    return set()


def broken_indices(messages: Sequence[BaseMessage]) -> set[int]:
    """Indices of tool-call messages whose pair is incomplete.

    An AIMessage is broken when any of its call ids has no later ToolMessage
    (or a call has no id); a ToolMessage is broken when no earlier AIMessage
    asked for its id, or when that AIMessage is itself broken.
    """
    answered: dict[str, int] = {}
    asked: dict[str, int] = {}
    broken: set[int] = set()
    for i, m in enumerate(messages):
        if isinstance(m, AIMessage) and m.tool_calls:
            if any(not c.get("id") for c in m.tool_calls):
                broken.add(i)
            for cid in _call_ids(m):
                asked[cid] = i
        elif isinstance(m, ToolMessage):
            if m.tool_call_id in asked and m.tool_call_id not in answered:
                answered[m.tool_call_id] = i
            else:
                broken.add(i)
    for cid, i in asked.items():
        if cid not in answered:
            broken.add(i)
    # A ToolMessage answering a broken AIMessage is broken too.
    for cid, j in answered.items():
        if asked[cid] in broken:
            broken.add(j)
    return broken


def turns(indices: Sequence[int], messages: Sequence[BaseMessage]) -> list[list[int]]:
    """Group message indices into turns; a turn starts at each HumanMessage.

    A tool call whose result arrives after a later HumanMessage joins the
    turns in between into one, so the pair is never split across turns.
    """
    groups: list[list[int]] = []
    for i in indices:
        starts = isinstance(messages[i], HumanMessage) and not _open_calls(groups, messages, i)
        if starts or not groups:
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def _open_calls(groups: list[list[int]], messages: Sequence[BaseMessage], upto: int) -> bool:
    """Whether the current turn has a tool call not yet answered before ``upto``."""
    if not groups:
        return False
    asked: set[str] = set()
    for i in groups[-1]:
        m = messages[i]
        asked |= _call_ids(m)
        if isinstance(m, ToolMessage):
            asked.discard(m.tool_call_id)
    return bool(asked)


def _pin_pairs(messages: Sequence[BaseMessage], pinned: set[int]) -> set[int]:
    """Extend pinned indices to whole tool-call pairs, so pinning never splits one."""
    by_call: dict[str, set[int]] = {}
    for i, m in enumerate(messages):
        ids = _call_ids(m) if isinstance(m, AIMessage) else set()
        if isinstance(m, ToolMessage):
            ids = {m.tool_call_id}
        for cid in ids:
            by_call.setdefault(cid, set()).add(i)
    result = set(pinned)
    changed = True
    while changed:  # an AIMessage with several calls links several groups
        changed = False
        for group in by_call.values():
            if group & result and not group <= result:
                result |= group
                changed = True
    return result


def trim_messages(
    messages: Sequence[BaseMessage],
    *,
    max_tokens: int,
    must_keep: Collection[str] = (),
    keep_last_turns: int = 1,
    count: Counter = tokens_of,
) -> TrimResult:
    """Keep the newest whole turns that fit ``max_tokens``, plus the pinned messages.

    ``must_keep`` are message ids that are pinned like system messages.
    A turn that does not fit stops the walk: older turns are never kept
    after a newer one was dropped, so the window stays contiguous.
    """
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
    if keep_last_turns < 0:
        raise ValueError(f"keep_last_turns must be >= 0, got {keep_last_turns}")
    broken = broken_indices(messages)
    pinned = {
        i
        for i, m in enumerate(messages)
        if i not in broken and (isinstance(m, SystemMessage) or (m.id and m.id in must_keep))
    }
    pinned = _pin_pairs(messages, pinned) - broken
    rest = [i for i in range(len(messages)) if i not in pinned and i not in broken]
    groups = turns(rest, messages)
    used = sum(count(messages[i]) for i in pinned)
    keep = set(pinned)
    over = used > max_tokens
    for n, group in enumerate(reversed(groups)):
        cost = sum(count(messages[i]) for i in group)
        if n < keep_last_turns:
            keep.update(group)
            used += cost
            over = over or used > max_tokens
        elif used + cost <= max_tokens:
            keep.update(group)
            used += cost
        else:
            break
    kept = [m for i, m in enumerate(messages) if i in keep]
    evicted = [m for i, m in enumerate(messages) if i not in keep]
    return TrimResult(
        kept=kept,
        evicted=evicted,
        tokens=used,
        over_budget=over,
        broken=[messages[i] for i in sorted(broken)],
    )
