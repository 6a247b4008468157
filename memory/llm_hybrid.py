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
from typing import Literal

from pydantic import BaseModel, Field

from memagent.core.types import Turn
from memagent.memory.extract_aliases import with_full_names
from memagent.memory.extract_clauses import split_clauses
from memagent.memory.extract_cues import self_note
from memagent.memory.extract_dates import DateHit, find_dates, reference_time
from memagent.memory.extract_entities import find_people, known_names, last_person
from memagent.memory.extract_ownside import own_affair
from memagent.memory.extract_rules import parse_amount
from memagent.memory.extract_sales import with_dates
from memagent.memory.extract_script import fold
from memagent.memory.llm_categories import _MYSELF, _NAMED, Line, _names, a_site, fits, refiled
from memagent.memory.llm_cover import covered, covering, fact_core
from memagent.memory.llm_items import LLMMemory
from memagent.memory.llm_sentences import conditional_sentences, statement_sentences
from memagent.memory.llm_skip import OURS, only_a_date, said_before, skip
from memagent.memory.llm_twins import names_more, restates
from memagent.memory.write_path import Candidate, numbers

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


_TYPE = {"commitment": "commitment", "timeline": "commitment", "contact_preference": "preference",
         "deal_stage": "status"}  # fmt: skip
_ATTRIBUTE = {"timeline": "deadline", "incumbent": "current_vendor",
              "contact_preference": "contact_preference"}  # fmt: skip


_FAMILY = {"deadline": "timeline", "commitment": "timeline", "current_vendor": "incumbent",
           "contact_channel": "contact_preference", "contact_avoid": "contact_preference",
           "decision_maker": "stakeholder", "count": "other", "seats": "other",
           "team_size": "other", "profile": "other"}  # fmt: skip


def family(attribute: str) -> str:
    """The kind of fact an attribute or a category stands for ("deadline:demo" and
    "commitment" are both timeline facts)."""
    head = attribute.split(":", 1)[0]
    return _FAMILY.get(head, head)


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)、](?!\d))\s*")
"""A list item's bullet or number ("- ", "2) ", "3、"), not a decimal point ("1.5M")."""
_REFERS_BACK = re.compile(r"^(?:he|she|his|her|him|他|她)\b|^(?:他|她)", re.I)


def uncovered_lines(
    turns: Sequence[Turn], rules: Sequence[Candidate], *, earlier: str = ""
) -> list[Line]:
    """The user's statement clauses no rule fact covers, with small talk, "nothing
    known" and visit headers left out: what the model is asked to sort. A short sentence
    none of whose clauses the rules read, and none left out, goes whole, so its clauses
    keep each other's context ("Decision moved too - now mid-January"). ``earlier``: the
    session's earlier messages, where a line's "he" may find the person it means."""
    out: list[Line] = []
    seen: set[str] = set()
    before = earlier
    for turn in turns:
        if turn.role != "user" or self_note(turn.content):
            continue
        ref = reference_time(turn.at)
        names = known_names(f"{earlier} {turn.content}")
        for sentence, label, _ in statement_sentences([turn]):
            clauses = split_clauses(sentence) if label == "statement" else []
            if (clauses and OURS.search(fold(clauses[0].text))) or own_affair(sentence):
                continue  # our own company's news or the salesperson's own affairs
            readers = [r for c in clauses for r in covering(c.text, rules)]
            open_ = [
                c
                for c in clauses
                if not skip(c.text, labelled=bool(c.label)) and not covered(c.text, rules)
            ]
            named = [c for c in clauses if c in open_ or _fragment(c.text)]
            if (
                len(clauses) > 1
                and len(named) == len(clauses)
                and open_
                and len(sentence) <= _WHOLE
            ):
                text = _BULLET.sub("", sentence).strip(" .。;；")
                parts = [(text, last_person(before))]
            else:
                parts = [
                    (f"{c.label}: {c.text}" if c.label else c.text,
                     last_person(before + " " + sentence.split(c.text)[0]))
                    for c in open_
                ]  # fmt: skip
            for text, person in parts:
                if text not in seen and not said_before(text, earlier) and not only_a_date(text):
                    seen.add(text)
                    dates = find_dates(text, ref)
                    taken = _taken(readers, dates, text)
                    dated = with_full_names(_in_figures(_with_dates(text, dates)), names)
                    out.append(Line(text, person, dated, taken))
            before += " " + sentence
        out += _conditional_lines(turn, rules, earlier, seen)
    return out


_WE = re.compile(r"\b(?:we|we'll|we'd|our|us)\b|我们|我方|咱们|我司", re.I)
"""Our own side in a conditional sentence ("if they sign, we give 10% off", "如果预算有
200万，我们会考虑旗舰版"): our offer or our plan, not a fact about the customer."""


def _conditional_lines(
    turn: Turn, rules: Sequence[Candidate], earlier: str, seen: set[str]
) -> list[Line]:
    """The turn's sentences a condition governs whole, each one line with its condition
    ("If legal approves, kickoff in May"), unless the rules read it or it says nothing
    about the customer (see ``llm_sentences``)."""
    out = []
    ref = reference_time(turn.at)
    names = known_names(f"{earlier} {turn.content}")
    for sentence in conditional_sentences([turn]):
        text = _BULLET.sub("", sentence).strip(" .。;；")
        if (
            text in seen
            or skip(text)
            or own_affair(text)
            or OURS.search(fold(text))
            or _WE.search(text)
            or covered(text, rules)
            or said_before(text, earlier)
        ):
            continue
        seen.add(text)
        dates = find_dates(text, ref)
        taken = _taken(covering(text, rules), dates, text)
        dated = with_full_names(_in_figures(_with_dates(text, dates)), names)
        out.append(Line(text, last_person(earlier), dated, taken, conditional=True))
    return out


_FIGURES = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b|\b(\d{4})[/.](\d{1,2})[/.](\d{1,2})\b")


def _in_figures(text: str) -> str:
    """``text`` with a full date in figures ("12/18/2026", "2027/01/15") followed by its ISO
    form; an order of day and month that cannot be told ("03/04/2027") is left alone."""

    def iso(m: re.Match[str]) -> str:
        if m.group(4):
            y, mo, d = int(m.group(4)), int(m.group(5)), int(m.group(6))
        else:
            a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
            if a <= 12 and b <= 12 and a != b:
                return m.group(0)
            mo, d = (a, b) if b > 12 or a == b else (b, a)
        if not (1 <= mo <= 12 and 1 <= d <= 31):
            return m.group(0)
        stamp = f"{y:04d}-{mo:02d}-{d:02d}"
        return m.group(0) if stamp in text else f"{m.group(0)} ({stamp})"

    return _FIGURES.sub(iso, text)


_PHRASE_GOES_ON = re.compile(r"[\w\u4e00-\u9fff]")


def _with_dates(text: str, dates: Sequence[DateHit]) -> str:
    """``text`` with each relative date's absolute form (``with_dates``), written right
    after the date where the phrase ends there ("by Friday (2026-11-13), ...") and at the
    end of the clause where the phrase goes on ("国庆后第一周签 (国庆 = 2026-10-01)"), so
    the user's words stay whole for recall and reading."""
    inline = [d for d in dates if not _PHRASE_GOES_ON.match(text[d.end : d.end + 1])]
    after = [
        f"{d.surface} = {d.iso}"
        for d in dates
        if d not in inline and d.iso.lower() not in d.surface.lower()
    ]
    out = with_dates(text, inline)
    return f"{out} ({'; '.join(after)})" if after else out


def _fragment(clause: str) -> bool:
    """A clause too short to say anything alone: a name of a bullet item ("对接人：张敏，
    数字化中心总监，态度积极") that the sentence sent whole keeps with its role."""
    return len(clause) < 4 and not re.search(r"[\u4e00-\u9fff]{3}", clause)


def _taken(
    readers: Sequence[Candidate], dates: Sequence[DateHit], text: str = ""
) -> frozenset[str]:
    """The kinds of fact the rules read in a sentence; a dated kind only when they read
    the clause's own date (a sentence holds several dates: a reference by the 13th, a
    deep dive on December 2); a kind of named things (people, systems, rivals) only
    when they read every name of the clause ("Attendees: Tom Reed (CFO), Jens Möller
    (Procurement Manager)": the rules reading Tom leave Jens to the model)."""
    kinds = {family(r.attribute) for r in readers}
    said = " ".join(f"{r.content} {r.value or ''}" for r in readers)
    if "timeline" in kinds and dates and any(d.iso not in said for d in dates):
        kinds.discard("timeline")
    names = _names(text)
    for kind in _NAMED & kinds:
        theirs = " ".join(r.content for r in readers if family(r.attribute) == kind).lower()
        if names and not all(n.lower() in theirs for n in names):
            kinds.discard(kind)
    return frozenset(kinds)


_WHOLE = 160
"""Longest sentence sent whole (characters); a longer one goes clause by clause."""


def chunks(lines: Sequence[Line], size: int = LINES_PER_CALL) -> list[list[Line]]:
    return [list(lines[i : i + size]) for i in range(0, len(lines), size)]


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


_NOT_TIMED = r"(?![\u4e00-\u9fff]*(?:周[一二三四五六日天末]|星期|礼拜|禮拜|[月号號日天点點早晚午]))"
_CHAT_HEAD = re.compile(
    rf"^(?:{_NOT_TIMED}[\u4e00-\u9fff]+\s+){{1,2}}{_NOT_TIMED}[\u4e00-\u9fff]+\s+\d{{1,2}}:\s?\d{{2}}$"
)
"""A chat export's message header: company, who wrote and when ("星禾教育 周婷婷 10:05"),
no fact (a time word in it, "下周五 10:30", makes it one)."""


def to_memory(item: SortedLine, lines: Sequence[Line]) -> LLMMemory | str:
    """The memory of a sorted line (the user's own words, led by the person it is
    about), or why it is dropped."""
    if not 1 <= item.n <= len(lines):
        return f"line {item.n} does not exist"
    line = lines[item.n - 1]
    if _CHAT_HEAD.match(line.text):
        return f"a chat header: {line.text[:40]!r}"
    category = refiled(item.c, line)
    if category is None:
        return (
            "sorted as not a customer fact"
            if item.c == "none"
            else (f"not a {item.c}: {line.text[:40]!r}")
        )
    if (
        family(category) in line.taken
        and item.c not in (category, "none")
        and family(item.c) not in line.taken
        and fits(item.c, line)
    ):
        category = item.c  # refiled into a kind the rules read: the model's own kind stands
    kind = "site" if category == "other" and a_site(line) else family(category)
    if kind in line.taken:
        return f"the rules read this sentence's {category}"
    content = _with_person(line) if category in _PERSONAL else (line.dated or line.text)
    value = None
    if category == "budget" and (amt := parse_amount(content)):
        value = amt[1]
    elif category == "budget" and (figures := [int(n) for n in numbers(content) if n.isdigit()]):
        # a currency the amount parser does not know ("MOP 4,500,000"): the figure is the
        # value all the same, so a correction of the budget versions the old one
        value = str(max(figures)) if max(figures) >= 1000 else None
    return LLMMemory(
        content=content[:150],
        type=_TYPE.get(category, "fact"),  # type: ignore[arg-type]
        attribute="conditional" if line.conditional else _ATTRIBUTE.get(category, category),
        value=None if line.conditional else value,
        importance=0.7 if category != "other" else 0.5,
        confidence=0.9,
    )


_PERSONAL = ("stakeholder", "contact_preference", "commitment", "timeline")


def squeezed(text: str) -> str:
    """``text`` as two facts' texts are compared: NFKC, lower case, without spaces and
    punctuation (also ``extract_learned``'s check against the rules' facts)."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\s,，。.;；:：!！()（）'\"-]+", "", text)


def dedupe(
    rules: Sequence[Candidate], extras: Sequence[Candidate] = ()
) -> tuple[list[Candidate], int]:
    """The rules' facts without exact twins, then the model's extras without any that
    repeat a kept fact (same key + normalised value, or the same text, or its text
    inside the other's, or nothing a kept fact does not hold: ``llm_twins``), and how
    many were dropped. The rules' facts are not merged
    among themselves beyond exact twins: they are keyed per clause already."""
    keys: set[tuple[str, str, str]] = set()
    texts: list[str] = []
    out: list[Candidate] = []
    for c in rules:
        text = squeezed(fact_core(c.content))
        if text in texts:
            continue
        texts.append(text)
        if c.value:
            keys.add((c.entity, c.attribute, squeezed(c.value)))
        out.append(c)
    for c in extras:
        key = (c.entity, c.attribute, squeezed(c.value)) if c.value else None
        text = squeezed(fact_core(c.content))
        personal = family(c.attribute) == "stakeholder" and names_more(
            c.content, " ".join(k.content for k in out)
        )
        if (
            (key and key in keys)
            or any(
                text == t
                or (
                    min(len(text), len(t)) >= 6
                    and (text in t or t in text)
                    and not (personal and names_more(c.content, kept.content))
                )
                for t, kept in zip(texts, out, strict=True)
            )
            or any(restates(c.content, kept.content) for kept in out)
        ):
            continue
        if key:
            keys.add(key)
        texts.append(text)
        out.append(c)
    out = _one_per_person(out, len(out) - sum(1 for c in out if c in extras))
    return out, len(rules) + len(extras) - len(out)


def _one_per_person(cands: list[Candidate], n_rules: int) -> list[Candidate]:
    """The model's stakeholder facts about exactly one person the rules' own fact names
    ("Freja Holm: Head of Fleet Digital.") added to that fact: one memory per person."""
    heads = {
        i: h
        for i, c in enumerate(cands[:n_rules])
        if family(c.attribute) == "stakeholder"
        and (h := re.split(r"[:：]", c.content, maxsplit=1)[0].strip())
        and re.fullmatch(r"(?:[A-Z][\w'’.-]+ ){1,3}[A-Z][\w'’-]+|[\u4e00-\u9fff]{2,4}", h)
    }
    out = list(cands)
    for c in cands[n_rules:]:
        named = [i for i, h in heads.items() if h in c.content]
        if family(c.attribute) != "stakeholder" or len({heads[i] for i in named}) != 1:
            continue
        i = named[0]
        said = re.sub(rf"^{re.escape(heads[i])}\s*[:：]\s*", "", c.content)
        if heads[i] not in said and not _REFERS_BACK.search(said):
            continue  # only led by the person: it may name another ("韩冰：孙浩负责厂房进度")
        ids = list(dict.fromkeys([*out[i].message_ids, *c.message_ids]))
        out[i] = out[i].model_copy(
            update={"content": f"{out[i].content.rstrip(' .。')}; {said}"[:300], "message_ids": ids}
        )
        out.remove(c)
    return out
