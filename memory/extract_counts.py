"""What a clause counts ("400 trucks", "12个风电场", "员工六千多人") and the thing it counts.

A count written in Chinese numerals is read as its figure, and a head count given only by
a measure word ("学生约一万二千人", "教职员900人", "医护人员大约1200位") counts the people the
clause names before the figure, so two head counts of one note are two things counted,
not one figure under "人" that the second replaces.
"""

from __future__ import annotations

import re

from memagent.memory.extract_amounts import CN_NUM, cn_to_int, parse_amounts
from memagent.memory.extract_cues import COUNT, COUNT_AFTER, COUNT_ANY

_CN_FIGURE = re.compile(rf"[{CN_NUM}]*[十百千万][{CN_NUM}]*(?=[多余来]?[个家座台位名所间条人])")
"""A Chinese numeral with a magnitude ("六千", "一万二千") right before a measure word."""
_TAIL = re.compile(r"^([一二两三四五六七八九])$")
_PEOPLE = re.compile(
    r"(?P<noun>[\u4e00-\u9fff]{2,4}?)(?:规模|总数|人数)?(?:约|大约|大概|差不多|共|总共|有|近|超过)?"
    r"(?P<n>\d[\d,]*)\s*(?:多|余|来)?(?:人|位|名)(?![\u4e00-\u9fff])"
)
"""A head count given by a measure word, with the people it counts named before it."""


def _figure(m: re.Match[str]) -> str:
    """ "六千" -> "6000", "一万二千" -> "12000", "一万二" -> "12000" (the short form's unit is
    the one below the last magnitude)."""
    text = m.group(0)
    n = cn_to_int(text)
    if n is None and (
        short := re.match(rf"^([{CN_NUM}]*([万千百]))([一二两三四五六七八九])$", text)
    ):
        below = {"万": "千", "千": "百", "百": "十"}[short.group(2)]
        n = cn_to_int(short.group(1) + short.group(3) + below)
    return str(n) if n is not None and n >= 10 else text


def with_figures(clause: str) -> str:
    """``clause`` with each Chinese count numeral written in digits."""
    return _CN_FIGURE.sub(_figure, clause)


def counted(clause: str) -> tuple[str, str] | None:
    """(figure, thing counted) of a clause that counts something ("400 trucks",
    "坐席规模约300个", "12个风电场", "340 member farms", "员工六千多人"), else None."""
    clause = with_figures(clause)
    if (p := _PEOPLE.search(clause)) and not parse_amounts(clause[p.start() : p.end()]):
        noun = re.sub(r"^(?:的|有|和|及|其中|另外|他们|他們|我们)", "", p.group("noun"))
        return p.group("n").replace(",", ""), noun or "人"
    m = COUNT.search(clause) or COUNT_AFTER.search(clause)
    if m:
        return m.group("n").replace(",", ""), m.group("noun")
    m = COUNT_ANY.search(clause)
    if m is None or parse_amounts(clause[m.start() : m.end()]):
        return None
    noun = m.group("noun") or m.group("znoun") or m.group("zunit")
    return m.group("n").replace(",", "").strip(), noun
