"""The older per-sentence detectors of the rule extractor: budget, seats, team size,
deadline, decision maker, contact channel, incumbent vendor and "from now on / 以后都"
preferences, with the small text helpers they share (language, clipping, the core of a
correction). ``extract_rules`` merges what they read with the sales rules."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from memagent.core.types import Turn
from memagent.memory.extract_amounts import CN_NUM as _CN_NUM
from memagent.memory.extract_amounts import cn_to_int, parse_amount
from memagent.memory.extract_clauses import MEETING_CALL, PREFERS_VENDOR
from memagent.memory.extract_cues import FILLERS, TO_ASSISTANT
from memagent.memory.extract_hedges import is_approximate, is_uncertain
from memagent.memory.write_path import Candidate

_CORRECTION = re.compile(
    rf"^\s*(?:(?:{FILLERS}|sorry)[,!.]?\s+)*(?:no[,.!:]|nope\b|actually\b|correction\b"
    r"|sorry,? i meant|i meant|wait,)"
    r"|^\s*(?:不对|不是的|更正|纠正一下|说错了|其实是|刚才说错)",
    re.I,
)
_DATE = re.compile(
    r"\b(?:(?:next|this|by|before|on|until)\s+)?(?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|tomorrow|next week|next month|end of (?:the )?(?:month|quarter|year)|"
    r"q[1-4]|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?"
    r"|\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b"
    r"|\d{4}-\d{1,2}-\d{1,2}"
    r"|(?:下|这|本)?(?:周|星期)[一二三四五六日天]|明天|后天|下周|下个月|月底|季度末|年底|年前|"
    r"(?:\d{1,2}|[" + _CN_NUM + r"]+)\s*月\s*(?:\d{1,2}|[" + _CN_NUM + r"]+)\s*[日号]"
    r"|(?:\d{1,2}|[" + _CN_NUM + r"]+)\s*月(?:底|初|中)",
    re.I,
)
_EN = re.compile(r"[a-z]", re.I)


@dataclass(frozen=True)
class _Detector:
    attribute: str
    type: str
    importance: float
    keyword: re.Pattern[str]


def parse_count(text: str, nouns: str) -> str | None:
    m = re.search(
        r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+|["
        + _CN_NUM
        + r"]+)\s*(?:个|位|名)?\s*(?:"
        + nouns
        + r")(?!民)",
        text,
        re.I,
    )
    if not m:  # "账号是80个", "席位数改成120个": the noun first
        m = re.search(
            r"(?:" + nouns + r")(?:数|数量)?\s*(?:是|为|要|改成|改为|变成)\s*(\d+|[" + _CN_NUM
            + r"]+)\s*(?:个|位|名)(?![\d万亿])",
            text,
            re.I,
        )  # fmt: skip
    if not m:
        return None
    raw = m.group(1).replace(",", "")
    n = int(raw) if raw.isdigit() else cn_to_int(raw)
    return None if n is None else str(n)


_BUDGET = _Detector(
    "budget", "fact", 0.8,
    re.compile(r"\bbudget\b|预算|\b(?:clawed back|cut|trimmed|slashed|reduced|increased|raised|bumped)\b"
               r"[^.;]{0,40}\bit'?s now\b", re.I),
)  # fmt: skip
_SEATS = _Detector(
    "seats",
    "fact",
    0.6,
    re.compile(r"\b(?:seats|licen[cs]es|users|accounts)\b|席位|账号|用户|座位", re.I),
)
_TEAM = _Detector(
    "team_size",
    "fact",
    0.5,
    re.compile(r"\b(?:employees|people|sales reps|reps|staff)\b|员工|销售|人", re.I),
)
_DEADLINE = _Detector(
    "deadline", "commitment", 0.8,
    re.compile(r"\b(?:deadline|due|go[- ]live|live|launch|sign|decide|decision by|need it by|by|before|until)\b|截止|之前|前上线|上线|签约|签合同|前完成|前定", re.I),
)  # fmt: skip
_DECIDER_EN = re.compile(
    r"(?P<who>\b(?i:our|the) (?i:ceo|cfo|cto|coo|vp(?: of)? [a-z]+|head of [a-z]+|boss|director|"
    r"procurement(?: team)?|board|owner)|\b[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?:,[^,]{1,30},)?\s+"
    r"(?:is|will be)\s+(?:the\s+)?(?:final\s+|main\s+|real\s+)?(?:decision[- ]maker|one who decides|approver)"
    r"|(?P<who2>\b(?:our|the) (?:ceo|cfo|cto|coo|boss|director|board)|\b[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
    r"(?:\s*\([^()]{1,30}\)|,[^,]{1,30},)?\s+(?:makes|has|will make) the final (?:call|decision|say)|"
    r"(?P<who3>\b(?:our|the) (?:ceo|cfo|cto|coo|boss|director|board)|\b[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
    r"(?:\s*\([^()]{1,30}\)|,[^,]{1,30},)?\s+(?:signs off|approves|decides)\b"
    r"|decision[- ]maker is (?P<who4>(?:our |the )?[A-Za-z]+(?: [A-Z][a-z]+)?)"
    r"|(?i:final (?:call|say|decision)|decision) (?:now )?(?:rests|sits|lies|is) with "
    r"(?P<who5>(?:our |the )?[A-Z][a-z]+(?: [A-Z][a-z]+)?)",
)
_DECIDER_ZH = re.compile(
    r"(?:决策人|拍板的人|负责拍板的|最终决定的人|签字的人)(?:是|为)(?P<who>[\u4e00-\u9fffA-Za-z]{1,8})"
    # "王磊不是决策人", "他说了不算": a denial names nobody
    r"|(?P<who2>[\u4e00-\u9fffA-Za-z]{1,8}?)(?<![不非没])[ \t]*(?:来|最终)?(?:拍板|说了算|是决策人|做最终决定|签字确认)"
    r"|要(?P<who3>[\u4e00-\u9fff]{1,4}?)(?:签字|审批|批准)"
)
_CHANNELS = [
    ("email", re.compile(r"\be-?mail\b|邮件|邮箱", re.I)),
    ("wechat", re.compile(r"\bwechat\b|微信", re.I)),
    ("phone", re.compile(r"\bphone\b|\bcall(?:s|ing)?\b|电话", re.I)),
    ("sms", re.compile(r"\b(?:sms|text message|texts?)\b|短信", re.I)),
    ("dingtalk", re.compile(r"钉钉|\bdingtalk\b", re.I)),
    ("feishu", re.compile(r"飞书|\bfeishu\b|\blark\b", re.I)),
    ("whatsapp", re.compile(r"\bwhatsapp\b", re.I)),
    ("line", re.compile(r"(?-i:\bLINE\b)")),
    ("telegram", re.compile(r"\btelegram\b", re.I)),
]
_NEG = re.compile(r"\b(?:don't|do not|never|no more|stop|not)\b|不要|别|不想|不用|不接", re.I)
_CONTACT_KW = re.compile(
    r"\b(?:prefer|rather|contact|reach|send|best way|best to|get in touch|ping|call me|email me)\b"
    r"|联系|联络|沟通|发到|发给|打给|找我|通知|打电话|发邮件|发微信|发短信|打我",
    re.I,
)
_FROM_NOW = re.compile(
    r"\b(?:from now on|going forward|in the future|always|never|please don't|don't ever)\b"
    r"|以后都|以后请|今后|以后|一律|不要再|别再|总是|每次都|(?:^|[，,。；])\s*(?:请)?(?:不要|别)",
    re.I,
)
_VENDOR = re.compile(
    r"\b(?i:we(?:'re| are)? (?:currently |now )?(?:use|using|run on)|our current (?:vendor|provider|tool|crm|system) is)\s+"
    r"(?P<v>[A-Z][\w.]+(?: [A-Z][\w.]+)?)"
    r"|(?:目前|现在)(?:在)?用的?是?(?P<v2>[A-Za-z][\w.]+|[\u4e00-\u9fff]{2,6}?)(?:的|，|。|$)"
)
_TOPICS = [
    ("language", re.compile(r"\benglish\b|\bchinese\b|英文|中文|英语", re.I)),
    ("currency", re.compile(r"\busd\b|\brmb\b|\bcny\b|\beur\b|dollars|美元|人民币|欧元", re.I)),
    ("document_format", re.compile(r"\bpdf\b|\bword\b|\bexcel\b|\bppt\b|格式", re.I)),
    (
        "contact_time",
        re.compile(r"\bmorning|afternoon|evening|weekend|上午|下午|晚上|周末|中午", re.I),
    ),
]


def _lang(text: str) -> str:
    zh = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    return "zh" if zh * 2 >= len(_EN.findall(text)) and zh else "en"


def _clip(text: str, n: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _core(sentence: str) -> str:
    """The sentence without a leading correction or filler word."""
    s = re.sub(
        r"^\s*(?:no|nope|actually|correction|sorry,? i meant|i meant|wait|ok|okay|so)[,:.!]?\s*",
        "",
        sentence,
        flags=re.I,
    )
    s = re.sub(
        r"^\s*(?:不对|不是的|更正|纠正一下|说错了|其实是|刚才说错了?|好的|嗯)[，,:：。]?\s*", "", s
    )
    return s.strip(" ，,。.")


_REFERRING = re.compile(
    r"^\s*(?:it's|it is|that's|that is|make it|实际上|其实|是)|\b(?:it'?s|it is|that'?s) now\b|"
    r"\bnow (?:it'?s|down to|up to|only)\b|(?:看错了|搞错了|说错了|记错了)[，,]?是|现在是|变成了?",
    re.I,
)
"""A sentence that names a value for the topic at hand ("It's 80k.")."""


def _clause(sentence: str, needle: str) -> str:
    """The comma-separated clause of ``sentence`` that contains ``needle``."""
    for part in re.split(r"[,，;；]|\band\b", sentence):
        if needle.lower() in part.lower():
            return part.strip()
    return sentence


def clean_statement(sentence: str) -> str:
    """A statement without a leading "no," / "不对，" (the corrected value stands alone)."""
    core = _core(sentence)
    if not core:
        return sentence.strip()
    return sentence.strip()[sentence.strip().find(core) :] if core in sentence else core


def _cand(
    attribute: str, type_: str, importance: float, content: str, value: str | None,
    conf: float, turn: Turn, correction: bool,
) -> Candidate:  # fmt: skip
    return Candidate(
        content=_clip(content),
        type=type_,  # type: ignore[arg-type]
        entity="customer",
        attribute=attribute,
        value=value,
        importance=importance,
        confidence=conf,
        message_ids=[turn.id] if turn.id else [],
        correction=correction,
    )


def _figure_candidates(
    s: str, turn: Turn, context_attr: str | None, *, zh: bool, correction: bool, conf: float
) -> list[Candidate]:
    """Budget, seats and team size read from one sentence (a bare figure in a correction
    goes to the attribute the conversation was about)."""
    out: list[Candidate] = []
    amount = parse_amount(s)
    referring = correction or bool(_REFERRING.search(s))
    if amount and (_BUDGET.keyword.search(s) or (referring and context_attr == "budget")):
        surface, value = amount
        if is_approximate(s):
            value += " approx"
        content = f"客户预算是{surface}。" if zh else f"Customer budget is {surface}."
        out.append(_cand("budget", "fact", 0.8, content, value, conf, turn, correction))

    seats = parse_count(s, r"seats|licen[cs]es|users|accounts|席位|账号|用户|座位")
    if seats:
        content = f"客户需要{seats}个账号/席位。" if zh else f"Customer needs {seats} seats."
        out.append(_cand("seats", "fact", 0.6, content, seats, conf, turn, correction))
    elif (
        not amount
        and correction
        and context_attr in ("seats", "team_size")
        and (n := re.search(r"\d+", s))
    ):
        content = (
            f"客户需要{n.group(0)}个账号/席位。" if zh else f"Customer needs {n.group(0)} seats."
        )
        out.append(_cand("seats", "fact", 0.6, content, n.group(0), conf, turn, correction))

    team = parse_count(s, r"employees|people|sales reps|reps|staff|员工|名销售|个销售|销售|人")
    if team and not seats:
        content = f"客户团队有{team}人。" if zh else f"Customer team has {team} people."
        out.append(_cand("team_size", "fact", 0.5, content, team, conf, turn, correction))
    return out


def _sentence_candidates(s: str, turn: Turn, context_attr: str | None) -> list[Candidate]:
    zh = _lang(s) == "zh"
    correction = bool(_CORRECTION.search(s))
    conf = 0.5 if is_uncertain(s) else (0.95 if correction else 0.9)
    core = _core(s)
    out = _figure_candidates(s, turn, context_attr, zh=zh, correction=correction, conf=conf)

    date = _DATE.search(s)
    if date and (_DEADLINE.keyword.search(s) or (correction and context_attr == "deadline")):
        d = date.group(0).strip()
        clause = _clause(core, d)
        content = f"截止时间：{_clip(clause, 60)}。" if zh else f"Deadline: {_clip(clause, 80)}."
        out.append(_cand("deadline", "commitment", 0.8, content, d.lower(), conf, turn, correction))

    who = _decider(s)
    if who:
        content = f"决策人是{who}。" if zh else f"Decision maker is {who}."
        out.append(
            _cand("decision_maker", "fact", 0.8, content, who.lower(), conf, turn, correction)
        )

    channel = _channel(s)
    if channel:
        ch, negated = channel
        value = f"not {ch}" if negated else ch
        if zh:
            content = f"客户偏好：{_clip(core, 60)}。"
        else:
            content = f"Contact preference: {_clip(core, 100)}."
        attr = "contact_avoid" if negated else "contact_channel"
        out.append(_cand(attr, "preference", 0.7, content, value, conf, turn, correction))

    vendor = _VENDOR.search(s)
    if vendor:
        v = (vendor.group("v") or vendor.group("v2") or "").strip().rstrip(".,;")
        if v:
            content = f"客户目前使用{v}。" if zh else f"Customer currently uses {v}."
            out.append(
                _cand("current_vendor", "fact", 0.5, content, v.lower(), conf, turn, correction)
            )

    if not out and _FROM_NOW.search(s) and not TO_ASSISTANT.search(s):
        topic = next((name for name, p in _TOPICS if p.search(s)), None)
        attr = topic or "pref_" + hashlib.sha256(core.lower().encode()).hexdigest()[:8]
        content = (
            f"客户偏好：{_clip(core, 60)}。" if zh else f"Customer preference: {_clip(core, 100)}."
        )
        out.append(
            _cand(attr, "preference", 0.7, content, _clip(core, 80).lower(), conf, turn, correction)
        )
    return out


def _decider(s: str) -> str | None:
    m = _DECIDER_EN.search(s)
    if m:
        who = next(g for g in (m.group(f"who{n}") for n in ("", "2", "3", "4", "5")) if g)
        return who.strip()
    m = _DECIDER_ZH.search(s)
    if m:
        who = (m.group("who") or m.group("who2") or m.group("who3") or "").strip()
        who = re.sub(r"^(?:我们|我们的|这边|这个|最后|最终|由|得|要|还是|都是)+", "", who)
        who = re.sub(r"(?:来|最终|说|还是)$", "", who)
        if who and who not in ("谁", "谁来", "我不"):
            return who
    return None


_PREFERS_ZH = re.compile(
    r"喜欢|偏好|习惯|倾向|最好|尽量|优先|请|只|就行|直接|方便|希望|接受|比.{0,6}好|找(?:他|她|我)"
)
"""What makes a Chinese mention of a channel a preference ("只用微信沟通", "打电话沟通就行",
"直接微信找他"); without it "今天打电话，说…", "刚才又发微信了" and a call log's title
("新锐零售 电话沟通") report how they talked, not how they want to be reached."""


def _channel(s: str) -> tuple[str, bool] | None:
    if PREFERS_VENDOR.search(s):
        return None  # "she prefers our system over ScaleAQ": a stance, no channel
    s = MEETING_CALL.sub(" ", s)  # "on the call before the demo": a meeting, not a channel
    if not (_CONTACT_KW.search(s) or _FROM_NOW.search(s) or re.search(r"\bprefer", s, re.I)):
        return None
    if _lang(s) == "zh" and not (_PREFERS_ZH.search(s) or _NEG.search(s) or _FROM_NOW.search(s)):
        return None
    found = [(name, p.search(s)) for name, p in _CHANNELS]
    hits = [(name, m) for name, m in found if m]
    if not hits:
        return None
    neg = _NEG.search(s)
    if neg:
        # "don't call, email instead": the channel after the negation is avoided,
        # a later one is the preference.
        after = [(n, m) for n, m in hits if m.start() > neg.start()]
        if len(hits) > 1 and after:
            avoided = min(after, key=lambda h: h[1].start())
            others = [n for n, _ in hits if n != avoided[0]]
            return (others[0], False) if others else (avoided[0], True)
        if after:
            return after[0][0], True
    return hits[0][0], False
