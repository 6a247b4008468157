"""LLM items checked by the rules: the schema a model must answer in, attribute
synonyms, grounding of figures, and the check that an item comes from a user statement
(taking the rules' key and value when they read the same sentence)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from memagent.core.types import Turn
from memagent.memory.extract_amounts import cn_to_int, parse_amounts
from memagent.memory.extract_corrections import CORRECTS
from memagent.memory.extract_cues import OUR_SIDE
from memagent.memory.extract_rules import extract_rules, parse_amount
from memagent.memory.extract_sales import SINGLE_VALUED, content_key
from memagent.memory.llm_twins import names_more
from memagent.memory.write_path import Candidate, numbers

MAX_ITEMS = 10


class LLMMemory(BaseModel):
    """One memory as the model must return it (bounded, enumerated)."""

    content: str = Field(min_length=1, max_length=150)
    type: Literal["preference", "fact", "commitment", "status"] = "fact"
    entity: str = Field("customer", min_length=1, max_length=40)
    attribute: str = Field(min_length=1, max_length=40)
    value: str | None = Field(None, max_length=80)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    confidence: float = Field(0.8, ge=0.0, le=1.0)


class LLMExtraction(BaseModel):
    """The model's whole answer."""

    memories: list[LLMMemory] = Field(default_factory=list, max_length=MAX_ITEMS)


_ATTR_SYNONYMS = {
    "budget": ("budget", "预算", "budget_amount", "total_budget", "spend"),
    "seats": ("seats", "licenses", "licences", "users", "user_count", "accounts", "seat_count"),
    "team_size": ("team_size", "headcount", "employees", "team"),
    "decision_maker": ("decision_maker", "approver", "decider", "signatory"),
    "current_vendor": ("current_vendor", "vendor", "current_tool", "current_crm", "incumbent",
                       "current_system", "incumbent_system"),
    "contact_channel": ("contact_preference", "contact_channel", "preferred_contact",
                           "contact_method", "communication_channel", "contact"),
    "deadline": ("deadline", "due_date", "go_live", "decision_date", "timeline", "launch_date",
                 "date"),
    "commitment": ("commitment", "next_step", "next_steps", "action_item", "follow_up"),
    "competitor": ("competitor", "competitors", "competitor_quote", "rival"),
    "requirement": ("requirement", "requirements", "must_have", "need", "needs"),
    "pain_point": ("pain_point", "pain", "problem", "pain_points"),
    "stakeholder": ("stakeholder", "contact_person", "person", "role"),
    "deal_stage": ("deal_stage", "stage", "status", "deal_status"),
}  # fmt: skip
_CANON = {syn: canon for canon, syns in _ATTR_SYNONYMS.items() for syn in syns}


def canonical_attribute(attribute: str) -> str:
    key = re.sub(r"[^\w]+", "_", attribute.strip().lower()).strip("_") or "note"
    return _CANON.get(key, key)


def _grounded(item: LLMMemory, user_text: str, dates: Sequence[str] = ()) -> str | None:
    """Reason to drop an item whose figures the user never wrote (or that are not one of
    the note's dates, resolved), else None."""
    said = numbers(user_text)
    for amount in parse_amounts(user_text):
        said |= numbers(amount.normalised) | {str(amount.value)}
    for iso in dates:
        said |= (
            numbers(iso)
            | set(re.findall(r"\d+", iso))
            | {n.lstrip("0") for n in re.findall(r"\d+", iso)}
        )
    claimed = numbers(item.content) | numbers(item.value or "")
    missing = {
        n for n in claimed if n not in said and n.rstrip("0") not in {s.rstrip("0") for s in said}
    }
    return f"ungrounded number(s) {sorted(missing)}" if missing else None


def _bigrams(text: str) -> set[str]:
    t = re.sub(r"\s+", " ", text.lower())
    return {t[i : i + 2] for i in range(len(t) - 1)}


def _similarity(a: str, b: str) -> float:
    x, y = _bigrams(a), _bigrams(b)
    return len(x & y) / len(x | y) if x and y else 0.0


def _source_sentence(
    item: LLMMemory, sentences: Sequence[tuple[str, str, bool]], assistant: Sequence[str]
) -> tuple[tuple[str, str, bool] | None, float, float]:
    """The user sentence an item most likely came from, its similarity, and the best
    similarity to an assistant message (an item closer to the assistant is not the user's)."""
    text = f"{item.content} {item.value or ''}"
    nums = numbers(text)

    def score(sentence: str) -> float:
        bonus = 0.5 if nums and nums <= numbers(sentence) | _amount_numbers(sentence) else 0.0
        return _similarity(item.content, sentence) + bonus

    best = max(sentences, key=lambda s: score(s[0]), default=None)
    best_score = score(best[0]) if best else 0.0
    best_assistant = max((score(a) for a in assistant), default=0.0)
    return best, best_score, best_assistant


_FAMILY = {"contact_channel": "contact_preference", "contact_avoid": "contact_preference",
           "current_vendor": "incumbent", "commitment": "deadline", "seats": "count",
           "team_size": "count"}  # fmt: skip


def _family(attribute: str) -> str:
    """The kind of fact a key stands for: "deadline:demo" and "commitment:x" are dates,
    "current_vendor:sap" and "incumbent" are incumbents."""
    head = attribute.split(":", 1)[0]
    return _FAMILY.get(head, head)


def _figures(text: str) -> set[int]:
    """The amounts of a text as numbers ("250k" and "250,000" are one figure)."""
    return {a.value for a in parse_amounts(text)}


def _amount_numbers(sentence: str) -> set[str]:
    amt = parse_amount(sentence)
    return numbers(amt[1]) if amt else set()


def _same_fact(rules: Sequence[Candidate], attr: str, said: str, content: str) -> list[Candidate]:
    """The rule candidates that read the same fact as an LLM item of key ``attr``."""
    return [
        c
        for c in rules
        if _family(c.attribute) == _family(attr)
        and not (
            _family(attr) == "stakeholder"
            and names_more(content, " ".join(r.content for r in rules))
            and names_more(content, c.content)
        )
        and (
            _family(attr) in SINGLE_VALUED
            or (c.value and c.value.split()[0].lower() in said)
            or _similarity(c.content, content) >= 0.35
        )
    ]


def _unmixed(
    content: str, rule: Candidate, sentence: str, sentences: Sequence[tuple[str, str, bool]]
) -> str:
    """The item's content, or the rule's when the item mixed in a joke, question or
    other figures."""
    mixed = any(
        lab != "statement" and (sent.strip("。.!！") in content or _similarity(sent, content) > 0.5)
        for sent, lab, _ in sentences
    )
    if mixed or numbers(content) - numbers(sentence) - _amount_numbers(sentence) - numbers(
        rule.content
    ):
        return rule.content
    return content


def _own_key(attr: str, content: str, value: str | None) -> tuple[str, str | None]:
    """Key and value of a fact the rules did not read (a budget value normalised)."""
    if (
        attr == "budget"
        and value
        and (amt := parse_amount(value if not value.isdigit() else value + " 元"))
    ):
        value = amt[1].split()[0] if value.isdigit() else amt[1]
    return content_key(attr, content, value), value


def _checked(
    item: LLMMemory, turns: Sequence[Turn], sentences: Sequence[tuple[str, str, bool]]
) -> tuple[Candidate | None, str | None]:
    """An LLM item checked by the rules: the sentence it came from must be a statement
    of the user; hedged means low confidence; the rules' key and value win when they
    read the same sentence, so LLM and rule memories version alike."""
    assistant = [t.content for t in turns if t.role == "assistant"]
    src, sim, sim_assistant = _source_sentence(item, sentences, assistant)
    if src is None:
        return None, "no user sentence"
    if sim_assistant > sim:
        return None, "the assistant's words, not the user's"
    sentence, label, hedged = src
    if label != "statement":
        return None, f"from a {label}"
    attr, value = canonical_attribute(item.attribute), item.value
    correction = False
    at = next((t.at for t in turns if t.role == "user" and sentence in t.content), "")
    rules, _ = extract_rules([Turn("user", sentence, "", at)])
    if OUR_SIDE.search(item.content) or (OUR_SIDE.search(sentence) and not rules):
        return None, "about our own side, not the customer"
    content = item.content
    said = f"{content} {item.value or ''}".lower()
    same = _same_fact(rules, attr, said, content)
    budget_figures = {n for c in rules if c.attribute == "budget" for n in _figures(c.content)}
    if _family(attr) not in ("budget", "amount", "competitor") and budget_figures & _figures(
        f"{content} {item.value or ''}"
    ):
        # "Priya Raman, ops director, said the budget is 250k": the budget is its own
        # record (which a later cut supersedes); a person's fact must not carry it too
        if not same:
            return None, "mixes the budget into another fact"
        content = max(same, key=lambda c: _similarity(c.content, content)).content
    if same:
        # the rules read the same statement: their key and value, so LLM and rule
        # memories version alike (the closest one when the sentence holds several);
        # a fact the rules did not read keeps a key of its own (never the rules' only one)
        rule = max(same, key=lambda c: _similarity(c.content, content))
        attr, value, correction = rule.attribute, rule.value, rule.correction
        content = _unmixed(content, rule, sentence, sentences)
    else:
        attr, value = _own_key(attr, content, value)
        # a corrected value the rules did not read ("更正：預算是 MOP 4,500,000") versions the old
        correction = attr in SINGLE_VALUED and bool(CORRECTS.search(sentence))
    conf = min(item.confidence, 0.5) if hedged else item.confidence
    ids = [t.id for t in turns if t.role == "user" and t.id and sentence in t.content]
    return (
        Candidate(
            content=content,
            type=item.type,
            entity=item.entity,
            attribute=attr,
            value=value,
            importance=item.importance,
            confidence=conf,
            message_ids=ids or [t.id for t in turns if t.role == "user" and t.id],
            correction=correction,
        ),
        None,
    )


_CN_RUN = re.compile(r"[零一二两三四五六七八九十百千万亿]{2,}")


def figures_of(text: str) -> set[str]:
    """The figures of a text, a count in Chinese numerals as digits ("一万二千人" holds
    12000, as "12000人" does); small ones ("十年") are not figures another fact shares."""
    out = numbers(text)
    for run in _CN_RUN.findall(text):
        if (n := cn_to_int(run)) is not None and n >= 100:
            out.add(str(n))
    return out
