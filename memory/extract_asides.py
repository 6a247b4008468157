"""Asides about the salesperson's own affairs inside a customer note: the cue ("别记进去",
"跟客户无关", "don't record", "（私事：…不用记）") voids its own sentence, line or bracketed aside,
not the customer facts around it. Two readers, both run by ``extract_rules``:

- ``without_private_asides`` drops a LINE or a BRACKETED aside that asks not to be kept
  ("（私事：2/10 回台北开会，不用记）", "(personal, don't note: dentist on Friday)"), unless the
  cue points at the whole note ("don't record this:", "以下不用记", "这条别记").
- ``without_asides`` drops a SENTENCE that ends a note with such an aside ("我下周一要去上海
  参加公司季度复盘，别记进去"); a message that is the aside and little else ("don't record
  this: my flight moved", "跟客户无关，提醒自己交报销") is still kept out as a whole.

Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memagent.core.types import Turn
from memagent.memory.extract_cues import SELF_NOTE, self_note
from memagent.memory.extract_ownside import NOT_FOR_AN_ACCOUNT

_SPLIT = re.compile(r"(?<=[。！？!?\n])|(?<=\.)(?=\s)")
_MIN_KEPT = 2
"""Sentences of facts a message must hold besides its aside to be read sentence by sentence."""
_FILLER = re.compile(
    r"\b(?:just|only|purely|this|that|it|all|and|so|ok|pls|please|btw|fyi)\b|进去|这个|这条|这些|一下|哈|吧|啊|了",
    re.I,
)
_ASIDE_LEN = 6
"""What a cue sentence must hold besides its cues to be an aside of its own; a bare cue
("Just thinking out loud, nothing from them.", "别记。") speaks of the whole message."""


def _cued(sentence: str) -> bool:
    return self_note(sentence) or NOT_FOR_AN_ACCOUNT.search(sentence) is not None


def _bare(sentence: str) -> bool:
    """A cue sentence with nothing else in it."""
    rest = NOT_FOR_AN_ACCOUNT.sub(" ", SELF_NOTE.sub(" ", sentence))
    return len(re.sub(r"[\W_]+", "", _FILLER.sub(" ", rest))) < _ASIDE_LEN


def without_asides(text: str) -> str | None:
    """``text`` without its own-affairs asides; None when the whole message is one
    (the cue opens it, or too little else is left to be a note about a customer)."""
    if not _cued(text):
        return text
    parts = [p for p in _SPLIT.split(text) if p.strip()]
    cued = [i for i, p in enumerate(parts) if _cued(p)]
    if not cued or cued[0] == 0:
        return None
    if any(_bare(parts[i]) for i in cued):
        return None
    kept = [p for i, p in enumerate(parts) if i not in cued]
    if len(kept) < _MIN_KEPT:
        return None
    return "".join(kept).strip()


_BRACKETED = re.compile(r"[（(][^（）()]{2,200}[）)]")
"""A bracketed aside."""

_WHOLE_NOTE = re.compile(
    r"[:：]\s*$|\b(?:this|these|the following|below|everything|all of (?:it|this)|any of (?:it|this))\b"
    r"|这条|这段|这些|以下|下面|整条|全部|都别|都不用|這條|這段|這些|以下|下面|整條|全部",
    re.I,
)
"""The cue points at the note as a whole, not at its own aside."""


def _own_aside(part: str) -> bool:
    return self_note(part) and not _WHOLE_NOTE.search(part)


def without_private_asides(text: str) -> str:
    """``text`` without the lines and bracketed asides that ask not to be kept, when the
    rest of the note still says something; else ``text`` unchanged (so the caller's
    check of the whole message decides)."""
    if not self_note(text):
        return text
    kept = _BRACKETED.sub(lambda m: "" if _own_aside(m.group(0)) else m.group(0), text)
    lines = [ln for ln in kept.splitlines() if ln.strip()]
    if len(lines) > 1:
        lines = [ln for ln in lines if not _own_aside(ln)]
    rest = "\n".join(lines)
    if rest == text or self_note(rest) or len(rest.strip()) < 12:
        return text
    return rest


def note_without_asides(text: str) -> str | None:
    """What of a user's message may be read for facts: its private lines and asides
    dropped (both readers above), or None when the whole message is kept out. The LLM
    extractor's filter, so it keeps the same customer facts the rules keep."""
    return without_asides(without_private_asides(text))


def readable_turns(turns: Sequence[Turn]) -> list[Turn]:
    """The turns to read: a user message without its private asides, none when the whole
    message is kept out (as the rules read it)."""
    out: list[Turn] = []
    for t in turns:
        if t.role != "user":
            out.append(t)
        elif (kept := note_without_asides(t.content)) is not None:
            out.append(replace(t, content=kept))
    return out
