"""Dates in sales notes, resolved against the message time (English and Chinese).

"by Friday", "next Tuesday", "Wednesday next week", "in two weeks", "end of March",
"March 31, 2027", "Jan 15", "end of Q1", "by Q3", "in June", "end of month",
"下个月15号", "下周三", "12月4日前", "1月底", "年底", "明年3月", "明年Q2", "两周后".

``find_dates(text, ref)`` returns each date with its surface text and an absolute
form: a day ("2026-11-06"), a month ("2027-06"), a quarter ("2027-Q1") or a
mid-month ("2027-01 mid"). A date without a year is the next one on or after the
message day. Pure functions; the reference time is the message's own (``Turn.at``).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from memagent.memory.extract_calendar import DAYS, MONTHS, ORDINAL_WORDS, SPECIAL, resolve_special
from memagent.memory.extract_calendar import add_months as _add_months
from memagent.memory.extract_calendar import in_past as _in_past
from memagent.memory.extract_calendar import last_day as _last_day
from memagent.memory.extract_calendar import month_year as _month_year
from memagent.memory.extract_calendar import next_on_or_after as _next_on_or_after
from memagent.memory.extract_calendar import num_of as _num
from memagent.memory.extract_calendar import quarter as _quarter
from memagent.memory.extract_calendar import weekday_date as _weekday
from memagent.memory.hanzi_fold import to_simplified

_MONTHS, _DAYS = MONTHS, DAYS
_ZH_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_MON = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WD = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_ORD = r"(?:st|nd|rd|th)?"
_CN = r"\d{1,2}|[一二三四五六七八九十两]{1,3}"
_NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a": 1, "an": 1}

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("nth_wd", re.compile(r"\b(?:the\s+)?(?P<nth>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+" + _WD + r"\s+(?:of|in)\s+" + _MON + r"\b(?:,?\s*(?P<y>20\d\d))?", re.I)),
    ("holiday", re.compile(r"\b(?P<h>christmas|xmas|thanksgiving|new year'?s(?: day| eve)?|halloween)\b(?:\s+(?P<y>20\d\d))?|(?P<zh>圣诞节?|元旦|国庆节?|感恩节|春节|五一|劳动节|端午节?|中秋节?)|\b(?P<bf>black friday)\b", re.I)),
    ("week_of", re.compile(r"\b(?:the\s+)?(?P<nth>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week\s+(?:of|in)\s+" + _MON + r"\b(?:,?\s*(?P<y>20\d\d))?", re.I)),
    ("eo_en", re.compile(r"\b(?P<eo>eo[mqyw])\b(?:\s+" + _MON + r"\b)?", re.I)),
    ("zh_midyear", re.compile(r"(?P<yr>明年|今年)?年中")),
    ("iso", re.compile(r"\b(?P<y>20\d\d)-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b")),
    ("md_en", re.compile(r"\b" + _MON + r"\s+(?P<d>\d{1,2})" + _ORD + r"\b(?:,?\s*(?P<y>20\d\d))?", re.I)),
    ("dm_en", re.compile(r"\b(?P<d>\d{1,2})" + _ORD + r"\s+(?:of\s+)?" + _MON + r"\b(?:,?\s*(?P<y>20\d\d))?", re.I)),
    ("md_words", re.compile(r"\b" + _MON + r"\s+(?:the\s+)?(?P<dw>" + ORDINAL_WORDS + r")\b|\b(?:the\s+)?(?P<dw2>" + ORDINAL_WORDS + r")\s+of\s+(?P<mon2>" + "|".join(_MONTHS) + r")\b", re.I)),
    ("week_after_next", re.compile(r"\b(?:the\s+)?week after next\b", re.I)),
    ("zh_slash", re.compile(r"(?<![\d/.])(?P<m>1[0-2]|0?[1-9])/(?P<d>3[01]|[12]\d|0?[1-9])(?![\d/])(?!\s*[的是])(?=\s*[\u4e00-\u9fff])")),
    ("mid_en", re.compile(r"\bmid[- ]" + _MON + r"\b", re.I)),
    ("end_mon_en", re.compile(r"\b(?:the\s+)?(?P<edge>end|beginning|start|early|late)\s+(?:of\s+)?" + _MON + r"\b", re.I)),
    ("wd_next_week", re.compile(r"\b" + _WD + r"\s+(?:of\s+)?next\s+week\b", re.I)),
    ("next_week_wd", re.compile(r"\bnext\s+week(?:'s)?\s+" + _WD + r"\b", re.I)),
    ("wd", re.compile(r"\b(?P<rel>next|this|coming|last|past)?\s*" + _WD + r"\b", re.I)),
    ("wd", re.compile(r"\b(?:(?P<rel>next|this|coming)|by|on|until|before|due)\s+(?P<wd>mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\b\.?", re.I)),
    ("quarter", re.compile(r"\b(?:(?P<edge>end|start|beginning)\s+of\s+)?(?:(?P<rel>next|this)\s+)?(?:q(?P<q>[1-4])|(?P<qw>first|second|third|fourth)\s+quarter)\b(?:\s*(?P<y>20\d\d))?", re.I)),
    ("end_period", re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<rel>this\s+|next\s+)?(?P<unit>month|quarter|year)\b|\b(?P<ye>year[- ]end)\b", re.I)),
    ("half_en", re.compile(r"\b(?:h(?P<h>[12])|(?P<hw>first|second) half)(?:\s+of)?(?:\s+(?P<rel>next|this) year|\s+(?P<y>20\d\d))?\b", re.I)),
    ("year_en", re.compile(r"\b(?:(?P<edge>early|late|mid|end of|beginning of|start of)[- ]\s*)?(?:the\s+)?(?P<rel>next|this)\s+year\b", re.I)),
    ("quarter_rel", re.compile(r"\b(?:(?P<edge>end|start|beginning) of\s+)?(?:the\s+)?(?P<rel>next|this)\s+quarter\b", re.I)),
    ("end_week_en", re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<rel>this|next)\s+week\b", re.I)),
    ("month_day_rel", re.compile(r"\b(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<rel>next|this|the following|the coming)\s+month\b", re.I)),  # "the 15th of next month"
    ("rel_en", re.compile(r"\b(?P<t>today|tomorrow|tonight|yesterday|tmrw|tmr|tmw|2moro)\b|\bin\s+(?P<n>\d+|one|two|three|four|five|six|a|an)\s+(?P<u>days?|weeks?|months?)\b|\b(?P<nx>next)\s+(?P<u2>week|month)\b", re.I)),
    ("within_en", re.compile(r"\bwithin\s+(?:the\s+next\s+)?(?P<n>\d+|one|two|three|four|five|six|a|an)\s+(?P<u>days?|weeks?|months?)\b", re.I)),
    ("md_num", re.compile(r"\b(?:by|on|before|until|till|due|from)\s+(?P<m>\d{1,2})/(?P<d>\d{1,2})\b(?![/\d])", re.I)),
    ("dom_en", re.compile(r"\b(?:on|by|before|until|till|from|due)\s+the\s+(?P<d>\d{1,2})(?:st|nd|rd|th)\b|\bthe\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:" + "|".join(_MONTHS) + r")\b)", re.I)),
    ("month_en", re.compile(r"\b(?:(?P<prep>in|by|until|till|before|from|through|since|to|after|around)\s+(?:early\s+|late\s+)?|(?P<mrel>next|this|coming)\s+)" + _MON + r"\b(?:\s+(?P<y>20\d\d))?(?=(?P<after>\s+[A-Za-z]+)?)", re.I)),
    ("month_year_en", re.compile(r"\b" + _MON + r"\s+(?P<y>20\d\d)\b", re.I)),
    ("zh_md", re.compile(r"(?:(?P<yr>明年|今年|(?P<y>20\d\d)年))?(?P<m>" + _CN + r")\s*月\s*(?P<d>" + _CN + r"|\d{1,2})\s*[日号]")),
    ("month_day_rel", re.compile(r"(?P<rel>下个?月|这个?月|本月|下下个?月)\s*(?P<d>" + _CN + r"|\d{1,2})\s*[日号]")),
    ("zh_month_edge", re.compile(r"(?:(?P<yr>明年|今年|(?P<y>20\d\d)年))?(?:(?P<m>" + _CN + r")\s*月|(?P<rel>下个?月|这个?月|本月))\s*(?P<edge>底|末|尾|初|中旬|中|上旬|下旬)")),
    ("zh_month", re.compile(r"(?P<yr>明年|今年|(?P<y>20\d\d)年|(?<![\d.])(?P<y2>[2-3]\d)年)\s*(?P<m>" + _CN + r")\s*月")),
    ("zh_wd", re.compile(r"(?P<rel>下下|下个?|这个?|本|上个?)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])")),
    ("zh_quarter_rel", re.compile(r"(?P<rel>下个?|本|这个?)季度(?P<edge>初|末|底)?")),
    ("zh_quarter", re.compile(r"(?P<yr>明年|今年|(?P<y>20\d\d)年)?\s*(?:Q(?P<q>[1-4])|第?(?P<qc>[一二三四])季度|第(?P<qc2>[一二三四])季(?![节度]))(?P<edge>末|底|初)?", re.I)),
    ("zh_year", re.compile(r"(?P<yr>明年|今年|去年)(?![\d一二三四五六七八九十]|底|末|初|年)")),
    ("zh_within", re.compile(r"(?<![到在为均])(?P<n>\d+|[一二三四五六七八九十两半]+)\s*(?:个)?(?P<u>天|周|星期|礼拜|个月|工作日)(?:之内|以内|内)")),
    ("zh_mid", re.compile(r"(?P<rel>这个?月|本月|月)中(?!旬)")),
    ("zh_rel", re.compile(r"(?P<t>今天|明天|后天|大后天)|(?P<n>\d+|[一二三四五六七八九十两半]+)\s*(?:个)?(?P<u>天|周|星期|礼拜|个月)(?:之?后|以后)|(?P<nx>下周|下个?星期|下个?月)(?![一二三四五六日天\d])|(?P<ye>年底|年末|年前|今年底|(?<!每)(?<!每个)(?:月底|月末)(?!对账|结账|关账|盘点|结算|出报表|报表|做账)|季度末)")),
    ("dom_en", re.compile(r"(?<![\d月./-])(?P<d>\d{1,2})\s*号(?![\d码楼线院])")),  # "14号": the next 14th
    ("zh_month", re.compile(r"(?<![\d年./-])(?P<m>1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])\s*月份?(?![\d一二三四五六七八九十日号底初中末个])")),
]  # fmt: skip


@dataclass(frozen=True)
class DateHit:
    surface: str
    iso: str
    start: int
    end: int
    day: date | None = None

    def render(self) -> str:
        """How the date is written into a memory: the absolute form readers and
        matchers need, e.g. "2026-11-06" or "2027-Q1 (by 2027-03-31)"."""
        return self.iso


def reference_time(at: str, default: datetime | None = None) -> datetime:
    """The message time (ISO 8601) or ``default`` (the job time) or now."""
    if at:
        try:
            return datetime.fromisoformat(at.replace("Z", "+00:00"))
        except ValueError:
            pass
    return default or datetime.now().astimezone()


def _resolve(kind: str, m: re.Match[str], ref: date) -> tuple[str, date | None] | None:
    g = m.groupdict()
    if kind in SPECIAL:
        return resolve_special(kind, g, ref)
    if kind == "iso":
        d = date(int(g["y"]), int(g["m"]), int(g["d"]))
        return d.isoformat(), d
    if kind in ("md_en", "dm_en"):
        mon, day = _MONTHS[g["mon"].lower()], int(g["d"])
        if g.get("y"):
            d = date(int(g["y"]), mon, day)
        else:
            d2 = _next_on_or_after(ref, mon, day)
            if d2 is None:
                return None
            d = d2
        return d.isoformat(), d
    if kind == "mid_en":
        mon = _MONTHS[g["mon"].lower()]
        y = _month_year(ref, mon)
        return f"mid-{calendar.month_name[mon]} {y} ({y}-{mon:02d}-15)", date(y, mon, 15)
    if kind == "end_mon_en":
        mon, edge = _MONTHS[g["mon"].lower()], g["edge"].lower()
        y = _month_year(ref, mon)
        d = _last_day(y, mon) if edge in ("end", "late") else date(y, mon, 1)
        return d.isoformat(), d
    if kind in ("wd_next_week", "next_week_wd"):
        d = _weekday(ref, _DAYS[g["wd"].lower()], "next_week")
        return d.isoformat(), d
    if kind == "wd":
        day = next(i for n, i in _DAYS.items() if n.startswith(g["wd"].lower()[:3]))  # "Wed"
        d = _weekday(ref, day, (g.get("rel") or "").lower())
        return d.isoformat(), d
    if kind == "quarter":
        q = int(g["q"]) if g.get("q") else ["first", "second", "third", "fourth"].index(
            g["qw"].lower()) + 1  # fmt: skip
        year = int(g["y"]) if g.get("y") else None
        if (g.get("rel") or "").lower() == "next" and year is None:
            year = ref.year + 1 if q <= (ref.month - 1) // 3 + 1 else ref.year
        return _quarter(ref, q, year, g.get("edge"))
    if kind == "end_period":
        unit = (g.get("unit") or "year").lower()
        nxt = "next" in (g.get("rel") or "").lower()
        if unit == "month":
            y, mo = _add_months(ref.year, ref.month, 1 if nxt else 0)
            d = _last_day(y, mo)
        elif unit == "quarter":
            q = (ref.month - 1) // 3 + 1 + (1 if nxt else 0)
            y = ref.year + (q - 1) // 4
            d = _last_day(y, ((q - 1) % 4 + 1) * 3)
        else:
            d = date(ref.year + (1 if nxt else 0), 12, 31)
        return d.isoformat(), d
    return _resolve_en_relative(kind, g, ref)


def _resolve_en_relative(kind: str, g: dict[str, Any], ref: date) -> tuple[str, date | None] | None:
    """English dates relative to ``ref``: "in 3 weeks", "next year", "H2", "end of next week"."""
    if kind == "rel_en":
        if g.get("t"):
            t = g["t"].lower()
            d = ref + timedelta(
                days=-1 if t == "yesterday" else 1 if t.startswith(("tom", "tm", "2m")) else 0
            )
            return d.isoformat(), d
        if g.get("nx"):
            if g["u2"].lower() == "week":
                d = ref - timedelta(days=ref.weekday()) + timedelta(days=7)
                return f"week of {d.isoformat()}", d
            y, mo = _add_months(ref.year, ref.month, 1)
            return f"{y}-{mo:02d}", date(y, mo, 1)
        n = _NUMWORDS.get(g["n"].lower()) or int(g["n"])
        u = g["u"].lower()
        if u.startswith("day"):
            d = ref + timedelta(days=n)
        elif u.startswith("week"):
            d = ref + timedelta(weeks=n)
        else:
            y, mo = _add_months(ref.year, ref.month, n)
            d = date(y, mo, min(ref.day, calendar.monthrange(y, mo)[1]))
        return d.isoformat(), d
    if kind == "year_en":
        y = ref.year + (1 if (g.get("rel") or "").lower() == "next" else 0)
        edge = (g.get("edge") or "").lower()
        if edge in ("end of", "late"):
            return date(y, 12, 31).isoformat(), date(y, 12, 31)
        if edge in ("early", "beginning of", "start of"):
            return f"early {y} ({y}-01)", date(y, 1, 1)
        if edge == "mid":
            return f"mid-{y} ({y}-06-30)", date(y, 6, 30)
        return f"{y}", date(y, 1, 1)
    if kind == "half_en":
        h = int(g["h"]) if g.get("h") else (1 if (g.get("hw") or "").lower() == "first" else 2)
        y = (
            int(g["y"])
            if g.get("y")
            else ref.year + (1 if (g.get("rel") or "").lower() == "next" else 0)
        )
        if not g.get("y") and not g.get("rel") and (h == 1 and ref.month > 6):
            y += 1  # "in H1" said in the second half is next year's
        end = date(y, 6, 30) if h == 1 else date(y, 12, 31)
        return f"{y}-H{h} (by {end.isoformat()})", end
    if kind == "quarter_rel":
        q = (ref.month - 1) // 3 + 1 + (1 if (g.get("rel") or "").lower() == "next" else 0)
        y = ref.year + (q - 1) // 4
        return _quarter(ref, (q - 1) % 4 + 1, y, g.get("edge"))
    if kind == "end_week_en":
        nxt = (g.get("rel") or "").lower() == "next"
        d = ref - timedelta(days=ref.weekday()) + timedelta(days=4 + (7 if nxt else 0))
        return d.isoformat(), d
    if kind == "within_en":
        return _resolve_en_relative("rel_en", g, ref)
    return _resolve_en_month(kind, g, ref)


def _resolve_en_month(kind: str, g: dict[str, Any], ref: date) -> tuple[str, date | None] | None:
    """English bare days and months: "6/15", "the 20th", "in March"."""
    if kind == "md_num":
        mon, day = int(g["m"]), int(g["d"])
        if not 1 <= mon <= 12:
            return None
        d3 = _next_on_or_after(ref, mon, day)
        return (d3.isoformat(), d3) if d3 else None
    if kind == "dom_en":
        day = int(g.get("d") or g.get("d2") or 0)
        if not 1 <= day <= 31:
            return None
        y, mo = (ref.year, ref.month) if day >= ref.day else _add_months(ref.year, ref.month, 1)
        if day > calendar.monthrange(y, mo)[1]:
            return None
        d = date(y, mo, day)
        return d.isoformat(), d
    if kind in ("month_en", "month_year_en"):
        mon = _MONTHS[g["mon"].lower()]
        if g["mon"].lower() == "may" and kind == "month_en" and not g.get("y") and _may_verb(g):
            return None  # "things in may change": the verb
        y = int(g["y"]) if g.get("y") else _month_year(ref, mon, g.get("mrel") or g.get("prep"))
        return f"{calendar.month_name[mon]} {y} ({y}-{mon:02d})", date(y, mon, 1)
    return _resolve_zh(kind, g, ref)


_MAY_VERBS = re.compile(
    r"be|have|not|also|still|need|want|go|come|take|get|slip|move|change|push|shift|happen|decide|"
    r"ask|well|already|just|only|never|look|add|use|prefer|bring|make|see|consider|delay|drop|"
    r"extend|expand|require|mean|turn|end|start|sign|close|let|allow|apply|affect|differ|vary|cost",
    re.I,
)


def _may_verb(g: dict[str, Any]) -> bool:
    """ "in May" after a preposition is the month ("go-live in May", "by May"), unless a
    verb follows ("what they do in may change", "budget by May be..."); a lower-case
    "may" followed by any word is read as the verb."""
    after = (g.get("after") or "").strip()
    if not after:
        return False
    if _MAY_VERBS.fullmatch(after):
        return True
    ok = after.lower() in (
        "and",
        "or",
        "next",
        "this",
        "at",
        "the",
        "latest",
        "then",
        "too",
        "instead",
    )
    return g["mon"] == "may" and not ok


def _zh_year(g: dict[str, str | None], ref: date, month: int) -> int:
    if g.get("y"):
        return int(g["y"] or 0)
    if g.get("y2"):  # "27年5月"
        return 2000 + int(g["y2"] or 0)
    if g.get("yr") == "明年":
        return ref.year + 1
    if g.get("yr") == "今年":
        return ref.year
    return _month_year(ref, month)


def _resolve_zh(kind: str, g: dict[str, str | None], ref: date) -> tuple[str, date | None] | None:
    if kind == "zh_md":
        mon, day = _num(g["m"]), _num(g["d"])
        if not mon or not day or not 1 <= mon <= 12:
            return None
        if g.get("yr") or g.get("y"):
            d = date(_zh_year(g, ref, mon), mon, day)
        else:
            d2 = _next_on_or_after(ref, mon, day)
            if d2 is None:
                return None
            d = d2
        return d.isoformat(), d
    if kind == "month_day_rel":
        rel, day = g["rel"] or "", _num(g["d"])
        n = 2 if rel.startswith("下下") else int(rel.lower().startswith(("下", "next", "the")))
        y, mo = _add_months(ref.year, ref.month, n)
        if not day:
            return None
        d = date(y, mo, min(day, calendar.monthrange(y, mo)[1]))
        return d.isoformat(), d
    if kind == "zh_month_edge":
        if g.get("m"):
            mon = _num(g["m"])
            if not mon or not 1 <= mon <= 12:
                return None
            y = _zh_year(g, ref, mon)
        else:
            y, mon = _add_months(ref.year, ref.month, 1 if (g["rel"] or "").startswith("下") else 0)
        edge = g["edge"] or ""
        if edge in ("底", "末", "尾", "下旬"):
            d = _last_day(y, mon)
        elif edge in ("初", "上旬"):
            d = date(y, mon, 1)
        else:
            return f"{y}年{mon}月中 ({y}-{mon:02d}-15)", date(y, mon, 15)
        return d.isoformat(), d
    if kind == "zh_month":
        mon = _num(g["m"])
        if not mon or not 1 <= mon <= 12:
            return None
        y = _zh_year(g, ref, mon)
        return f"{y}年{mon}月 ({y}-{mon:02d})", date(y, mon, 1)
    return _resolve_zh_period(kind, g, ref)


def _resolve_zh_period(
    kind: str, g: dict[str, str | None], ref: date
) -> tuple[str, date | None] | None:
    """Chinese weekdays, quarters, years and spans: "下周三", "Q3", "明年", "两周内"."""
    if kind == "zh_wd":
        rel = g.get("rel") or ""
        wd = _ZH_DAYS[g["wd"] or "一"]
        if rel.startswith("下下"):
            d = _weekday(ref, wd, "next_week") + timedelta(days=7)
        elif rel.startswith("下"):
            d = _weekday(ref, wd, "next_week")
        elif rel.startswith("上"):
            d = _weekday(ref, wd, "next_week") - timedelta(days=14)
        else:
            d = _weekday(ref, wd, "")
        return d.isoformat(), d
    if kind == "zh_quarter":
        q = int(g["q"] or 1) if g.get("q") else "一二三四".index(g["qc"] or g["qc2"] or "一") + 1
        year: int | None = None
        if g.get("yr") or g.get("y"):
            year = _zh_year(g, ref, q * 3)
        return _quarter(ref, q, year, {"初": "start"}.get(g.get("edge") or ""))
    if kind == "zh_year":
        y = ref.year + {"明年": 1, "今年": 0, "去年": -1}[g.get("yr") or "今年"]
        return f"{y}年", date(y, 1, 1)
    if kind == "zh_within":
        if g.get("u") == "工作日":  # business days
            d, left = ref, int(_num(g.get("n")) or 0)
            while left > 0:
                d += timedelta(days=1)
                left -= d.weekday() < 5
            return d.isoformat(), d
        return _resolve_zh_relative("zh_rel", g, ref)
    return _resolve_zh_relative(kind, g, ref)


def _resolve_zh_relative(
    kind: str, g: dict[str, str | None], ref: date
) -> tuple[str, date | None] | None:
    """Chinese dates relative to ``ref``: "月中", "明天", "下个月", "年底", "三天后"."""
    if kind == "zh_mid":
        return f"{ref.year}年{ref.month}月中 ({ref.year}-{ref.month:02d}-15)", date(
            ref.year, ref.month, 15
        )
    if kind == "zh_rel":
        if g.get("t"):
            d = ref + timedelta(
                days={"今天": 0, "明天": 1, "后天": 2, "大后天": 3}[g["t"] or "今天"]
            )
            return d.isoformat(), d
        if g.get("nx"):
            if "月" in (g["nx"] or ""):
                y, mo = _add_months(ref.year, ref.month, 1)
                return f"{y}-{mo:02d}", date(y, mo, 1)
            d = ref - timedelta(days=ref.weekday()) + timedelta(days=7)
            return f"week of {d.isoformat()}", d
        if g.get("ye"):
            ye = g["ye"] or ""
            if "月" in ye:
                d = _last_day(ref.year, ref.month)
            elif "季度" in ye:
                q = (ref.month - 1) // 3 + 1
                d = _last_day(ref.year, q * 3)
            else:
                d = date(ref.year, 12, 31)
            return d.isoformat(), d
        raw = g.get("n") or ""
        span: float = 0.5 if raw == "半" else float(_num(raw) or 0)
        u = g.get("u") or ""
        if u == "天":
            d = ref + timedelta(days=span)
        elif u in ("周", "星期", "礼拜"):
            d = ref + timedelta(weeks=span)
        else:
            y, mo = _add_months(ref.year, ref.month, int(span))
            d = date(y, mo, min(ref.day, calendar.monthrange(y, mo)[1]))
        return d.isoformat(), d
    return None


def find_dates(text: str, ref: datetime | date) -> list[DateHit]:
    """Every date of ``text`` resolved against ``ref``, in text order, not overlapping."""
    day = ref.date() if isinstance(ref, datetime) else ref
    text = to_simplified(text)  # "下個月尾", "明年5月初": one character for one, same offsets
    taken: list[tuple[int, int]] = []
    out: list[DateHit] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            s, e = m.start(), m.end()
            if not m.group(0).strip() or any(s < te and e > ts for ts, te in taken):
                continue
            if (
                kind in ("zh_wd", "wd")
                and text[max(0, s - 1) : s] in "（("
                and s > 0
                and any(te in (s - 1, s - 2) for ts, te in taken)
            ):
                continue  # "2026年11月26日（周四）": the weekday names the date before it
            try:
                res = _resolve(kind, m, day)
            except (ValueError, KeyError):
                res = None
            if res is None:
                continue
            res = _in_past(text, s, day, res, kind, m.groupdict())
            surface = m.group(0).strip()
            out.append(DateHit(surface, res[0], s, e, res[1]))
            taken.append((s, e))
    return sorted(out, key=lambda h: h.start)
