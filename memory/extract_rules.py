"""Rule-based extraction of explicit, stable statements (English and Chinese).

Pure functions over text. Each user sentence is read twice and merged into one
candidate per clause: by the sales rules (``extract_sales``: stakeholders, budget,
dates, requirements, incumbent, competitors, contact preferences, pain points,
commitments, deal stage, keyed by subject) and by the older detectors below, which
lend their single-valued keys (budget, decision maker, seats, team size) and the
"from now on / 以后都 / 不要" preferences. Questions, hypotheticals, jokes and messages
the user says not to keep are skipped. "About"/"大概" is an approximate value, not
doubt; only what the speaker marks as uncertain ("maybe", "可能") gets a low
confidence, so the write path holds it until a second mention. A correction ("no,
it's 3 million" / "不对，是300万") is tied to the attribute the conversation was about.
Dates are resolved against each message's own time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memagent.core.types import Turn
from memagent.memory.extract_amounts import CN_NUM, cn_to_int, parse_amount, parse_amounts
from memagent.memory.extract_corrections import REPLACED, replaced_by_new
from memagent.memory.extract_dates import find_dates, reference_time
from memagent.memory.extract_entities import last_person
from memagent.memory.extract_hedges import is_approximate, is_uncertain
from memagent.memory.extract_sales import (
    SalesFact,
    content_key,
    dated_event,
    known_names,
    sales_facts,
    self_note,
)
from memagent.memory.write_path import Candidate

__all__ = ["cn_to_int", "parse_amount", "extract_rules", "user_sentences", "clean_statement"]

_CN_NUM = CN_NUM

_ABBREVIATIONS = ("Dr", "Mr", "Ms", "Mrs", "vs", "incl", "approx", "etc", "Inc", "Ltd", "Co", "Dir",
                  "Dept", "No", "St", "Jr", "Sr", "Approx", "Incl", "Est", "est", "Etc", "Vs", "Mgr", "mgr")  # fmt: skip
_SPLIT = re.compile(
    r"(?<=[。！？；\n])\s*|" + "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATIONS) + r"(?<=[.!?;])\s+"
)
"""Sentence ends; "Dr. Helen", "Dir. of Engineering" and "incl. implementation" go on."""
_QUESTION = re.compile(r"[?？]\s*$|吗\s*[。！]?$|\b(?:can you|could you|do you|would you)\b", re.I)
_HYPOTHETICAL = re.compile(
    r"(?<!asked )(?<!asks )(?<!ask )(?<!check )(?<!see )(?<!wondering )(?<!know )(?<!whether )"
    r"\b(?:if|suppose|supposing|imagine|hypothetically|what if|let's say|in theory|would be)\b"
    r"|如果|假如|假设|要是|万一|比如说|打个比方",
    re.I,
)
_JOKE = re.compile(r"\b(?:just kidding|kidding|joking|lol|haha+|jk)\b|开玩笑|哈哈|逗你|说笑", re.I)
_CORRECTION = re.compile(
    r"^\s*(?:no[,.!:]|nope\b|actually\b|correction\b|sorry,? i meant|i meant|wait,)"
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
        r"(\d{1,3}(?:,\d{3})+|\d+|[" + _CN_NUM + r"]+)\s*(?:个|位|名)?\s*(?:" + nouns + r")(?!民)",
        text,
        re.I,
    )
    if not m:
        return None
    raw = m.group(1).replace(",", "")
    n = int(raw) if raw.isdigit() else cn_to_int(raw)
    return None if n is None else str(n)


_BUDGET = _Detector("budget", "fact", 0.8, re.compile(r"\bbudget\b|预算", re.I))
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
    r"|(?P<who2>\b(?:our|the) (?:ceo|cfo|cto|coo|boss|director|board)|\b[A-Z][a-z]+(?: [A-Z][a-z]+)?)\s+"
    r"(?:makes|has|will make) the final (?:call|decision|say)|"
    r"(?P<who3>\b(?:our|the) (?:ceo|cfo|cto|coo|boss|director|board)|\b[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
    r"\s+(?:signs off|approves|decides)\b"
    r"|decision[- ]maker is (?P<who4>(?:our |the )?[A-Za-z]+(?: [A-Z][a-z]+)?)",
)
_DECIDER_ZH = re.compile(
    r"(?:决策人|拍板的人|负责拍板的|最终决定的人|签字的人)(?:是|为)(?P<who>[\u4e00-\u9fffA-Za-z]{1,8})"
    r"|(?P<who2>[\u4e00-\u9fffA-Za-z]{1,8}?)(?:来|最终)?(?:拍板|说了算|是决策人|做最终决定|签字确认)"
    r"|要(?P<who3>[\u4e00-\u9fff]{1,4}?)(?:签字|审批|批准)"
)
_CHANNELS = [
    ("email", re.compile(r"\be-?mail\b|邮件|邮箱", re.I)),
    ("wechat", re.compile(r"\bwechat\b|微信", re.I)),
    ("phone", re.compile(r"\bphone\b|\bcall(?:s|ing)?\b|电话", re.I)),
    ("sms", re.compile(r"\b(?:sms|text message|texts?)\b|短信", re.I)),
    ("dingtalk", re.compile(r"钉钉|\bdingtalk\b|飞书|\bfeishu\b|\blark\b", re.I)),
    ("whatsapp", re.compile(r"\bwhatsapp\b", re.I)),
]
_NEG = re.compile(r"\b(?:don't|do not|never|no more|stop|not)\b|不要|别|不想|不用|不接", re.I)
_CONTACT_KW = re.compile(
    r"\b(?:prefer|rather|contact|reach|send|best way|best to|get in touch|ping|call me|email me)\b"
    r"|联系|沟通|发到|发给|打给|找我|通知|打电话|发邮件|发微信|发短信|打我",
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


_REFERRING = re.compile(r"^\s*(?:it's|it is|that's|that is|make it|实际上|其实|是)", re.I)
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


def _sentence_candidates(s: str, turn: Turn, context_attr: str | None) -> list[Candidate]:
    zh = _lang(s) == "zh"
    correction = bool(_CORRECTION.search(s))
    conf = 0.5 if is_uncertain(s) else (0.95 if correction else 0.9)
    core = _core(s)
    out: list[Candidate] = []

    amount = parse_amount(s)
    referring = correction or bool(_REFERRING.match(s))
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

    if not out and _FROM_NOW.search(s):
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
        who = next(
            g for g in (m.group("who"), m.group("who2"), m.group("who3"), m.group("who4")) if g
        )
        return who.strip()
    m = _DECIDER_ZH.search(s)
    if m:
        who = (m.group("who") or m.group("who2") or m.group("who3") or "").strip()
        who = re.sub(r"^(?:我们|我们的|这边|这个|最后|最终|由|得|要|还是|都是)+", "", who)
        who = re.sub(r"(?:来|最终|说|还是)$", "", who)
        if who and who not in ("谁", "谁来", "我不"):
            return who
    return None


def _channel(s: str) -> tuple[str, bool] | None:
    if not (_CONTACT_KW.search(s) or _FROM_NOW.search(s) or re.search(r"\bprefer", s, re.I)):
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


def _topic_of(turns: Sequence[Turn]) -> str | None:
    """The attribute the conversation was last about (for bare corrections)."""
    for t in reversed(turns):
        text = t.content
        if _BUDGET.keyword.search(text) or (parse_amount(text) and t.role == "assistant"):
            return "budget"
        if _DEADLINE.keyword.search(text) and _DATE.search(text):
            return "deadline"
        if _SEATS.keyword.search(text):
            return "seats"
    return None


def sentence_label(sentences: Sequence[str], j: int) -> str:
    """Why sentence ``j`` of a message is not a statement (joke, question,
    hypothetical), or "statement"."""
    s = sentences[j]
    if _JOKE.search(s) or (j + 1 < len(sentences) and _JOKE.match(sentences[j + 1])):
        # "Budget is a billion. Just kidding!": the joke marker voids its sentence
        # and, when it stands alone, the one before it.
        return "joke"
    if _QUESTION.search(s):
        return "question"
    if _HYPOTHETICAL.search(s):
        return "hypothetical"
    return "statement"


def user_sentences(turns: Sequence[Turn]) -> list[tuple[str, str, bool]]:
    """(sentence, label, hedged) for every sentence the user wrote.

    The LLM extractor checks its items against these: a figure that only
    appears in a joke, a question or a hypothetical is not a memory, and one
    that only appears hedged gets a low confidence.
    """
    out = []
    for turn in turns:
        if turn.role != "user":
            continue
        sentences = [s.strip() for s in _SPLIT.split(turn.content) if s.strip()]
        for j, s in enumerate(sentences):
            out.append((s, sentence_label(sentences, j), is_uncertain(s)))
    return out


_TYPE = {"commitment": "commitment", "timeline": "commitment", "contact_preference": "preference",
         "deal_stage": "status"}  # fmt: skip
_IMPORTANCE = {"budget": 0.8, "timeline": 0.8, "commitment": 0.8, "deal_stage": 0.8,
               "stakeholder": 0.7, "requirement": 0.7, "competitor": 0.7, "contact_preference": 0.7,
               "pain_point": 0.6, "incumbent": 0.6, "amount": 0.5, "count": 0.5}  # fmt: skip
_OLD_TO_CATEGORY = {"budget": "budget", "decision_maker": "stakeholder", "current_vendor": "incumbent",
                    "contact_channel": "contact_preference", "contact_avoid": "contact_preference",
                    "seats": "count", "team_size": "count", "deadline": "timeline"}  # fmt: skip


def _from_fact(f: SalesFact, turn: Turn, correction: bool) -> Candidate:
    conf = 0.5 if f.uncertain and not correction else (0.95 if correction else 0.9)
    return Candidate(
        content=_clip(f.content),
        type=_TYPE.get(f.category, "fact"),  # type: ignore[arg-type]
        entity="customer",
        attribute=f.attribute,
        value=f.value,
        importance=_IMPORTANCE.get(f.category, 0.6),
        confidence=conf,
        event_time=f.event_time,
        message_ids=[turn.id] if turn.id else [],
        correction=correction,
    )


def _mentions(fact: SalesFact, value: str | None) -> bool:
    """Whether a clause states ``value`` (a detector's value: "3000000", "50", "sarah")."""
    if not value:
        return False
    first = value.split()[0].lower()
    text = f"{fact.content} {fact.value or ''}".lower()
    return first in text or any(str(a.value) == first for a in parse_amounts(fact.content))


def _merge(old: list[Candidate], facts: list[SalesFact], turn: Turn, correction: bool,
           ) -> list[Candidate]:  # fmt: skip
    """One candidate per clause: the sales fact, with the single-valued key and value of
    the detector that read the same clause (budget, decision maker, seats...)."""
    out = [_from_fact(f, turn, correction) for f in facts]
    cats = [f.category for f in facts]
    used: set[int] = set()
    for c in old:
        if c.attribute == "deadline" and any(k in ("timeline", "commitment") for k in cats):
            continue  # the sales rules key deadlines by their event
        if any(o.attribute == c.attribute for o in out):
            continue  # the sales rules read the same statement under the same key
        want = _OLD_TO_CATEGORY.get(c.attribute)
        idx = next((i for i, k in enumerate(cats) if k == want and i not in used
                    and not out[i].attribute.endswith(":role")), None)  # fmt: skip
        if idx is None:
            idx = next((i for i, f in enumerate(facts) if i not in used and _mentions(f, c.value)),
                       None)  # fmt: skip
        if idx is None and c.attribute == "decision_maker":
            # "决策人是他们的副总裁赵立新": the person's full name is in their role fact
            role = next((f for f in facts if f.attribute.endswith(":role")
                         and re.split(r"[:：]", f.content)[0][:2].lower() in (c.value or "")),
                        None)  # fmt: skip
            if role is not None:
                name = re.split(r"[:：]", role.content)[0]
                zh = _lang(name) == "zh"
                c = c.model_copy(update={"value": name.lower(), "content":
                                         f"{name}是决策人。" if zh else f"{name} is the decision maker."})  # fmt: skip
        if idx is None:
            out.append(c)
            continue
        used.add(idx)
        target = out[idx]
        standing = c.type == "preference" and not c.attribute.startswith("contact")
        if (
            standing
            or c.attribute in ("budget", "decision_maker", "seats", "team_size")
            or (c.attribute.startswith("contact") and ":customer:" in target.attribute)
        ):
            value = c.value if c.attribute != "budget" else (target.value or c.value)
            if c.attribute == "budget" and c.value and "approx" in c.value and value:
                value = value if "approx" in value else value + " approx"
            out[idx] = target.model_copy(
                update={
                    "attribute": c.attribute,
                    "value": value,
                    "confidence": min(c.confidence, 0.95) if not correction else c.confidence,
                }
            )
        elif c.attribute == "current_vendor" and c.value:
            out[idx] = target.model_copy(
                update={"attribute": f"current_vendor:{c.value[:40]}", "value": c.value}
            )
    return out


def _dated(c: Candidate, sentence: str, ref: datetime) -> Candidate:
    """A deadline only the older detector read: keyed by its own content (deadlines are
    many per account) and valued by its absolute date."""
    if c.attribute != "deadline":
        return c
    dates = find_dates(sentence, ref)
    value = dates[-1].iso if dates else c.value
    return c.model_copy(update={"attribute": content_key("deadline", c.content), "value": value})


def extract_rules(turns: Sequence[Turn]) -> tuple[list[Candidate], list[str]]:
    """Candidates from the user turns, plus the reasons sentences were skipped.

    Dates are resolved against each message's own time (``Turn.at``)."""
    cands: list[Candidate] = []
    skipped: list[str] = []
    event: str | None = None
    for i, turn in enumerate(turns):
        if turn.role != "user":
            continue
        if self_note(turn.content):
            skipped.append("not for memory")
            continue
        ref = reference_time(turn.at)
        context_attr = _topic_of(turns[:i])
        event = event or dated_event(turns[:i])
        names = known_names(" ".join(t.content for t in turns[: i + 1] if t.role == "user"))
        prior_turn_person = last_person(" ".join(t.content for t in turns[:i] if t.role == "user"))
        # "X isn't A anymore; it's B" -> "X is B": the old value is left out of every memory
        text = replaced_by_new(turn.content)
        replaced = text != turn.content or bool(REPLACED.search(turn.content))
        sentences = [s.strip() for s in _SPLIT.split(text) if s.strip()]
        for j, s in enumerate(sentences):
            label = sentence_label(sentences, j)
            if label != "statement":
                skipped.append(label)
                if label == "joke" and _BUDGET.keyword.search(s):
                    context_attr = "budget"  # the topic outlives the joke ("It's 80k.")
                continue
            correction = bool(_CORRECTION.search(s)) or replaced
            old = _sentence_candidates(s, turn, context_attr)
            prior = last_person(" ".join(sentences[:j])) or prior_turn_person
            facts, event = sales_facts(s, ref, context_event=event, names=names, prior_person=prior)
            found = [_dated(c, s, ref) for c in _merge(old, facts, turn, correction)]
            cands.extend(found)
            if old:
                context_attr = old[-1].attribute
    return cands, skipped
