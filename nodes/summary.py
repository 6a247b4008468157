"""Running summary of the turns trimmed out of the recent window.

Two summarisers share one bounded format:

- the rules summariser runs inline in prompt_assembly (no model, no wait): it
  keeps the sentences of evicted messages that carry numbers, amounts, dates,
  identifiers, names, decisions, requirements and preferences, as lines tagged
  with their turn (``[t12] user: ...``), under a "pending" header;
- the model summariser runs after the reply (``after_reply``): it folds the
  pending turns, re-read from the raw messages, into consolidated bullet lines.
  Any line whose numbers the model dropped is re-added verbatim from the rules
  digest, because a summary that loses "PO-4471" or "$120k" is the failure this
  exists to prevent.

The summary is bounded: when it exceeds its budget the older part is
summarised again (recursively), while the newest lines that fit half the budget
are kept verbatim; if condensing makes no progress the oldest line is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage

from memagent.llm.tokens import content_text, count_tokens
from memagent.memory.working_rules import HYPOTHETICAL
from memagent.nodes.messages import turn_of
from memagent.prompts.summary import (
    PENDING_HEADER,
    RESUMMARIZE_USER,
    SUMMARY_SYSTEM,
    SUMMARY_USER,
)

MAX_LINE_CHARS = 220
MAX_TRANSCRIPT_CHARS = 600
"""Per message, in the transcript the model summarises (tool dumps are long)."""

_NUMBER = re.compile(r"\d[\d,.:/-]*")
_SALIENT = re.compile(
    r"\d|[$€£¥]|\b[A-Z]{2,}[-#]?\d+|\b(?:agreed?|decided?|confirm(?:ed)?|approved?|signed|"
    r"must|never|always|require[sd]?|need(?:s|ed)?|prefer(?:s|red)?|deadline|budget|"
    r"contact|todo|follow[- ]?up|remind|promise[sd]?|deliver|discount|price|order|"
    r"invoice|contract|renewal|demo|meeting|cancel(?:led)?)\b|"
    r"[一二三四五六七八九十百千万亿两]+(?:个|台|套|位|名|元|万|天|周|月|年|号)|"
    r"同意|决定|确认|批准|签约|签署|必须|不要|不能|务必|需要|希望|偏好|喜欢|截止|预算|联系人|"
    r"对接人|待办|跟进|提醒|承诺|交付|折扣|价格|报价|订单|发票|合同|续约|演示|会议|取消",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?。！？；;\n]+[.!?。！？；;]?")
_HARD = re.compile(
    r"\d|[$€£¥]|\b[A-Z]{2,}[-#]?\d+|\b(?:agreed|decided|confirmed|approved|signed|"
    r"scheduled|I will send|I'll send|promised)\b|已同意|已决定|已确认|已批准|已签约|签署了|安排在|承诺",
    re.IGNORECASE,
)
"""What makes an assistant sentence worth keeping: facts and commitments, not advice."""
_PENDING_LINE = re.compile(r"^(?:\[t\d+\] )?(?:user|assistant|tool):")
_CHIT_CHAT = re.compile(
    r"^\s*(?:hi|hello|hey|thanks?|thank you|great|ok(?:ay)?|cool|sure|bye|"
    r"你好|谢谢|好的|哈哈|再见)\b[\s!.,。！，]*$",
    re.IGNORECASE,
)


@dataclass
class Summary:
    """Parsed running summary: consolidated lines, then rules lines awaiting the model."""

    digest: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> Summary:
        head, sep, tail = text.partition(PENDING_HEADER)
        digest = [line for line in head.splitlines() if line.strip()]
        pending = [line for line in tail.splitlines() if line.strip()] if sep else []
        return cls(digest, pending)

    def render(self) -> str:
        parts = list(self.digest)
        if self.pending:
            parts += [PENDING_HEADER, *self.pending]
        return "\n".join(parts)

    def pending_turns(self) -> set[int]:
        found = (re.match(r"\[t(\d+)\]", line) for line in self.pending)
        return {int(m.group(1)) for m in found if m}


def _role(message: BaseMessage) -> str:
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, SystemMessage):
        return "system"
    return "assistant"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def salient_sentences(text: str, *, strict: bool = False) -> list[str]:
    """Sentences worth keeping: hard facts, decisions, requirements, preferences.

    ``strict`` (for the assistant's own messages) keeps only facts and
    commitments; hypotheticals are never kept.
    """
    pattern = _HARD if strict else _SALIENT
    out = []
    protected = re.sub(r"(?<=\d)\.(?=\d)", "\u2024", text)  # 13.5 is not two sentences
    for raw in _SENTENCE.findall(protected):
        s = raw.strip().replace("\u2024", ".")
        if s and not _CHIT_CHAT.match(s) and pattern.search(s) and not HYPOTHETICAL.search(s):
            out.append(s)
    return out


def rules_lines(messages: Sequence[BaseMessage], *, seen: Sequence[str] = ()) -> list[str]:
    """One tagged line per evicted message that says something worth keeping."""
    known = set(seen)
    lines = []
    for m in messages:
        if isinstance(m, SystemMessage):
            continue
        strict = not isinstance(m, HumanMessage | ToolMessage)
        found = salient_sentences(content_text(m.content), strict=strict)
        kept = [s for s in found if s not in known]
        if not kept:
            continue
        known.update(kept)
        turn = turn_of(m)
        tag = f"[t{turn}] " if turn is not None else ""
        lines.append(_clip(f"{tag}{_role(m)}: {' '.join(kept)}", MAX_LINE_CHARS))
    return lines


def lines_tokens(lines: Sequence[str]) -> int:
    return count_tokens("\n".join(lines))


def condense_rules(lines: Sequence[str]) -> list[str]:
    """One level of rules re-summarisation: keep only fact-bearing fragments, shorter."""
    out: list[str] = []
    for line in lines:
        tag, _, body = line.partition(": ") if ": " in line[:24] else ("", "", line)
        frags = [f.strip() for f in re.split(r"[;，；、]|,(?!\d)| and | but ", body) if f.strip()]
        hard = [f for f in frags if _NUMBER.search(f) or re.search(r"[A-Z]{2,}|[$€£¥]", f)]
        text = "; ".join(hard or frags[:1])
        text = _clip(f"{tag}: {text}" if tag else text, max(60, len(line) * 2 // 3))
        if text not in out:
            out.append(text)
    return out


def _split_newest(lines: list[str], max_tokens: int) -> tuple[list[str], list[str]]:
    """(older, newest) where newest is the longest tail fitting half the budget."""
    n = len(lines)
    while n > 0 and lines_tokens(lines[n - 1 :]) <= max_tokens // 2:
        n -= 1
    if n == len(lines):  # even the newest line alone is over half: keep it anyway
        n = len(lines) - 1
    return lines[:n], lines[n:]


def bound_lines(
    lines: list[str], max_tokens: int, condense: Callable[[list[str]], list[str]]
) -> list[str]:
    """Recursively condense the older lines until everything fits ``max_tokens``."""
    lines = list(lines)
    while lines and lines_tokens(lines) > max_tokens:
        older, newest = _split_newest(lines, max_tokens)
        if not older:
            return [_clip(newest[-1], max(40, max_tokens * 2))] if max_tokens > 0 else []
        smaller = condense(older)
        if lines_tokens(smaller) >= lines_tokens(older):
            smaller = older[1:]
        lines = smaller + newest
    return lines


async def abound_lines(
    lines: list[str], max_tokens: int, condense: Callable[[list[str]], Awaitable[list[str]]]
) -> list[str]:
    """``bound_lines`` with an async (model) condenser; rules take over on no progress."""
    lines = list(lines)
    while lines and lines_tokens(lines) > max_tokens:
        older, newest = _split_newest(lines, max_tokens)
        if not older:
            return bound_lines(lines, max_tokens, condense_rules)
        smaller = await condense(older)
        if lines_tokens(smaller) >= lines_tokens(older):
            smaller = condense_rules(older)
            if lines_tokens(smaller) >= lines_tokens(older):
                smaller = older[1:]
        lines = smaller + newest
    return lines


def fold_rules(summary: str, evicted: Sequence[BaseMessage], *, max_tokens: int) -> str:
    """Fold evicted messages into the summary with rules only (inline, no model)."""
    s = Summary.parse(summary)
    s.pending += rules_lines(evicted, seen=_sentences_in(s))
    return bound_summary(s.render(), max_tokens)


def bound_summary(summary: str, max_tokens: int) -> str:
    """The summary cut to ``max_tokens`` with rules, keeping its digest/pending structure."""
    s = Summary.parse(summary)
    room = max_tokens - (count_tokens(PENDING_HEADER) + 1 if s.pending else 0)
    both = bound_lines(s.digest + s.pending, max(0, room), condense_rules)
    s.digest = [line for line in both if not _PENDING_LINE.match(line)]
    s.pending = [line for line in both if _PENDING_LINE.match(line)]
    return s.render()


def drop_superseded(summary: str, replaced: Sequence[tuple[int, str]]) -> str:
    """Remove summary lines that only repeat a value the user has since replaced.

    ``replaced`` holds (turn, old value) of working-memory slots. A line goes when it
    contains the old value, or carries that turn's tag and all of its numbers, so the
    prompt does not show "$120,000" next to the corrected "$135,000".
    """
    if not replaced or not summary:
        return summary
    s = Summary.parse(summary)

    def stale(line: str) -> bool:
        for turn, value in replaced:
            core = value.strip()[:60]
            nums = _numbers(value)
            if core and core in line:
                return True
            if nums and line.startswith(f"[t{turn}] user:") and nums <= _numbers(line):
                return True
        return False

    s.digest = [line for line in s.digest if not stale(line)]
    s.pending = [line for line in s.pending if not stale(line)]
    return s.render()


def without_repeats(summary: str, values: Sequence[str]) -> str:
    """The summary minus lines that only repeat a must-keep slot value.

    Used when rendering: the prompt shows the slot already, and the stored
    summary keeps the line in case the slot expires.
    """
    if not values or not summary:
        return summary
    kept = [v.strip() for v in values if v.strip()]

    def repeat(line: str) -> bool:
        body = line.split(": ", 1)[1] if _PENDING_LINE.match(line) else line
        body = body.rstrip("…").strip()
        return bool(body) and any(v.startswith(body) for v in kept)

    s = Summary.parse(summary)
    s.digest = [line for line in s.digest if not repeat(line)]
    s.pending = [line for line in s.pending if not repeat(line)]
    return s.render()


def _sentences_in(s: Summary) -> list[str]:
    """Sentences already in the summary (tags stripped), so repeats are not added again."""
    bodies = [_PENDING_LINE.sub("", line, count=1).strip() for line in s.digest + s.pending]
    return [x for body in bodies for x in salient_sentences(body)]


def _lines_of(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return [line if line.startswith("- ") else f"- {line.lstrip('-* ')}" for line in lines]


def transcript(messages: Sequence[BaseMessage]) -> str:
    out = []
    for m in messages:
        if isinstance(m, SystemMessage):
            continue
        turn = turn_of(m)
        tag = f"[t{turn}] " if turn is not None else ""
        out.append(f"{tag}{_role(m)}: {_clip(content_text(m.content), MAX_TRANSCRIPT_CHARS)}")
    return "\n".join(out)


def _numbers(text: str) -> set[str]:
    return {n.strip(".,:/-") for n in _NUMBER.findall(text) if n.strip(".,:/-")}


async def fold_model(
    model: BaseChatModel,
    summary: str,
    messages: Sequence[BaseMessage],
    *,
    max_tokens: int,
) -> str:
    """Consolidate the summary's pending lines with the model, from the raw ``messages``.

    Raises whatever the model raises (callers degrade to the rules summary).
    """
    s = Summary.parse(summary)
    text = transcript(messages) or "\n".join(s.pending)
    if not text:
        return summary
    prompt = SUMMARY_USER.format(
        previous="\n".join(s.digest) or "(empty)", transcript=text, max_tokens=max_tokens
    )
    reply = await model.ainvoke([SystemMessage(SUMMARY_SYSTEM), HumanMessage(prompt)])
    lines = _lines_of(content_text(reply.content))
    # Guard: re-add any rules line whose numbers the model lost.
    written = _numbers("\n".join(lines))
    for line in s.pending or rules_lines(messages):
        if not _numbers(line) <= written:
            lines.append(line)

    async def condense(older: list[str]) -> list[str]:
        target = max(16, max_tokens // 2)
        ask = RESUMMARIZE_USER.format(max_tokens=target, text="\n".join(older))
        out = await model.ainvoke([SystemMessage(SUMMARY_SYSTEM), HumanMessage(ask)])
        return _lines_of(content_text(out.content))

    bounded = await abound_lines(lines, max_tokens, condense)
    return Summary(digest=bounded).render()


def pending_messages(
    summary: str, messages: Sequence[BaseMessage], summarized_ids: Sequence[str]
) -> list[BaseMessage]:
    """The summarised raw messages whose turns are still pending model consolidation."""
    turns = Summary.parse(summary).pending_turns()
    ids = set(summarized_ids)
    return [m for m in messages if m.id in ids and turn_of(m) in turns]
