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
from memagent.memory.extract_dates import DateHit, find_dates, reference_time
from memagent.memory.extract_entities import find_people, known_names, last_person
from memagent.memory.extract_hedges import is_uncertain
from memagent.memory.extract_ownside import own_affair
from memagent.memory.extract_rules import parse_amount, sentence_label, user_sentences
from memagent.memory.extract_sales import self_note, with_dates
from memagent.memory.extract_script import fold
from memagent.memory.llm_categories import _MYSELF, _NAMED, Line, _names, refiled
from memagent.memory.llm_cover import covered, covering, fact_core
from memagent.memory.llm_items import LLMMemory
from memagent.memory.llm_skip import OURS, said_before, skip
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
                text = re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", sentence).strip(" .。;；")
                parts = [(text, last_person(before))]
            else:
                parts = [
                    (f"{c.label}: {c.text}" if c.label else c.text,
                     last_person(before + " " + sentence.split(c.text)[0]))
                    for c in open_
                ]  # fmt: skip
            for text, person in parts:
                if text not in seen and not said_before(text, earlier):
                    seen.add(text)
                    dates = find_dates(text, ref)
                    taken = _taken(readers, dates, text)
                    dated = with_full_names(_in_figures(with_dates(text, dates)), names)
                    out.append(Line(text, person, dated, taken))
            before += " " + sentence
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


def _fragment(clause: str) -> bool:
    """A clause too short to say anything alone: a name of a bullet item ("对接人：张敏，
    数字化中心总监，态度积极") that the sentence sent whole keeps with its role."""
    return len(clause) < 4 and not re.search(r"[\u4e00-\u9fff]{3}", clause)


_IF = re.compile(
    r"(?:,\s*|\s+)(?:(?:and|but|so|or)\s+)?(?:if|suppose|supposing|imagine|what if|let's say|"
    r"in theory|would be)\b|(?:，|,)?(?:如果|假如|假设|万一)",
    re.I,
)
_NEXT_TOPIC = re.compile(r"\s*[,，]\s*(?=(?:also|oh|plus|anyway|btw)\b|另外|还有|而且)", re.I)
"""Where a run-on's condition ends and the next topic begins ("... if it goes well the
deal is 900k, also they got a pitch from Zuora")."""
_RUN_ON = 3
"""Fewest clauses of a statement with no condition read clause by clause when the
model's items are checked (``clause_hedges``): each clause hedged or not on its own."""
_LEADS_IF = re.compile(
    r"^\s*(?:(?:and|but|so|or|also)\s+)?(?:if|suppose|supposing|imagine|what if|let's say)\b|"
    r"^(?:另外|还有|而且|但是?|不过)?(?:如果|假如|假设|万一)",
    re.I,
)
"""A clause that opens with a condition ("if the pilot works they ...", "如果试点顺利")."""
_OWN_RESULT = re.compile(
    r"\b(?:will|would|could|'ll|'d|then|they'?re going to)\b|[会就将能]|可以", re.I
)
"""A condition clause that states its own result ("if it works they will roll out"): the
clause after it is not that result."""
_JOKED = re.compile(r"\b(?:joked?|joking|kidding|lol|haha+|jk)\b|[😂🤣😆]|开玩笑|哈哈|说笑", re.I)
"""A sentence that reports a joke ("their buyer joked they'd pay $5 million if ...")."""
_NEW_CONDITION = re.compile(r"\s*(?:[,，]|(?:and|but|so|or)\b)", re.I)
"""A condition after a comma or a conjunction starts a new thought ("he wants a pilot,
and if it goes well ..."): what precedes it stands on its own."""
_ONLY_IF = re.compile(
    r"^\s*(?:(?:and|but|so)\s+)?(?:only if|unless|as long as|provided|assuming)\b|"
    r"^(?:但是?|不过)?(?:只要|前提是|除非|条件是)",
    re.I,
)
"""A trailing condition on the clause before it ("They sign in March, but only if legal
approves"): that clause is hypothetical too."""


def statement_sentences(
    turns: Sequence[Turn], *, clause_hedges: bool = False
) -> list[tuple[str, str, bool]]:
    """The user's sentences as the rules label them (``user_sentences``), except a
    sentence that holds a condition and more than one clause: its clauses are read on
    their own, so a clause the condition does not govern is a statement ("They run
    Oracle today, but if the pilot works they would move to us"), while the condition,
    the result it states, the clause after a bare leading condition ("if they sign, we
    give 10% off") and a clause a trailing "only if"/"unless" governs stay hypothetical.
    With ``clause_hedges`` (what the model's items are checked against) a long statement
    is its clauses too, each hedged or not on its own."""
    out: list[tuple[str, str, bool]] = []
    for sentence, label, hedged in user_sentences(turns):
        if label == "hypothetical" and _JOKED.search(sentence):
            out.append((sentence, "joke", hedged))  # a joke with an "if" in it is a joke
            continue
        conditional = label == "hypothetical" or (
            label == "statement" and bool(_IF.search(" " + sentence))
        )
        split = conditional or (clause_hedges and label == "statement")
        clauses = split_clauses(sentence) if split else []
        if len(clauses) < (2 if conditional else _RUN_ON):
            out.append((sentence, label, hedged))
            continue
        if not conditional:
            # a hedge is its own clause's ("..., 卫宁报价好像比我们低，但是他也不确定具体多少"):
            # it makes no other clause of a long run-on unconfirmed
            out.extend((c.text, label, is_uncertain(c.text)) for c in clauses)
            continue
        out.extend(_conditional_clauses([c.text for c in clauses], hedged))
    return out


def _conditional_clauses(clauses: Sequence[str], hedged: bool) -> list[tuple[str, str, bool]]:
    """The clauses of a sentence holding a condition, each labelled (see
    ``statement_sentences``)."""
    out: list[tuple[str, str, bool]] = []
    after_if = False
    for i, text in enumerate(clauses):
        governed = i + 1 < len(clauses) and bool(_ONLY_IF.search(clauses[i + 1]))
        if (
            after_if
            or governed
            or _LEADS_IF.search(text)
            or (sentence_label([text], 0) != "statement")
        ):
            m = _IF.search(" " + text)
            head = text[: max(m.start() - 1, 0)].strip(" ,，") if m else ""
            if m and head and not _NEW_CONDITION.match(m.group(0)):
                # "they'd pay us $5 million if ...": a bare trailing "if" governs its head
                out.append((text, "hypothetical", hedged))
                after_if = len(text[len(head) :].split()) <= 1  # its body is the next clause
                continue
            # a bare leading condition ("if they sign,") governs the clause after it
            after_if = m is not None and not head and not _OWN_RESULT.search(text[m.end() - 1 :])
            if len(head.split()) >= 4 or len(re.findall(r"[\u4e00-\u9fff]", head)) >= 6:
                out.append((head, "statement", is_uncertain(head)))
            condition, *more = _NEXT_TOPIC.split(text[len(head) :].strip(" ,，"))
            out.append((condition, "hypothetical", hedged))
            for part in more:
                label = sentence_label([part], 0)
                out.append((part, label, is_uncertain(part)))
                after_if = label != "statement"
            continue
        out.append((text, "statement", is_uncertain(text)))
    return out


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


def to_memory(item: SortedLine, lines: Sequence[Line]) -> LLMMemory | str:
    """The memory of a sorted line (the user's own words, led by the person it is
    about), or why it is dropped."""
    if not 1 <= item.n <= len(lines):
        return f"line {item.n} does not exist"
    line = lines[item.n - 1]
    category = refiled(item.c, line)
    if category is None:
        return (
            "sorted as not a customer fact"
            if item.c == "none"
            else (f"not a {item.c}: {line.text[:40]!r}")
        )
    if family(category) in line.taken:
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
        attribute=_ATTRIBUTE.get(category, category),
        value=value,
        importance=0.7 if category != "other" else 0.5,
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
        text = _norm(fact_core(c.content))
        if text in texts:
            continue
        texts.append(text)
        if c.value:
            keys.add((c.entity, c.attribute, _norm(c.value)))
        out.append(c)
    for c in extras:
        key = (c.entity, c.attribute, _norm(c.value)) if c.value else None
        text = _norm(fact_core(c.content))
        if (key and key in keys) or any(
            text == t or (min(len(text), len(t)) >= 6 and (text in t or t in text)) for t in texts
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
