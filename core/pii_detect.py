"""PII detection for ``redact``: where phones, emails, CN resident ids and bank cards are.

The patterns find candidates on a folded copy of the text (``fold``: same length, so
spans map back to the original); the validators keep only plausible values: ids need a
valid checksum and birth date, cards a valid Luhn digit, a network prefix and length,
and plausible grouping; numbers glued to letters or dashes (``PO-2026-118734``) or
introduced by order/invoice/tracking words are identifiers, not PII. Amounts, dates,
times, versions and counts have no pattern here at all. ``normalise`` gives a value's
canonical form (E.164 for phones, digits for ids and cards, lowercase for emails), which
``redact`` keys its tokens on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date

PHONE, EMAIL, CN_ID, BANK_CARD = "phone", "email", "cn_id", "bank_card"
ALL: frozenset[str] = frozenset({PHONE, EMAIL, CN_ID, BANK_CARD})

# --- text folding (length-preserving, so spans map back to the original) -------------------

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad"


def fold(text: str) -> str:
    """Full-width ASCII to ASCII, odd spaces and zero-width marks to a plain space."""
    out = []
    for ch in text:
        code = ord(ch)
        if 0xFF01 <= code <= 0xFF5E:
            out.append(chr(code - 0xFEE0))
        elif ch == "\u3000" or ch == "\u00a0" or ch in _ZERO_WIDTH:
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


# --- patterns --------------------------------------------------------------------------------

# A number is not PII when it is glued to a word, a dash-joined code, a decimal or a thousands
# group: ``PO-2026…``, ``v1.2``, ``13,800,138,000``, ``#6228…``.
_LB = r"(?<![A-Za-z0-9_@#/\\\-.+])(?<![0-9][.,])"
_RB_LOOSE = r"(?![A-Za-z0-9_@])(?![\-.,/][0-9])"
# Phones are weakly validated, so they must also not run on into a further digit group.
_RB = _RB_LOOSE + r"(?! ?[0-9]{4})"
_S = r"[ \-]?"

_EMAIL_RE = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}(?![A-Za-z0-9\-])"
)
_CN_ID_RE = re.compile(
    _LB + r"[1-8][0-9]{5}(?:18|19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])"
    r"[0-9]{3}[0-9Xx]" + _RB_LOOSE
)
_CN_ID15_RE = re.compile(_LB + r"[1-8][0-9]{5}[0-9]{2}(?:0[1-9]|1[0-2])[0-3][0-9][0-9]{3}" + _RB)
_CARD_RE = re.compile(_LB + r"[2-6][0-9]{3}(?:[ \-]?[0-9]){9,15}" + _RB_LOOSE)
_CN_MOBILE_RE = re.compile(
    _LB + r"(?:(?:\(?(?:\+|00)86\)?|86)[ \-]?)?1[3-9][0-9](?:" + _S + r"[0-9]{4}){2}" + _RB
)
_NANP_RE = re.compile(
    _LB + r"(?:(?:\+|00)1[ \-.]?)?(?:\([2-9][0-9]{2}\) ?[2-9][0-9]{2}[ \-.]"
    r"|[2-9][0-9]{2}(?P<sep>[\-.])[2-9][0-9]{2}(?P=sep)|(?<=\+1 )[2-9][0-9]{2} [2-9][0-9]{2} )"
    r"[0-9]{4}" + _RB
)
_CN_LANDLINE_RE = re.compile(
    _LB
    + r"(?:\(0(?:10|2[0-9]|[3-9][0-9]{2})\)|0(?:10|2[0-9]|[3-9][0-9]{2}))"
    + _S
    + r"[1-9][0-9]{2,3}"
    + _S
    + r"[0-9]{4}"
    + _RB
)
_INTL_RE = re.compile(
    r"(?<![A-Za-z0-9_@#/\\\-.+])(?:\+|00)[1-9][0-9]{0,3}"
    r"(?:[ \-]?(?:\([0-9]{1,4}\)|[0-9]{1,5})){1,6}" + _RB
)

# Words that make a nearby number an identifier rather than a card or a phone.
_NOT_PII_CONTEXT = re.compile(
    r"\b(?:po|order|invoice|inv|ref|reference|tracking|shipment|serial|sn|sku|ticket|batch)\b"
    r"|订单|单号|编号|发票|批次|工单|运单|物流|序列号|流水号",
    re.IGNORECASE,
)
_CARD_CONTEXT = re.compile(
    r"\b(?:card|visa|master ?card|amex|unionpay|debit|credit|bank)\b|卡|银行|账户|账号",
    re.IGNORECASE,
)
_CURRENCY_BEFORE = re.compile(r"[$¥￥€£]\s*$|\b(?:rmb|usd|cny|eur|gbp|hkd)\s*$", re.IGNORECASE)
_CURRENCY_AFTER = re.compile(
    r"\s*(?:元|万|亿|块|美元|欧元|英镑|\b(?:yuan|rmb|usd|cny|eur|gbp|dollars?)\b)", re.IGNORECASE
)
_ID_CONTEXT = re.compile(r"身份证|证件|\bid\b|identity", re.IGNORECASE)
_WINDOW_CUT = re.compile(r"[0-9。，,;；!?！？\n]")


def _window(folded: str, start: int, width: int = 24) -> str:
    """The words just before a number, back to the previous number or clause break."""
    left = folded[max(0, start - width) : start]
    cuts = list(_WINDOW_CUT.finditer(left))
    return left[cuts[-1].end() :] if cuts else left


def _digits(value: str) -> str:
    return re.sub(r"[^0-9Xx]", "", value).upper()


# --- validators ------------------------------------------------------------------------------

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_id_valid(number: str) -> bool:
    """GB 11643 checksum and a real birth date for an 18-character resident id."""
    number = number.upper()
    if not re.fullmatch(r"[0-9]{17}[0-9X]", number):
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    if "10X98765432"[total % 11] != number[17]:
        return False
    return _real_date(number[6:14])


def _real_date(yyyymmdd: str) -> bool:
    try:
        born = date(int(yyyymmdd[:4]), int(yyyymmdd[4:6]), int(yyyymmdd[6:8]))
    except ValueError:
        return False
    return date(1900, 1, 1) <= born <= date.today()


def luhn_valid(digits: str) -> bool:
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_network_ok(digits: str) -> bool:
    """Length fits the network the prefix names (Visa, Mastercard, Amex, Diners, JCB, UnionPay…)."""
    n = len(digits)
    if digits[0] == "4":
        return n in (13, 16, 19)
    if digits[:2] in ("34", "37"):
        return n == 15
    if digits[:2] in ("30", "36", "38", "39"):
        return n == 14
    if digits[:2] == "35":
        return 16 <= n <= 19
    if "51" <= digits[:2] <= "55" or "2221" <= digits[:4] <= "2720":
        return n == 16
    return digits[0] == "6" and 16 <= n <= 19


def _card_grouping_ok(value: str) -> bool:
    groups = [len(g) for g in re.split(r"[ \-]", value)]
    if len(groups) == 1:
        return True
    if groups in ([4, 6, 5], [4, 6, 4]):
        return True
    return all(g == 4 for g in groups[:-1]) and 1 <= groups[-1] <= 4


# --- detectors: (type, regex, validator-or-None) ---------------------------------------------


def _canonical_phone(value: str) -> str:
    """E.164 form, so ``010-1234 5678`` and ``+86 10 12345678`` share a token."""
    has_cc = value.lstrip("( ").startswith(("+", "00"))
    digits = re.sub(r"[^0-9]", "", value.replace("(0)", ""))
    if has_cc:
        return "+" + (digits[2:] if value.lstrip("( ").startswith("00") else digits)
    if len(digits) == 13 and digits.startswith("86"):
        return "+" + digits
    if len(digits) == 11 and digits[0] == "1" and digits[1] in "3456789":
        return "+86" + digits
    if digits[0] == "0":
        return "+86" + digits[1:]
    return "+1" + digits


def _is_amount(folded: str, start: int, end: int) -> bool:
    """A currency sign before or a currency unit after: ``¥13800138000``, ``13800138000 元``."""
    return bool(_CURRENCY_BEFORE.search(folded[max(0, start - 5) : start])) or bool(
        _CURRENCY_AFTER.match(folded, end)
    )


def _phone_end(folded: str, m: re.Match[str]) -> int | None:
    if _NOT_PII_CONTEXT.search(_window(folded, m.start())) or _is_amount(folded, *m.span()):
        return None
    if m.re is _INTL_RE and not 8 <= len(_canonical_phone(m.group())) - 1 <= 15:
        return None
    return m.end()


def _card_end(folded: str, m: re.Match[str]) -> int | None:
    """End of the longest valid card in the match, dropping trailing groups (``… 2028年``)."""
    window = _window(folded, m.start())
    if _NOT_PII_CONTEXT.search(window) and not _CARD_CONTEXT.search(window):
        return None
    value = m.group()
    ends = [len(value)] + [g.start() for g in reversed(list(re.finditer(r"[ \-]", value)))]
    for end in ends:
        digits = _digits(value[:end])
        if len(digits) < 13:
            break
        if luhn_valid(digits) and _card_network_ok(digits) and _card_grouping_ok(value[:end]):
            return None if _is_amount(folded, m.start(), m.start() + end) else m.start() + end
    return None


def _id_end(folded: str, m: re.Match[str]) -> int | None:
    return m.end() if cn_id_valid(m.group()) else None


def _id15_end(folded: str, m: re.Match[str]) -> int | None:
    digits = m.group()
    if _ID_CONTEXT.search(_window(folded, m.start())) and _real_date("19" + digits[6:12]):
        return m.end()
    return None


def _whole(folded: str, m: re.Match[str]) -> int | None:
    return m.end()


# Given a match, the end of the accepted value, or None to reject it.
_Check = Callable[[str, re.Match[str]], "int | None"]
# Earlier detectors win overlaps: an email's digits are not a phone, an id is not a card.
_DETECTORS: tuple[tuple[str, re.Pattern[str], _Check], ...] = (
    (EMAIL, _EMAIL_RE, _whole),
    (CN_ID, _CN_ID_RE, _id_end),
    (CN_ID, _CN_ID15_RE, _id15_end),
    (BANK_CARD, _CARD_RE, _card_end),
    (PHONE, _CN_MOBILE_RE, _phone_end),
    (PHONE, _NANP_RE, _phone_end),
    (PHONE, _CN_LANDLINE_RE, _phone_end),
    (PHONE, _INTL_RE, _phone_end),
)


def normalise(kind: str, value: str) -> str:
    if kind == EMAIL:
        return value.lower()
    if kind == PHONE:
        return _canonical_phone(value)
    return _digits(value)


def spans(folded: str) -> Iterator[tuple[str, int, int]]:
    """``(type, start, end)`` of each accepted value in a folded text; earlier detectors
    win overlaps."""
    taken: list[tuple[int, int]] = []
    for kind, pattern, check in _DETECTORS:
        for m in pattern.finditer(folded):
            end = check(folded, m)
            if end is None or any(m.start() < e and s < end for s, e in taken):
                continue
            taken.append((m.start(), end))
            yield kind, m.start(), end
