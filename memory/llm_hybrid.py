"""The hybrid LLM extractor's pieces: the clauses the rules did not read, the model's
compact answer (one line: its number, a category, the fact), the word-grounding check
of a fact, and the final dedupe by key + normalised value.

The rules' validated facts are kept as they are; the model only sorts the clauses no
rule fact covers. Fewer lines in, a few short items out: a call stays well under the
timeout on a 1.5B model on one CPU thread, and the rules' precision is kept.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from memagent.core.types import Turn
from memagent.memory.extract_clauses import split_clauses
from memagent.memory.extract_dates import DateHit, find_dates, reference_time
from memagent.memory.extract_entities import find_people, last_person
from memagent.memory.extract_rules import parse_amount, user_sentences
from memagent.memory.extract_sales import self_note, with_dates
from memagent.memory.extract_triggers import chatter
from memagent.memory.llm_items import LLMMemory, _bigrams, _similarity
from memagent.memory.write_path import Candidate

LINES_PER_CALL = 8
"""Clauses sorted per model call: about 12 output tokens each, so a call of a long note
stays near 10-20 s at ~20 tokens/s instead of one call that times out."""

Category = Literal[
    "stakeholder", "budget", "timeline", "commitment", "requirement", "incumbent",
    "competitor", "contact_preference", "pain_point", "deal_stage", "other", "none",
]  # fmt: skip


class SortedLine(BaseModel):
    """One clause as the model sorts it: its line number and category."""

    n: int = Field(ge=1, le=LINES_PER_CALL)
    c: Category


class SortedLines(BaseModel):
    """The model's whole answer for one chunk of lines."""

    items: list[SortedLine] = Field(default_factory=list, max_length=LINES_PER_CALL)


@dataclass(frozen=True)
class Line:
    """A clause for the model, and the person the note named last before it (for a
    clause that refers back to them: "he's lukewarm on us", "强烈支持")."""

    text: str
    person: str | None = None
    dated: str = ""
    """The clause with each relative date followed by its absolute form."""
    taken: frozenset[str] = frozenset()
    """The kinds of fact the rules already read in the clause's sentence: the model's
    fact of one of these kinds would restate theirs (a second memory of one fact)."""


_TYPE = {"commitment": "commitment", "timeline": "commitment", "contact_preference": "preference",
         "deal_stage": "status"}  # fmt: skip
_ATTRIBUTE = {"timeline": "deadline", "incumbent": "current_vendor",
              "contact_preference": "contact_preference"}  # fmt: skip


def _core(text: str) -> str:
    """A rule fact's text without its "Label: " prefix."""
    return re.split(r"^[^:：]{1,30}[:：]\s*", text)[-1].strip(" 。.")


def _words(text: str) -> set[str]:
    """Latin words (lower case), digits runs and CJK characters of a text."""
    t = unicodedata.normalize("NFKC", text).lower()
    return set(re.findall(r"[a-z0-9]+|[\u4e00-\u9fff]", t))


def covering(clause: str, rules: Sequence[Candidate]) -> list[Candidate]:
    """The rule facts that already read ``clause``: same words, one inside the other,
    most of the clause's character pairs inside the fact, or every word of the fact in
    the clause ("Victor Ramos: CFO." reads "Victor Ramos is the CFO")."""
    out = []
    words = _words(clause)
    pairs = _bigrams(clause)
    for r in rules:
        core = _core(r.content)
        inside = len(pairs & _bigrams(r.content)) / len(pairs) if pairs else 0.0
        if (
            clause in r.content
            or (len(core) >= 4 and core in clause)
            or _similarity(clause, core) >= 0.5
            or inside >= 0.8
            or (len(_words(r.content)) >= 2 and _words(r.content) <= words)
        ):
            out.append(r)
    return out


def covered(clause: str, rules: Sequence[Candidate]) -> bool:
    return bool(covering(clause, rules))


_FAMILY = {"deadline": "timeline", "commitment": "timeline", "current_vendor": "incumbent",
           "contact_channel": "contact_preference", "contact_avoid": "contact_preference",
           "decision_maker": "stakeholder", "count": "other", "seats": "other",
           "team_size": "other", "profile": "other"}  # fmt: skip


def family(attribute: str) -> str:
    """The kind of fact an attribute or a category stands for ("deadline:demo" and
    "commitment" are both timeline facts)."""
    head = attribute.split(":", 1)[0]
    return _FAMILY.get(head, head)


_NOTHING = re.compile(
    r"\b(?:no idea|nothing (?:new|yet|really|to report)|(?:don'?t|do not) (?:know|guess|assume)|"
    r"haven'?t (?:got|heard|met|even)|no (?:news|update)|didn'?t say|not sure yet|wrong account|"
    r"scrap that|mixed it up|ignore (?:that|this))\b|没什么|没有?(?:消息|进展|信息)|还没(?:聊|见|消息|定|说)|"
    r"不知道|不清楚|没说|别乱猜|作废|发错|搞错|记错",
    re.I,
)
"""A clause that says nothing is known, or takes text back: never a fact."""
_HEADER = re.compile(
    r"^(?:long day at|(?:a )?visit(?:ed)?\b|met (?:with )?\w+ (?:today|yesterday)|meeting with|mtg w/|"
    r"call notes|quick (?:one|update)|heading to|notes? (?:from|on)|today (?:at|with)|"
    r"(?:今天|昨天|上午|下午)?(?:去|在).{0,8}拜访|(?:今天|昨天)?拜访了|去了趟)",
    re.I,
)
"""Where the salesperson was, not what the customer is."""
_MYSELF = re.compile(r"^(?:i|i'm|i've|i'll|i'd|im|me)\b|^(?:我)(?!们)", re.I)
_REFERS_BACK = re.compile(r"^(?:he|she|his|her|him|他|她)\b|^(?:他|她)", re.I)
_EMPTY = re.compile(r"^(?:that'?s|this is|it'?s|这是|那是|这个是)", re.I)


def uncovered_lines(turns: Sequence[Turn], rules: Sequence[Candidate]) -> list[Line]:
    """The user's statement clauses no rule fact covers, with small talk, "nothing
    known" and visit headers left out: what the model is asked to sort. A short sentence
    none of whose clauses the rules read, and none left out, goes whole, so its clauses
    keep each other's context ("Decision moved too - now mid-January")."""
    out: list[Line] = []
    seen: set[str] = set()
    for turn in turns:
        if turn.role != "user" or self_note(turn.content):
            continue
        before = ""
        ref = reference_time(turn.at)
        for sentence, label, _ in user_sentences([turn]):
            clauses = split_clauses(sentence) if label == "statement" else []
            readers = [r for c in clauses for r in covering(c.text, rules)]
            open_ = [c for c in clauses if not _skip(c.text) and not covered(c.text, rules)]
            if len(clauses) > 1 and len(open_) == len(clauses) and len(sentence) <= _WHOLE:
                text = re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", sentence).strip(" .。;；")
                parts = [(text, last_person(before))]
            else:
                parts = [
                    (f"{c.label}: {c.text}" if c.label else c.text,
                     last_person(before + " " + sentence.split(c.text)[0]))
                    for c in open_
                ]  # fmt: skip
            for text, person in parts:
                if text not in seen:
                    seen.add(text)
                    dates = find_dates(text, ref)
                    out.append(Line(text, person, with_dates(text, dates), _taken(readers, dates)))
            before += " " + sentence
    return out


def _taken(readers: Sequence[Candidate], dates: Sequence[DateHit]) -> frozenset[str]:
    """The kinds of fact the rules read in a sentence; a dated kind only when they read
    the clause's own date (a sentence holds several dates: a reference by the 13th, a
    deep dive on December 2)."""
    kinds = {family(r.attribute) for r in readers}
    said = " ".join(f"{r.content} {r.value or ''}" for r in readers)
    if "timeline" in kinds and dates and any(d.iso not in said for d in dates):
        kinds.discard("timeline")
    return frozenset(kinds)


_WHOLE = 160
"""Longest sentence sent whole (characters); a longer one goes clause by clause."""


_GREETING = re.compile(
    r"^(?:hi|hello|hey|dear|thanks|thank you|best|regards|cheers|morning|perfect|great|exactly|"
    r"yes|no|nah|sure|ok|okay|sounds good)\b|^(?:谢谢|感谢|你好|您好|好的|收到|辛苦|不用了)",
    re.I,
)
"""A letter's or a chat's courtesy ("Thanks for the session last week", "感谢上周的演示")."""


def _skip(clause: str) -> bool:
    short = len(clause) < 4 and not re.search(r"[\u4e00-\u9fff]{3}", clause)
    courtesy = bool(_GREETING.search(clause)) and len(clause.split()) <= 6 and len(clause) <= 40
    return (
        short
        or courtesy
        or chatter(clause)
        or bool(_NOTHING.search(clause) or _HEADER.search(clause))
    )


def chunks(lines: Sequence[Line], size: int = LINES_PER_CALL) -> list[list[Line]]:
    return [list(lines[i : i + size]) for i in range(0, len(lines), size)]


_ROLE = re.compile(
    r"\b(?:ceo|cto|cfo|cio|coo|cmo|cro|vp|director|head|manager|chief|officer|lead|owner|"
    r"sponsor|champion|blocker|decides?|decision|signs?|approv\w*|supports?|against|skeptic\w*|"
    r"lukewarm|neutral|fan|leaving|left|joined|boss|reports? to|partner|controller|buyer)\b|"
    r"总|经理|主任|总监|负责|部长|处长|院长|董事|支持|反对|中立|冷淡|拍板|决策|对接|调去|离职|关注|认为|觉得",
    re.I,
)
_CHANNEL = re.compile(
    r"\b(?:e-?mail|call|phone|text|whatsapp|wechat|slack|teams|meeting|summary|deck|slides?|"
    r"morning|afternoon|evening|weekend|brief|short|written|in person|video|demo)s?\b|"
    r"微信|邮件|电话|短信|钉钉|视频|材料|案例|上午|下午|晚上|周末|当面|简短|书面|PPT|ppt",
    re.I,
)
_VENDOR = re.compile(
    r"[A-Z][A-Za-z0-9]+|[A-Za-z]{2,}|对手|竞品|竞争|报价|投标|在跟|\b(?:quot|bid|pitch|compet|rival)",
)
_NEED = re.compile(
    r"\b(?:needs?|must|requires?|required|requirement|wants?|has to|have to|should|looking for|"
    r"insists?|mandatory|only if|can'?t|cannot|without)\b|要|需|必须|希望|想|得|不能|只能|一定",
    re.I,
)
_NUMBER = re.compile(r"\d|[三四五六七八九十百千万亿]+(?:个|家|人|辆|台|头|名|所|座|条|年|万|亿)")
_TIMEWORD = re.compile(
    r"\b(?:by|before|until|deadline|due|end of|q[1-4]|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
    r"nov|dec|week|month|year|monday|tuesday|wednesday|thursday|friday)\w*|之前|以前|截止|月|周|号|季度|年底|年中",
    re.I,
)


def _fits(category: str, line: Line) -> bool:
    """A cheap check that the line can hold a fact of the category the model chose
    (a 1.5B model files a visit header as a timeline, "no news" as a competitor)."""
    text = line.text
    if _EMPTY.search(text):
        return False
    if _MYSELF.search(text) and category != "commitment":
        return False  # the salesperson's own state or plans ("I'm at 60% of quota")
    checks = {
        "stakeholder": lambda: bool(_ROLE.search(text)),
        "contact_preference": lambda: bool(_CHANNEL.search(text)),
        "competitor": lambda: bool(_VENDOR.search(text)),
        "incumbent": lambda: bool(
            _VENDOR.search(text) or re.search(r"系统|自研|excel", text, re.I)
        ),
        "budget": lambda: parse_amount(text) is not None,
        "requirement": lambda: bool(_NEED.search(text)),
        "other": lambda: bool(_NUMBER.search(text)),
        "timeline": lambda: bool(_TIMEWORD.search(text)),
        "commitment": lambda: bool(
            _TIMEWORD.search(text) or re.search(r"next|下一步|下周", text, re.I)
        ),
    }
    return checks.get(category, lambda: True)()


def _with_person(line: Line) -> str:
    """The clause, led by the person it refers back to when it names nobody itself."""
    text = line.dated or line.text
    if not line.person or line.person in text or find_people(text):
        return text
    if _REFERS_BACK.search(text) or (
        re.search(r"[\u4e00-\u9fff]", text) and not _MYSELF.search(text)
    ):
        sep = "：" if re.search(r"[\u4e00-\u9fff]", text) else ": "
        return f"{line.person}{sep}{text}"
    return text


def to_memory(item: SortedLine, lines: Sequence[Line]) -> LLMMemory | str:
    """The memory of a sorted line (the user's own words, led by the person it is
    about), or why it is dropped."""
    if item.c == "none":
        return "sorted as not a customer fact"
    if not 1 <= item.n <= len(lines):
        return f"line {item.n} does not exist"
    line = lines[item.n - 1]
    if not _fits(item.c, line):
        return f"not a {item.c}: {line.text[:40]!r}"
    if family(item.c) in line.taken:
        return f"the rules read this sentence's {item.c}"
    content = _with_person(line) if item.c in _PERSONAL else (line.dated or line.text)
    value = None
    if item.c == "budget" and (amt := parse_amount(content)):
        value = amt[1]
    return LLMMemory(
        content=content[:150],
        type=_TYPE.get(item.c, "fact"),  # type: ignore[arg-type]
        attribute=_ATTRIBUTE.get(item.c, item.c),
        value=value,
        importance=0.7 if item.c != "other" else 0.5,
        confidence=0.9,
    )


_PERSONAL = ("stakeholder", "contact_preference", "commitment", "timeline")


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\s,，。.;；:：!！()（）'\"-]+", "", text)


def dedupe(
    rules: Sequence[Candidate], extras: Sequence[Candidate] = ()
) -> tuple[list[Candidate], int]:
    """The rules' facts without exact twins, then the model's extras without any that
    repeat a kept fact (same key + normalised value, or the same text, or its text
    inside the other's), and how many were dropped. The rules' facts are not merged
    among themselves beyond exact twins: they are keyed per clause already."""
    keys: set[tuple[str, str, str]] = set()
    texts: list[str] = []
    out: list[Candidate] = []
    for c in rules:
        text = _norm(_core(c.content))
        if text in texts:
            continue
        texts.append(text)
        if c.value:
            keys.add((c.entity, c.attribute, _norm(c.value)))
        out.append(c)
    for c in extras:
        key = (c.entity, c.attribute, _norm(c.value)) if c.value else None
        text = _norm(_core(c.content))
        if (key and key in keys) or any(
            text == t or (min(len(text), len(t)) >= 6 and (text in t or t in text)) for t in texts
        ):
            continue
        if key:
            keys.add(key)
        texts.append(text)
        out.append(c)
    return out, len(rules) + len(extras) - len(out)
