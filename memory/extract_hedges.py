"""Hedging versus doubt in English and Chinese notes.

"about 3 million", "~400 trucks", "大概300万", "左右" mark an approximate value: the
fact is confirmed, its value is approximate. "maybe", "might", "not sure", "可能",
"不确定", "还没定", "待确认" mark the statement itself as uncertain: the write path holds it as
pending until a second mention. Pure functions over one clause.
"""

from __future__ import annotations

import re

UNCERTAIN = re.compile(
    r"\b(?:maybe|might|perhaps|possibly|probably|not sure|unsure|wasn'?t sure|isn'?t sure|"
    r"not confirmed|unconfirmed|nothing confirmed|tentative(?:ly)?|tbd|to be confirmed|tbc|"
    r"i think|i guess|(?:we|they|he|she|i) may (?!be\b)|i suspect|rumou?r(?:ed)?|could be|may be|if at all|no idea|"
    r"could (?:move|slip|change|shift|be (?:pushed|moved|delayed))|"
    r"don'?t know yet|not (?:yet )?(?:approved|decided|final)|pending confirmation|needs? (?:to be )?confirm(?:ed|ing))\b"
    r"|可能|也许|或许|说不定|不确定|不一定|还没定|没定|未定|待定|还不确定|没确认|未确认|估计|好像|似乎|"
    r"待确认|有待确认|需要确认|"
    r"还没批|未审批|没批",
    re.I,
)
APPROX = re.compile(
    r"\b(?:about|around|roughly|approximately|approx|circa|nearly|almost|close to|"
    r"ballpark|or so|give or take)\b|~|-ish\b"
    r"|大概|大约|约|左右|差不多|上下|将近|接近|出头",
    re.I,
)


def is_uncertain(clause: str) -> bool:
    """The speaker marks the statement itself as uncertain ("maybe", "可能", "不确定")."""
    return bool(UNCERTAIN.search(clause))


def is_approximate(clause: str) -> bool:
    """The clause gives an approximate value ("about", "大概", "左右"): still a fact."""
    return bool(APPROX.search(clause))


DOUBT_ABOUT = re.compile(
    r"^(?:but |though )?(?:not sure|unsure|unclear|no idea|don'?t know)\s+(?:if|whether)\b"
    r"|^(?:但是?|不过)?(?:不确定|不清楚|不知道|说不准)(?:是不是|是否|会不会|能不能|有没有)",
    re.I,
)
"""A clause that doubts the one before it ("听说平安科技也在跟他们聊，不确定是不是同一个项目",
"Nexa is bidding, not sure if seriously")."""


BARE_HEDGE = re.compile(
    r"^(?:but |though |although )?(?:(?:it'?s |that'?s |this is )?(?:not (?:yet )?(?:confirmed|final|decided|approved)"
    r"(?: yet)?|unconfirmed|tbd|tbc|to be confirmed|not sure|unsure|nothing confirmed)|"
    r"(?:具体|确切)?(?:时间|日期)?(?:还没定|没定|未定|待定|不确定|还不确定|没确认|未确认|还没确认|还没批))[\s.!。！]*$",
    re.I,
)
