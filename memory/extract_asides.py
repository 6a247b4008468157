"""A note that ends with an aside about the salesperson's own affairs ("我下周一要去上海
参加公司季度复盘，别记进去", "另外我明天要跑台北开会，跟客户无关"): the cue voids the sentence
it sits in, not the customer facts the note gave before it. A message that is the aside
and little else ("don't record this: my flight moved", "跟客户无关，提醒自己交报销") is
still kept out as a whole. Pure functions.
"""

from __future__ import annotations

import re

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
