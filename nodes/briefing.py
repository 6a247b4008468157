"""The memory briefing as the prompt shows it: one quoted line per recalled item, notes
that read as orders withheld, the block placed in the prompt's copy of the current user
message (and taken out again for the tool router).

Split out of ``memagent.nodes.prompt_assembly``, which re-exports every public name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage, HumanMessage

from memagent.core.redact import PLACEHOLDER_RE
from memagent.llm.tokens import count_tokens
from memagent.memory.episodes import asks_only
from memagent.memory.poison import screen_for_prompt
from memagent.nodes.briefing_labels import fact_label, person_of
from memagent.prompts.prompt_assembly import (
    BRIEFING_CLOSE,
    BRIEFING_HEADER,
    BRIEFING_OPEN,
    BRIEFING_RULES,
    EPISODE_QUOTE,
    FACT_LINE,
    UNCONFIRMED,
    WITH_BRIEFING,
    WITHHELD,
)

MAX_BRIEFING_ITEMS = 8
MAX_BRIEFING_CHARS = 150


def _withheld(match: re.Match[str]) -> str:
    return WITHHELD.get(match.group(1), "[withheld]")


def _clean(text: str) -> str:
    """One line, with the briefing delimiters defused so data cannot close the block and
    redaction placeholders shown as withheld values (never a code to repeat)."""
    text = PLACEHOLDER_RE.sub(_withheld, " ".join(text.split()))
    for marker in (BRIEFING_OPEN, BRIEFING_CLOSE, "<<<", ">>>"):
        text = text.replace(marker, "‹‹" if "<" in marker else "››")
    return text


def _item_value(item: Mapping[str, Any], *names: str) -> Any:
    raw = item.get("value")
    inner: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    for name in names:
        for source in (item, inner):
            value = source.get(name)
            if value not in (None, ""):
                return value
    return None


def briefing_line(item: Mapping[str, Any], *, max_chars: int = MAX_BRIEFING_CHARS) -> str | None:
    """``- decision maker, Li Wei: "Their CTO Li Wei is the decision maker"``: a fact
    whose key has a known kind is labelled with it, the person it is about and its value
    (``memagent.nodes.briefing_labels``; only words the note itself says), then quoted.
    Any other note is quoted first, then what kind of note it is and its date
    (``- "demo agreed for next Wednesday" (commitment, 2026-01-12)``); a pending fact is
    tagged ``unconfirmed``. Plain facts carry no kind tag."""
    content = _item_value(item, "content", "text", "memory")
    if not isinstance(content, str) or not content.strip():
        return None
    content = _shown(content, max_chars)
    if _item_value(item, "origin") == "episode":
        return episode_line(content, _item_value(item, "date"))
    tags = []
    if _item_value(item, "status") in ("unconfirmed", "pending"):
        tags.append(UNCONFIRMED)
    label = fact_label(item, content)
    kind = _item_value(item, "type", "kind")
    if label is None and isinstance(kind, str) and kind not in ("fact", "status"):
        tags.append(_clean(kind)[:20])
    when = _item_value(item, "event_time", "date", "valid_from", "created_at")
    if isinstance(when, datetime | date):
        when = when.isoformat()
    if isinstance(when, str):
        tags.append(when[:10])
    suffix = f" ({', '.join(tags)})" if tags else ""
    quote = json.dumps(content, ensure_ascii=False)
    if label is not None:
        return FACT_LINE.format(label=_clean(label), quote=quote) + suffix
    return f"- {quote}{suffix}"


def _shown(content: str, max_chars: int) -> str:
    content = _clean(content)
    if len(content) > max_chars:
        content = content[: max_chars - 1].rstrip() + "…"
    return content


def quoted(content: str, *, max_chars: int = MAX_BRIEFING_CHARS) -> str:
    """How a briefing line quotes ``content`` (cleaned, cut, JSON-quoted): what to look
    for in a prompt to find a memory it showed."""
    return json.dumps(_shown(content, max_chars), ensure_ascii=False)


def episode_line(content: str, when: Any) -> str:
    """``- 2026-11-03, you wrote: "…"``: an episode is a dated quote of the user, not a
    fact (``memagent.memory.episodes``)."""
    day = when.isoformat()[:10] if isinstance(when, datetime | date) else str(when or "")[:10]
    quoted = json.dumps(content, ensure_ascii=False)
    return "- " + (EPISODE_QUOTE.format(date=day, quote=quoted) if day else quoted)


def _reads_as_order(content: str) -> bool:
    """A recalled note or episode that reads as an order to the assistant: the rules and the
    n-gram judge (``screen_for_prompt``). Episodes are judged like notes since the judge
    trains on LoCoMo chat turns: it reads 0 of conv-26's 419 held-out turns as orders."""
    return screen_for_prompt(content) is not None


def format_briefing(
    items: Sequence[Mapping[str, Any]],
    *,
    max_tokens: int,
    max_items: int = MAX_BRIEFING_ITEMS,
    shown: Collection[str] = (),
) -> tuple[str, int]:
    """The briefing section and how many items it holds (best items first, as given;
    facts, the current state, before episodes, the dated quotes). Lines in ``shown`` (a
    briefing still in the prompt's history already quoted them) are left out."""
    lines = briefing_lines(items, max_tokens=max_tokens, max_items=max_items, shown=shown)
    return briefing_section(lines), len(lines)


def briefing_lines(
    items: Sequence[Mapping[str, Any]],
    *,
    max_tokens: int,
    max_items: int = MAX_BRIEFING_ITEMS,
    shown: Collection[str] = (),
    said: Sequence[str] = (),
) -> list[str]:
    """The lines ``format_briefing`` shows: not reading as orders, not an episode that only
    asked the assistant something (``asks_only``: "Brief me before the call", "华信的预算是
    多少？"), not in ``shown``, not a memory whose words one of the ``said`` texts holds (a
    message still in view), at most ``max_items``, the whole section within
    ``max_tokens``; lines about one person together (``by_person``). The account's key
    facts pinned for a broad question ("What do you know about Acme?", origin
    ``overview``) are listed even when in view: asked right after the note that said
    them, the small model otherwise answered from its own first reply ("I don't have any
    information about ...") instead of the note further up."""
    lines: list[str] = []
    people: list[str] = []  # who each line is about ('' for none)
    flat_said = [" ".join(t.split()) for t in said]
    for item in sorted(items, key=lambda i: _item_value(i, "origin") == "episode"):
        content = _item_value(item, "content", "text", "memory")
        if isinstance(content, str) and _reads_as_order(content):
            continue  # reads as an order: withheld (quoting alone did not stop the local model)
        if _only_asked(item, content):
            continue  # only asked the assistant something: says nothing about the customer
        line = briefing_line(item)
        if line is None or line in lines:
            continue
        if _item_value(item, "origin") != "overview" and (
            line in shown or (isinstance(content, str) and _in_view(content, flat_said))
        ):
            continue  # a broad question's key facts are listed even when in view
        if len(lines) == max_items:
            break
        text = briefing_section([*lines, line])
        if count_tokens(text) > max_tokens:
            break
        lines.append(line)
        people.append(_person(item))
    return by_person(lines, people)


def _only_asked(item: Mapping[str, Any], content: Any) -> bool:
    return (
        _item_value(item, "origin") == "episode" and isinstance(content, str) and asks_only(content)
    )


def _person(item: Mapping[str, Any]) -> str:
    content = _item_value(item, "content", "text", "memory")
    if _item_value(item, "origin") == "episode" or not isinstance(content, str):
        return ""
    return (person_of(item, _shown(content, MAX_BRIEFING_CHARS)) or "").casefold()


def by_person(lines: Sequence[str], people: Sequence[str]) -> list[str]:
    """``lines`` with the lines about one person together, where that person's first line
    is (the rest keep their order): a small model reads "Li Wei, role" and "Li Wei,
    contact preference" as one person only when they sit together."""
    out: list[tuple[str, str]] = []
    for line, who in zip(lines, people, strict=True):
        last = max((i for i, (_, w) in enumerate(out) if who and w == who), default=None)
        out.insert(len(out) if last is None else last + 1, (line, who))
    return [line for line, _ in out]


def _in_view(content: str, flat_said: Sequence[str]) -> bool:
    flat = " ".join(content.split())
    return bool(flat) and any(flat in text for text in flat_said)


def briefing_section(lines: Sequence[str]) -> str:
    """The briefing section quoting ``lines`` ('' when there are none)."""
    if not lines:
        return ""
    return "\n".join([BRIEFING_HEADER, BRIEFING_OPEN, *lines, BRIEFING_CLOSE, BRIEFING_RULES])


def with_briefing(current: BaseMessage, brief_text: str) -> BaseMessage:
    """The prompt's copy of ``current`` (same id) with the briefing before its words."""
    content = current.content
    if isinstance(content, str):
        text = WITH_BRIEFING.format(briefing=brief_text, message=content)
        return current.model_copy(update={"content": text})
    lead = WITH_BRIEFING.format(briefing=brief_text, message="").rstrip()
    return current.model_copy(update={"content": [{"type": "text", "text": lead}, *content]})


M = TypeVar("M", bound=BaseMessage)
_MESSAGE_MARKER = WITH_BRIEFING.split("{briefing}", 1)[1].split("{message}", 1)[0]


def without_briefing(prompt: Sequence[M]) -> list[M]:
    """``prompt`` with the user's words only in its user messages (for the tool router,
    which must route on what the user asked, not on recalled notes; earlier user messages
    carry the briefing they were sent with, ``memagent.nodes.sent_history``)."""
    out = list(prompt)
    for i, message in enumerate(out):
        text = message.content
        if isinstance(message, HumanMessage) and isinstance(text, str) and _MESSAGE_MARKER in text:
            out[i] = message.model_copy(update={"content": text.rsplit(_MESSAGE_MARKER, 1)[1]})
    return out
