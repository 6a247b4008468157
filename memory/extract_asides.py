"""A "don't record" that covers only its own aside: in a note of several lines, a line or
a bracketed aside that says it is private or not to be kept ("（私事：2/10 回台北开会，
不用记）", "(personal, don't note: dentist on Friday)") is dropped, and the rest of the
note is read as usual. A cue that points at the whole note ("don't record this:",
"以下不用记", "这条别记") still voids the message. Read by ``extract_rules``.
"""

from __future__ import annotations

import re

from memagent.memory.extract_cues import self_note

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
