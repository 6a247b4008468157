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

_CN_FIGURE = re.compile(
    rf"(?<![\d.])[{CN_NUM}]*[十百千万][{CN_NUM}]*(?=[多余来]?[个家座台位名所间条人])"
)
"""A Chinese numeral with a magnitude ("六千", "一万二千") right before a measure word."""
_TAIL = re.compile(r"^([一二两三四五六七八九])$")
_PEOPLE = re.compile(
    r"(?P<noun>[\u4e00-\u9fff]{2,4}?)(?:规模|总数|人数)?(?:约|大约|大概|差不多|共|总共|有|近|超过)?"
    r"(?P<n>\d[\d,]*(?:\.\d+)?\s*万?)\s*(?:多|余|来)?(?:人|位|名)(?![\u4e00-\u9fff])"
)
"""A head count given by a measure word, with the people it counts named before it."""
_LEAD = r"的|有|和|及|其中|另外|他们|他們|我们"
"""Words a lazy noun match may start with that belong to the clause, not the thing counted."""
_NOUN_FIRST = re.compile(
    r"(?:^|(?<=[^\u4e00-\u9fff]))(?:目前|现在|其中|另外|他们的?|我们的?|对方)?"
    r"(?P<noun>[\u4e00-\u9fff]{2,6}?)(?:规模|总数|数量)?(?:共|总共|一共|约|大约|大概|有|达|超过|近|将近)"
    r"(?P<n>\d[\d,.]*\s*(?:万|千)?)\s*(?:多|余)?(?:个|家|条|亩|平方米|平米|台|辆|间|所|座|套|张|吨|件|笔|架"
    r"|艘|栋|户|公里)(?=\s*(?:[，,。；;、！!？?）)]|$))"
)
"""A count that names the thing first, with a measure word after the figure ("在管项目共19个",
"耕地约180万亩", "日均咨询量约2万条"), ending its clause (in a run-on note the words after
it are another fact)."""


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


_SMALL = re.compile(
    r"(?<=[有共设])([两二三四五六七八九])(?=(?:个|家|座|间|条|所|栋)(?:[\u4e00-\u9fff]{0,2})"
    r"(?:厂区|车间|工厂|厂|仓库|仓|园区|基地|校区|院区|分院|分公司|子公司|门店|数据中心|机房|生产线|产线|site))"
)
"""A small count after "有/共/设" ("有两个厂区", "共三家工厂"): no magnitude, yet a count."""


def with_figures(clause: str) -> str:
    """``clause`` with each Chinese count numeral written in digits."""
    small = _SMALL.sub(lambda m: str(cn_to_int(m.group(1).replace("两", "二"))), clause)
    return _CN_FIGURE.sub(_figure, small)


def counted(clause: str) -> tuple[str, str] | None:
    """(figure, thing counted) of a clause that counts something ("400 trucks",
    "坐席规模约300个", "12个风电场", "340 member farms", "员工六千多人"), else None."""
    clause = with_figures(clause)
    if (p := _PEOPLE.search(clause)) and not parse_amounts(clause[p.start() : p.end()]):
        noun = re.sub(rf"^(?:{_LEAD})", "", p.group("noun"))
        return p.group("n").replace(",", ""), noun or "人"
    m = COUNT.search(clause) or COUNT_AFTER.search(clause)
    if m:
        return m.group("n").replace(",", ""), m.group("noun")
    m = COUNT_ANY.search(clause)
    if m is None or parse_amounts(clause[m.start() : m.end()]):
        f = _NOUN_FIRST.search(clause)
        if f is None or parse_amounts(clause[f.start() : f.end()]):
            return None
        noun = re.sub(rf"^(?:{_LEAD}|目前|现在)", "", f.group("noun"))
        return f.group("n").replace(",", "").strip(), noun
    noun = m.group("noun") or m.group("znoun") or m.group("zunit")
    return m.group("n").replace(",", "").strip(), noun
