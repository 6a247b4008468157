"""The budgeted middle of the prompt: the current input cut to fit with the briefing
before its words, the recent window (whole turns, evicted in batches), the evicted turns
folded into the summary by the rules.

The window holds the earlier user messages as they were sent (``sent_history``), so the
prompt only appends to the previous one; the briefing lists only the memories no
briefing still inside the window already quoted. Which briefings stay in the window
depends on the room the new briefing leaves, so the two are settled together: a quoted
line whose message is evicted is listed again (``placed``).

Split out of ``memagent.nodes.prompt_assembly``, which re-exports the public names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from memagent.llm.tokens import (
    MESSAGE_OVERHEAD,
    REPLY_PRIMING,
    Budget,
    content_text,
    count_message_tokens,
    count_tokens,
    truncate_to_tokens,
)
from memagent.nodes.briefing import briefing_lines, briefing_section, with_briefing
from memagent.nodes.sent_history import briefed_lines, mark_sent, stored
from memagent.nodes.summary import bound_summary, fold_rules
from memagent.nodes.trimming import trim_messages
from memagent.prompts.prompt_assembly import INPUT_SHORTENED, SECTION_SEPARATOR, WITH_BRIEFING

LOW_WATERMARK = 0.6
"""When the recent window overflows it is cut to this fraction of its cap, so
turns are evicted (and summarised) in batches, not one every turn."""


def fit_lines(text: str, max_tokens: int) -> tuple[str, int]:
    """Keep the leading lines of ``text`` that fit; returns (text, lines dropped)."""
    lines = text.splitlines()
    kept = list(lines)
    while kept and count_tokens("\n".join(kept)) > max_tokens:
        kept.pop()
    return "\n".join(kept), len(lines) - len(kept)


def fit_input(current: BaseMessage, max_tokens: int) -> tuple[BaseMessage, bool]:
    """``current`` as the prompt may hold it: itself if it fits in ``max_tokens``, else a
    copy (same id) whose middle is replaced by ``INPUT_SHORTENED``."""
    text = content_text(current.content)
    room = max(0, max_tokens - MESSAGE_OVERHEAD)
    if count_tokens(text) <= room:
        return current, False
    note = INPUT_SHORTENED.format(omitted=len(text))
    cut = truncate_to_tokens(text, room, marker=note)
    head, _, tail = cut.partition(note)
    cut = f"{head}{INPUT_SHORTENED.format(omitted=len(text) - len(head) - len(tail))}{tail}"
    return current.model_copy(update={"content": cut}), True


@dataclass(frozen=True)
class Placed:
    """The settled middle of the prompt."""

    brief_text: str
    brief_items: int
    brief_extra: int
    """Tokens the briefing adds to the current message."""
    current: BaseMessage | None
    shortened: bool
    cap: int
    window: list[BaseMessage]
    evicted: list[BaseMessage]
    """As stored (the user's own words), for the summary."""


def placed(
    *,
    briefing: Sequence[Mapping[str, Any]],
    fixed: Sequence[str],
    history: Sequence[BaseMessage],
    originals: Sequence[BaseMessage],
    current: BaseMessage | None,
    budget: Budget,
    reserve: int,
    must_keep: Sequence[str],
    low_watermark: float,
) -> Placed:
    """Briefing, current input and recent window, settled together. ``history`` is the
    window's candidates as sent, ``originals`` the same messages as stored. Each pass can
    only evict more, so the lines counted as still shown only shrink: it ends."""
    shown, said = briefed_lines(history), _said(history)
    for _ in range(len(history) + 2):  # each pass shrinks the window or ends
        lines = briefing_lines(briefing, max_tokens=budget.briefing, shown=shown, said=said)
        brief_text, shortened, extra, msg, head = (
            briefing_section(lines),
            False,
            0,
            current,
            [*fixed],
        )
        if msg is not None:
            msg, shortened, extra = placed_input(msg, brief_text, lines, fixed, budget, reserve)
        else:
            head.append(brief_text)
        cap = recent_cap(head, [msg] if msg is not None else [], budget, reserve)
        window, evicted = recent_window(history, cap, must_keep, low_watermark)
        still, still_said = shown & briefed_lines(window), _said(window)
        if still == shown and still_said == said:
            break
        shown, said = still, still_said
    return Placed(
        brief_text, len(lines), extra, msg, shortened, cap, window, stored(evicted, originals)
    )


def _said(messages: Sequence[BaseMessage]) -> list[str]:
    """The user messages' texts as the model sees them (what a memory may already be in)."""
    return [content_text(m.content) for m in messages if isinstance(m, HumanMessage)]


def placed_input(
    current: BaseMessage,
    brief_text: str,
    lines: Sequence[str],
    fixed: Sequence[str],
    budget: Budget,
    reserve: int,
) -> tuple[BaseMessage, bool, int]:
    """The prompt's copy of ``current``: cut to the tokens the window leaves it (less the
    system head, the ``reserve``d summary, the briefing and the reply priming), with the
    briefing before its words, marked as sent when it differs from ``current``; also
    whether it was cut and the briefing's tokens in it."""
    brief_extra = 0
    if brief_text:
        brief_extra = count_tokens(WITH_BRIEFING.format(briefing=brief_text, message="")) + 1
    head_tokens = count_message_tokens(SystemMessage(SECTION_SEPARATOR.join(fixed)))
    room = budget.total - head_tokens - reserve - REPLY_PRIMING - brief_extra
    copy, shortened = fit_input(current, max(room, 0))
    if brief_text:
        copy = with_briefing(copy, brief_text)
    if copy is not current:
        copy = mark_sent(copy, current, lines if brief_text else ())
    return copy, shortened, brief_extra


def recent_cap(
    fixed: Sequence[str], current_msgs: Sequence[BaseMessage], budget: Budget, reserve: int
) -> int:
    """Tokens the recent window may take: what the fixed blocks, the current input and the
    ``reserve``d summary leave, up to ``budget.recent``."""
    fixed_tokens = count_message_tokens(
        [SystemMessage(SECTION_SEPARATOR.join(t for t in fixed if t)), *current_msgs],
        reply_priming=True,
    )
    return max(0, min(budget.recent, budget.total - fixed_tokens - reserve))


def recent_window(
    history: Sequence[BaseMessage], cap: int, must_keep: Sequence[str], low_watermark: float
) -> tuple[list[BaseMessage], list[BaseMessage]]:
    """The recent window (system messages left out) and the turns evicted from it: on
    overflow it is cut to ``low_watermark`` of ``cap``, whole turns, ``must_keep`` kept."""
    window = [m for m in history if not isinstance(m, SystemMessage)]
    evicted: list[BaseMessage] = []
    if count_message_tokens(window) > cap:
        trimmed = trim_messages(
            window, max_tokens=int(cap * low_watermark), must_keep=must_keep, keep_last_turns=0
        )
        window, evicted = trimmed.kept, trimmed.evicted
    return window, evicted


def folded(summary: str, evicted: Sequence[BaseMessage], max_tokens: int) -> str:
    """``summary`` with the evicted turns folded in by the rules, bounded to ``max_tokens``."""
    if evicted:
        summary = fold_rules(summary, list(evicted), max_tokens=max_tokens)
    if count_tokens(summary) > max_tokens:
        summary = bound_summary(summary, max_tokens)
    return summary
