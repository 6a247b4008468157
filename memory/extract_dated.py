"""A Chinese sentence that gives two dates for two things ("希望春节前签合同，五一前深圳工厂
上线", "12月中前完成PoC，明年第一季导入台中厂") is two facts: read whole, it was one memory
keyed by its later date, and the first date was lost. Pure functions.
"""

from __future__ import annotations

import re

from memagent.memory.extract_calendar import ANY_DAY
from memagent.memory.extract_cues import EVENT_RES
from memagent.memory.extract_dates import find_dates

_RANGE_END = re.compile(r"^(?:到|至|直到|一直到|截至|截止)")
"""'从11月1日开始，到11月30日结束': one span, not two facts."""


def _dated(piece: str) -> bool:
    """The piece names a date finer than a bare year ("明年" alone dates nothing)."""
    return any(not re.fullmatch(r"\d{4}年", h.iso) for h in find_dates(piece, ANY_DAY))


def _event(piece: str) -> str | None:
    """The event the piece names ("签合同", "上线", "POC"), or None."""
    return next((name for name, p in EVENT_RES if p.search(piece)), None)


def dated_halves(clause: str) -> list[str]:
    """``clause`` cut at its commas into one part per date when it is Chinese and two or
    more of its parts carry their own date and a different event; an undated part stays with the dated part
    before it (or after it, at the start). Otherwise ``[clause]``."""
    if not re.search(r"[\u4e00-\u9fff]", clause):
        return [clause]
    pieces = [p for p in re.split(r"[，,]", clause) if p.strip()]
    flags = [_dated(p) and bool(_event(p)) and not _RANGE_END.match(p.strip()) for p in pieces]
    events = [_event(p) for p, f in zip(pieces, flags, strict=True) if f]
    if len(events) < 2 or len(set(events)) < len(events):
        return [clause]  # one event's two dates ("SOP在明年8月，要提前3个月跑通"): one fact
    groups: list[list[str]] = []
    for piece, dated in zip(pieces, flags, strict=True):
        if not groups or (dated and any(_dated(p) for p in groups[-1])):
            groups.append([piece])
        else:
            groups[-1].append(piece)
    return ["，".join(g).strip() for g in groups]
