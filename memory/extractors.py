"""Extractors: conversation turns in, validated memory candidates out.

Two implementations of one ``Extractor`` protocol, chosen when the worker is
built (``MEMAGENT_EXTRACTOR=rules|llm``):

- ``rules_extractor()``: regular expressions for explicit English and Chinese
  statements; offline, deterministic, cheap.
- ``llm_extractor(model)``: the (small) chat model with structured output and
  bounded schema; a gate in front of it skips only small talk and questions (any
  statement reaches the model, whether the rules read it or not), and every item is validated on its own so one bad item does
  not sink the rest. Amounts the user never wrote are dropped as ungrounded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from memagent.core.log_redaction import memagent_logger
from memagent.core.types import Turn
from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_dates import find_dates, reference_time
from memagent.memory.extract_rules import (
    clean_statement,
    extract_rules,
    parse_amount,
    user_sentences,
)
from memagent.memory.extract_sales import SINGLE_VALUED, content_key
from memagent.memory.extract_triggers import chatter
from memagent.memory.write_path import Candidate, numbers
from memagent.prompts.extraction import EXTRACTION_SYSTEM, EXTRACTION_USER, RETRY_JSON

log = memagent_logger(__name__)

MAX_ITEMS = 10


@dataclass
class ExtractionResult:
    """Candidates, and how many items were dropped and why."""

    candidates: list[Candidate] = field(default_factory=list)
    dropped: int = 0
    reasons: list[str] = field(default_factory=list)


MAX_CANDIDATES_PER_JOB = 24
"""Most memories one extraction job writes. A pasted document of a thousand sentences
would otherwise become hundreds of records (and minutes of writes) from one message."""


def bound_candidates(
    cands: list[Candidate], max_items: int = MAX_CANDIDATES_PER_JOB
) -> tuple[list[Candidate], int]:
    """At most ``max_items`` of ``cands`` (in their order) and how many were dropped.

    Only when over the bound: of several statements of one key (entity + attribute,
    free notes excepted) the last stands, as it would after versioning; then the most
    important ones are kept, the later one on a tie."""
    if len(cands) <= max_items:
        return cands, 0
    last: dict[tuple[str, str], int] = {}
    for i, c in enumerate(cands):
        if c.attribute != "note":
            last[(c.entity, c.attribute)] = i
    keep = [
        i
        for i, c in enumerate(cands)
        if c.attribute == "note" or last[(c.entity, c.attribute)] == i
    ]
    if len(keep) > max_items:
        ranked = sorted(keep, key=lambda i: (cands[i].importance, i), reverse=True)
        keep = sorted(ranked[:max_items])
    return [cands[i] for i in keep], len(cands) - len(keep)


class Extractor(Protocol):
    """Turns in, candidates out. Must not write anything itself."""

    async def __call__(self, turns: Sequence[Turn]) -> ExtractionResult: ...


class RulesExtractor:
    """Explicit statements by rules (see ``extract_rules``)."""

    name = "rules"

    async def __call__(self, turns: Sequence[Turn]) -> ExtractionResult:
        cands, skipped = extract_rules(turns)
        return ExtractionResult(cands, len(skipped), skipped)


def rules_extractor() -> RulesExtractor:
    return RulesExtractor()


def candidate_from_text(text: str, *, confidence: float = 0.9) -> Candidate:
    """A manual memory (``memories add``): the user's own words, keyed by the rules.

    When the rules recognise exactly one statement (a budget, a deadline...), its
    entity + attribute + value are used so the memory versions like an extracted
    one; otherwise it is a free note. Manual entries are trusted (no pending).
    """
    cands, _ = extract_rules([Turn("user", text)])
    base = cands[0] if len(cands) == 1 else None
    if base is None:
        return Candidate(content=text, confidence=confidence, importance=0.6)
    return base.model_copy(
        update={
            "content": clean_statement(text),
            "confidence": max(confidence, base.confidence),
            "correction": True,
        }
    )


# -- LLM ---------------------------------------------------------------------------


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


def transcript(turns: Sequence[Turn]) -> str:
    return "\n".join(f"{t.role}: {t.content}" for t in turns)


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
    content = item.content
    said = f"{content} {item.value or ''}".lower()
    same = [
        c
        for c in rules
        if _family(c.attribute) == _family(attr)
        and (
            _family(attr) in SINGLE_VALUED
            or (c.value and c.value.split()[0].lower() in said)
            or _similarity(c.content, content) >= 0.35
        )
    ]
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
        mixed = any(
            lab != "statement"
            and (sent.strip("。.!！") in content or _similarity(sent, content) > 0.5)
            for sent, lab, _ in sentences
        )
        if mixed or numbers(content) - numbers(sentence) - _amount_numbers(sentence) - numbers(
            rule.content
        ):
            content = rule.content  # the item mixed in a joke, question or other figures
    else:
        if (
            attr == "budget"
            and value
            and (amt := parse_amount(value if not value.isdigit() else value + " 元"))
        ):
            value = amt[1].split()[0] if value.isdigit() else amt[1]
        attr = content_key(attr, content, value)
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


def to_candidates(
    items: Sequence[dict[str, Any] | LLMMemory], turns: Sequence[Turn]
) -> ExtractionResult:
    """Validate model items one by one into candidates; count and explain drops."""
    out = ExtractionResult()
    user_turns = [t for t in turns if t.role == "user"]
    user_text = " ".join(t.content for t in user_turns)
    sentences = user_sentences(turns)
    dates = [d.iso for t in user_turns for d in find_dates(t.content, reference_time(t.at))]
    for raw in items[:MAX_ITEMS]:
        try:
            item = raw if isinstance(raw, LLMMemory) else LLMMemory.model_validate(raw)
        except ValidationError as exc:
            out.dropped += 1
            out.reasons.append(f"invalid item: {exc.errors()[0]['msg']}")
            continue
        if reason := _grounded(item, user_text, dates):
            out.dropped += 1
            out.reasons.append(reason)
            continue
        cand, why = _checked(item, turns, sentences)
        if cand is None:
            out.dropped += 1
            out.reasons.append(why or "rejected by the rules")
            continue
        out.candidates.append(cand)
    if len(items) > MAX_ITEMS:
        out.dropped += len(items) - MAX_ITEMS
        out.reasons.append(f"more than {MAX_ITEMS} items")
    return out


def _json_object(text: str) -> Any:
    """The first JSON object in a model answer (tolerates code fences and chatter)."""
    text = text.strip()
    if text.startswith("```"):
        text = re.sub(r"^```\w*\n?|```$", "", text).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the answer")
    return json.loads(text[start : end + 1])


class MalformedExtractionError(ValueError):
    """The model's answer held no JSON object, even after one retry."""


async def _ask(model: BaseChatModel, messages: list[Any]) -> list[Any]:
    """Raw items from the model; parsed leniently so valid items survive a bad one.

    The strict, bounded schema is what the model is asked for; validation happens
    per item afterwards (``to_candidates``), so one out-of-range field drops one item.
    """
    from memagent.llm.adapter import ask_parsed, response_format

    return await ask_parsed(
        model,
        messages,
        _memories,
        failure=lambda text, exc: MalformedExtractionError(f"malformed extraction JSON: {exc}"),
        retry_prompt=lambda exc: RETRY_JSON,
        response_format=response_format(LLMExtraction),
    )


def _memories(text: str) -> list[Any]:
    """The raw ``memories`` items of an answer (``ValueError`` when it holds no JSON)."""
    data = _json_object(text)
    items = data.get("memories", []) if isinstance(data, dict) else []
    return list(items) if isinstance(items, list) else []


def note_dates(turns: Sequence[Turn]) -> tuple[str, str]:
    """The note's date ("2026-11-12, Thursday") and its dates resolved by the rules
    ("next Tuesday = 2026-11-17"), so a small model copies dates instead of computing them."""
    users = [t for t in turns if t.role == "user"] or list(turns)
    ref = reference_time(users[-1].at if users else "")
    pairs = [
        f"{d.surface} = {d.iso}" for t in users for d in find_dates(t.content, reference_time(t.at))
    ]
    return f"{ref.date().isoformat()}, {ref.strftime('%A')}", "; ".join(
        dict.fromkeys(pairs)
    ) or "none"


class LLMExtractor:
    """Structured-output extraction with the rules as a gate."""

    name = "llm"

    def __init__(self, model: BaseChatModel, *, gate: bool = True, system: str = EXTRACTION_SYSTEM,
                 user: str = EXTRACTION_USER, with_rules: bool = True) -> None:  # fmt: skip
        self.model = model
        self.gate = gate
        self.with_rules = with_rules
        self.system = system
        self.user = user

    async def __call__(self, turns: Sequence[Turn]) -> ExtractionResult:
        user_text = " ".join(t.content for t in turns if t.role == "user")
        if not user_text.strip():
            return ExtractionResult(reasons=["no user text"])
        if self.gate and chatter(user_text):
            # only small talk and questions are skipped: a statement reaches the model
            # whether or not the rules' vocabulary knows its words
            return ExtractionResult(reasons=["gate: small talk or questions only"])
        when, dates = note_dates(turns)
        messages = [
            SystemMessage(self.system),
            HumanMessage(self.user.format(transcript=transcript(turns), date=when, dates=dates)),
        ]
        if not self.with_rules:
            return to_candidates(await _ask(self.model, messages), turns)
        rules = extract_rules(turns)[0]
        try:
            items = await _ask(self.model, messages)
        except MalformedExtractionError as exc:
            # the model failed twice: what the rules read is still stored, and the job's
            # result says why the model added nothing (a retry would cost minutes)
            return ExtractionResult(list(rules), reasons=[f"{exc}; the rules' facts are kept"])
        return with_rule_facts(to_candidates(items, turns), rules)


def _redundant(cand: Candidate, rules: Sequence[Candidate]) -> bool:
    """An LLM fact the rules already hold: the same key, or the same figures, or the
    same words (a small model often restates one sentence as one long item)."""
    for r in rules:
        if cand.attribute == r.attribute:
            return True
        if numbers(cand.content) and numbers(cand.content) <= numbers(r.content) | numbers(
            r.value or ""
        ):
            return True
        if _similarity(cand.content, r.content) >= 0.6:
            return True
        core = re.split(r"^[^:：]{1,30}[:：]\s*", r.content)[-1].strip(" 。.")
        if len(core) >= 6 and core in cand.content:
            return True  # the item restates the rules' clause inside a longer text
    return False


def with_rule_facts(found: ExtractionResult, rules: Sequence[Candidate]) -> ExtractionResult:
    """The rules' facts plus what only the model found: the model adds to the rules,
    the rules never cap the model (and a fact both read is written once)."""
    extra = [c for c in found.candidates if not _redundant(c, rules)]
    reasons = found.reasons + ["read by the rules too"] * (len(found.candidates) - len(extra))
    return ExtractionResult([*rules, *extra], found.dropped, reasons)


def llm_extractor(
    model: BaseChatModel, *, gate: bool = True, with_rules: bool = True
) -> LLMExtractor:
    """The LLM extractor; ``with_rules`` adds the rules' facts to the model's (default)."""
    return LLMExtractor(model, gate=gate, with_rules=with_rules)
