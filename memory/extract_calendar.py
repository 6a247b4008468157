"""Calendar arithmetic shared by the date resolver (``extract_dates``), and the dates
that need more than a pattern: the nth weekday of a month ("the second Tuesday of
January"), holidays ("before Christmas", "after Thanksgiving", "元旦前"), "EOQ"/"EOM" and
"年中". Pure functions.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta
from typing import Any

from memagent.memory.extract_amounts import cn_to_int

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
MONTHS["sept"] = 9
DAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
ANY_DAY = datetime(2026, 1, 1)
"""A reference day for asking only whether, or where, a text names a date (what the date
resolves to does not matter)."""


def num_of(s: str | None) -> int | None:
    if not s:
        return None
    if s.isdigit():
        return int(s)
    return cn_to_int(s)


def next_on_or_after(ref: date, month: int, day: int) -> date | None:
    for year in (ref.year, ref.year + 1):
        try:
            d = date(year, month, day)
        except ValueError:
            return None
        if d >= ref - timedelta(days=7):  # "Jan 15" said on Jan 20 is still this year's
            return d
    return None


def month_year(ref: date, month: int, rel: str | None = None) -> int:
    """The year of the next ``month`` from ``ref`` on; "next June" is next year's, "this
    June" this year's, whatever month ``ref`` is in, and "since June" the last June's."""
    if rel and rel.lower() in ("next", "this"):
        return ref.year + (rel.lower() == "next")
    if rel and rel.lower() == "since":  # "two failures since January": the last January
        return ref.year if month <= ref.month else ref.year - 1
    return ref.year if month >= ref.month else ref.year + 1


def last_day(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def add_months(y: int, m: int, n: int) -> tuple[int, int]:
    k = y * 12 + (m - 1) + n
    return k // 12, k % 12 + 1


def quarter(ref: date, q: int, year: int | None, edge: str | None) -> tuple[str, date]:
    if year is None:
        year = ref.year if (q - 1) * 3 + 3 >= ref.month else ref.year + 1
    end = last_day(year, q * 3)
    if edge and edge.lower() in ("start", "beginning", "初"):
        return f"{year}-Q{q} (from {year}-{(q - 1) * 3 + 1:02d}-01)", date(year, (q - 1) * 3 + 1, 1)
    return f"{year}-Q{q} (by {end.isoformat()})", end


def weekday_date(ref: date, wd: int, rel: str) -> date:
    """A weekday: bare/this = the next one (today counts); next = in the following week
    when the next one would fall in this week; next-week = in next Monday-based week."""
    if rel == "next_week":
        monday = ref - timedelta(days=ref.weekday()) + timedelta(days=7)
        return monday + timedelta(days=wd)
    if rel in ("last", "past"):  # the latest one before today
        return ref - timedelta(days=(ref.weekday() - wd) % 7 or 7)
    ahead = (wd - ref.weekday()) % 7
    d = ref + timedelta(days=ahead)
    same_week = d - timedelta(days=d.weekday()) == ref - timedelta(days=ref.weekday())
    if rel == "next" and (ahead == 0 or same_week):
        d += timedelta(days=7)
    return d


# A past verb earlier in the sentence, and nothing after it that looks ahead: "We discussed it
# at Friday's meeting" is the Friday gone, "they said they'd decide by Friday" is not.
_PAST_BEFORE = re.compile(
    r"\b(?:discussed|met|had|said|told|was|were|did|called|spoke|visited|presented|showed|demoed"
    r"|agreed|confirmed|mentioned|raised|went|joined|attended|held|came up|heard|pitched|covered"
    r"|reviewed|talked|chatted|caught up|walked (?:us |them )?through|went through"
    r"|quoted|offered|tried|launched|signed|bought|sold|lost|won|closed|opened|hired|acquired|merged"
    r"|migrated|upgraded|installed|replaced|cancell?ed|terminated)\b"
    r"(?![^.;!?\n]*\b(?:will|won't|going to|'ll|'d|would|next|by|until|before|due|for|plans?|expects?"
    r"|wants?|needs?|asks?|requires?|is|are|has to|must|should|can|could|scheduled|planned|booked"
    r"|arranged|set|to (?:meet|do|have|hold|run|see|sign|send|start|present|demo|discuss|talk|call)"
    r"|renews|expires|ends|starts|begins|runs|goes|closes|opens|launches|happens|lands)\b)"
    r"[^.;!?\n]*$",
    re.IGNORECASE,
)


def in_past(
    text: str, start: int, ref: date, res: tuple[str, date | None], kind: str, g: dict[str, Any]
) -> tuple[str, date | None]:
    """A bare weekday or month at ``start`` of ``text`` resolved to ``res``, moved back when it
    is told as past ("We discussed it at Friday's meeting", "Verafin pitched us in December"):
    the sentence before it has a past verb and nothing that looks ahead. A weekday becomes the
    last one, a month that resolved ahead of ``ref`` the same month a year earlier."""
    if kind not in ("wd", "month_en") or g.get("rel") or g.get("mrel") or g.get("y"):
        return res
    if (
        res[1] is None
        or res[1] <= ref
        or not _PAST_BEFORE.search(text[max(0, start - 120) : start])
    ):
        return res
    if kind == "wd":
        d = weekday_date(ref, res[1].weekday(), "last")
        return d.isoformat(), d
    d = res[1].replace(year=res[1].year - 1)
    return res[0].replace(str(res[1].year), str(d.year)), d


_UNITS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]
_TEENS = ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
          "seventeenth", "eighteenth", "nineteenth"]  # fmt: skip
ORDINAL_DAYS = (
    {w: i + 1 for i, w in enumerate(_UNITS)}
    | {w: i + 10 for i, w in enumerate(_TEENS)}
    | {"twentieth": 20, "thirtieth": 30}
    | {f"twenty{sep}{w}": 21 + i for i, w in enumerate(_UNITS) for sep in ("-", " ", "")}
    | {f"thirty{sep}first": 31 for sep in ("-", " ", "")}
)
"""A day of the month in words, as a voice memo writes it ("december seventeenth")."""
ORDINAL_WORDS = "|".join(sorted(ORDINAL_DAYS, key=len, reverse=True))

SPECIAL = (
    "nth_wd",
    "week_of",
    "holiday",
    "eo_en",
    "zh_midyear",
    "md_words",
    "week_after_next",
    "zh_slash",
    "zh_quarter_rel",
)
_HOLIDAYS = {"christmas": (12, 25), "xmas": (12, 25), "圣诞": (12, 25), "元旦": (1, 1), "new year": (1, 1),
             "国庆": (10, 1), "halloween": (10, 31), "五一": (5, 1), "劳动": (5, 1)}  # fmt: skip
_LUNAR = {"春节": [date(2026, 2, 17), date(2027, 2, 6), date(2028, 1, 26), date(2029, 2, 13)],
          "端午": [date(2026, 6, 19), date(2027, 6, 9), date(2028, 5, 28), date(2029, 6, 16)],
          "中秋": [date(2026, 9, 25), date(2027, 9, 15), date(2028, 10, 3), date(2029, 9, 22)]}  # fmt: skip
"""Holidays of the lunar calendar, by year (the next one on or after the message is meant)."""


def nth_weekday(y: int, mon: int, wd: int, nth: int) -> date:
    """The ``nth`` (1-4, or -1 for the last) weekday ``wd`` of a month."""
    if nth < 0:
        d = last_day(y, mon)
        return d - timedelta(days=(d.weekday() - wd) % 7)
    first = date(y, mon, 1)
    return first + timedelta(days=(wd - first.weekday()) % 7 + 7 * (nth - 1))


def _quarter_rel(g: dict[str, Any], ref: date) -> tuple[str, date | None]:
    """ "下季度初", "本季度末": this or the next quarter, at its start or (by default) its end."""
    q = (ref.month - 1) // 3 + (2 if g["rel"].startswith("下") else 1)
    edge = {"初": "start"}.get(g.get("edge") or "")
    return quarter(ref, (q - 1) % 4 + 1, ref.year + (q - 1) // 4, edge)


def resolve_special(kind: str, g: dict[str, Any], ref: date) -> tuple[str, date | None] | None:
    """ "the second Tuesday of January", "before Christmas", "EOQ", "明年年中", "下季度初"."""
    if kind == "zh_quarter_rel":
        return _quarter_rel(g, ref)
    if kind == "nth_wd":
        mon, wd = MONTHS[g["mon"].lower()], DAYS[g["wd"].lower()]
        nth = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
               "last": -1}[g["nth"].lower()]  # fmt: skip
        y = int(g["y"]) if g.get("y") else month_year(ref, mon)
        d = nth_weekday(y, mon, wd, nth)
        return d.isoformat(), d
    if kind == "week_of":
        return _week_of(g, ref)
    if kind == "holiday":
        name = (g.get("h") or g.get("zh") or g.get("bf") or "").lower().rstrip("节")
        if (
            lunar := next((k for k in _LUNAR if (g.get("zh") or "").startswith(k)), None)
        ) is not None:
            due = next((d for d in _LUNAR[lunar] if d >= ref), None)
            return (due.isoformat(), due) if due else None
        if name == "black friday":
            y = int(g["y"]) if g.get("y") else ref.year
            d = nth_weekday(y, 11, 3, 4) + timedelta(days=1)
            return d.isoformat(), d
        if name.startswith(("thanksgiving", "感恩")):
            y = int(g["y"]) if g.get("y") else ref.year
            d = nth_weekday(y, 11, 3, 4)
            if d < ref - timedelta(days=7) and not g.get("y"):
                d = nth_weekday(y + 1, 11, 3, 4)
            return d.isoformat(), d
        key = next((k for k in _HOLIDAYS if name.startswith(k)), None)
        if key is None:
            return None
        mon, day = _HOLIDAYS[key]
        d2 = date(int(g["y"]), mon, day) if g.get("y") else next_on_or_after(ref, mon, day)
        return (d2.isoformat(), d2) if d2 else None
    if kind in ("md_words", "week_after_next", "zh_slash"):
        return _spoken_or_slashed(kind, g, ref)
    if kind == "eo_en":
        unit = {"m": "month", "q": "quarter", "y": "year", "w": "week"}[g["eo"][-1].lower()]
        if unit == "month" and g.get("mon"):  # "EOM Nov": the end of November
            mon = MONTHS[g["mon"].lower()]
            d = last_day(month_year(ref, mon), mon)
            return d.isoformat(), d
        if unit == "week":
            d = ref - timedelta(days=ref.weekday()) + timedelta(days=4)
            return d.isoformat(), d
        if unit == "month":
            d = last_day(ref.year, ref.month)
        elif unit == "quarter":
            d = last_day(ref.year, ((ref.month - 1) // 3 + 1) * 3)
        else:
            d = date(ref.year, 12, 31)
        return d.isoformat(), d
    y = ref.year + (1 if g.get("yr") == "明年" else 0)
    if not g.get("yr") and ref.month > 6:
        y += 1
    return f"{y}年年中 ({y}-06-30)", date(y, 6, 30)


def _spoken_or_slashed(kind: str, g: dict[str, Any], ref: date) -> tuple[str, date | None] | None:
    """ "december seventeenth" / "the tenth of december", "the week after next", and a
    Chinese note's month/day ("10/9 线上demo": October 9)."""
    if kind == "week_after_next":
        monday = ref - timedelta(days=ref.weekday()) + timedelta(days=14)
        return f"week of {monday.isoformat()}", monday
    if kind == "md_words":
        words = " ".join((g.get("dw") or g.get("dw2") or "").lower().split())
        mon, day = MONTHS[(g.get("mon") or g.get("mon2") or "").lower()], ORDINAL_DAYS[words]
    else:
        mon, day = int(g["m"]), int(g["d"])
    d = next_on_or_after(ref, mon, day)
    return (d.isoformat(), d) if d else None


def _week_of(g: dict[str, Any], ref: date) -> tuple[str, date | None]:
    """ "first week of November": that week, due by its last day (the 7th, 14th, ... or
    the month's end)."""
    mon = MONTHS[g["mon"].lower()]
    y = int(g["y"]) if g.get("y") else month_year(ref, mon)
    nth = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
           "last": 5}[g["nth"].lower()]  # fmt: skip
    end = last_day(y, mon) if nth == 5 else date(y, mon, 7 * nth)
    start = end - timedelta(days=6)
    return f"{start.isoformat()}..{end.isoformat()}", end
