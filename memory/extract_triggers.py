"""Cheap rules that say "this turn holds something worth remembering, extract now".

Used twice: by ``async_extract`` to skip the debounce delay, and by the rule
gate in front of the LLM extractor (no trigger, no model call). They err on the
side of firing: a false trigger costs one early job, a missed one only delays it.
"""

from __future__ import annotations

import re

from memagent.memory.extract_cues import FILLERS

_AMOUNT = re.compile(
    r"(?:[$€£¥￥]\s?\d)|(?:\d[\d,.]*\s*(?:k|m|bn|million|billion|thousand|dollars|usd|eur|rmb|"
    r"yuan)\b)|(?:\d[\d,.]*\s*(?:万|亿|千|元|块|美元|人民币))|(?:[一二三四五六七八九十两百千]+\s*(?:万|亿))",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week|"
    r"next month|end of (?:the )?(?:month|quarter|year)|q[1-4]|deadline|by (?:the )?\d{1,2}(?:st|nd|rd|th)?|"
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}"
    r"|(?:周[一二三四五六日天]|星期[一二三四五六日天]|明天|后天|下周|下个月|月底|季度末|年底|截止|"
    r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]|\d{1,2}\s*[日号]之前)",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:decision[- ]maker|decides|sign(?:s|ed)? off|approv(?:e|es|al)|we(?:'ve| have)? decided|"
    r"final (?:say|word)|last word|budget owner|procurement)\b|(?:拍板|决策人|说了算|审批|批准|决定了|我们决定|签字|采购负责)",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(?:from now on|always|never|prefer(?:s|red)?|please don't|do not|don't|only (?:via|by|on)|"
    r"going forward|call me|email me|contact (?:me|us|him|her) (?:via|by|on))\b"
    r"|(?:以后都|以后请|不要|别再|偏好|喜欢|只用|请用|通过.{0,6}联系|联系我|发邮件|打电话|微信联系)",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    rf"^\s*(?:(?:{FILLERS})[,!.]?\s+)*(?:no[,.! ]|actually\b|correction\b"
    r"|sorry,? (?:i meant|it's)|wait,)"
    r"|(?:不对|不是.{0,8}是|更正|纠正|说错了|其实是)",
    re.IGNORECASE,
)

_SALES = re.compile(
    r"\b(?:needs?|requires?|requirements?|must|mandatory|wants?|use|uses|using|runs? on|"
    r"competitors?|rival|quoted?|bid|pain|problems?|issues?|worr(?:y|ied|ies)|concerns?|risks?|"
    r"complain\w*|frustrat\w*|priority|goals?|objectives?|champion|sponsor|skeptic\w*|neutral|"
    r"ceo|cfo|cto|coo|cio|ciso|vp|director|head of|manager|procurement|shortlist|on hold|"
    r"pilot|poc|demo|proposal|contract|renewal|rollout|integrat\w*|sso|on[- ]prem\w*)\b"
    r"|需要|必须|要求|想要|希望|用的是|现在用|竞争|对手|竞品|报价|痛点|问题|担心|顾虑|目标|优先|"
    r"投诉|故障|负责人|总监|经理|主任|总经理|副总|董事长|采购|支持我们|中立|演示|方案|合同|"
    r"试点|上线|集成|对接|私有化|部署",
    re.IGNORECASE,
)
"""Sales vocabulary: a note that speaks of needs, systems, rivals, people or next steps
reaches the LLM extractor even when no rule reads it."""

TRIGGERS: dict[str, re.Pattern[str]] = {
    "sales": _SALES,
    "amount": _AMOUNT,
    "date": _DATE,
    "decision": _DECISION,
    "preference": _PREFERENCE,
    "correction": _CORRECTION,
}


def early_triggers(text: str) -> list[str]:
    """Names of the triggers that fire on ``text`` (empty list: nothing salient)."""
    return [name for name, pattern in TRIGGERS.items() if pattern.search(text)]


_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hello|hey|thanks|thank you|thx|ok(?:ay)?|sure|yes|yeah|yep|no|nope|great|cool|"
    r"good (?:morning|afternoon|evening|night)|bye|see you|got it|sounds good|nice|lol|haha+|"
    r"how (?:are|was|is) (?:you|your|the)\b.*|what'?s up|have a (?:good|nice|great) \w+|"
    r"你好|您好|嗨|谢谢|多谢|好的|好|嗯|行|可以|收到|明白|拜拜|再见|早上好|晚上好|周末愉快)"
    r"[\s,.!?~，。！？、]*$",
    re.IGNORECASE,
)
_QUESTION_ONLY = re.compile(r"[?？]\s*$|吗\s*[。！]?$")
_PARTS = re.compile(r"(?<=[.!?。！？；;\n])\s*|,\s*(?=(?:how|what|and)\b)|，", re.IGNORECASE)


def chatter(text: str) -> bool:
    """True when ``text`` is only small talk or questions ("hi, how was your weekend",
    "thanks!", "谁负责采购？"): nothing in it states a fact. Anything else, in any
    words, is worth a look by the LLM extractor; salience is not a vocabulary the rules
    know, so the model is not capped by them."""
    parts = [p.strip() for p in _PARTS.split(text) if p and p.strip(" ,.!?~，。！？")]
    return all(_SMALL_TALK.match(p) or _QUESTION_ONLY.search(p) for p in parts)
