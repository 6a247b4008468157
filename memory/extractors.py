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

import inspect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from memagent.core.log_redaction import memagent_logger
from memagent.core.types import Turn
from memagent.llm.model import LLMUnavailableError
from memagent.memory.extract_asides import readable_turns
from memagent.memory.extract_context import as_context, from_context
from memagent.memory.extract_dates import find_dates, reference_time
from memagent.memory.extract_learned import LEARNED, Fallback
from memagent.memory.extract_rules import clean_statement, extract_rules, user_sentences
from memagent.memory.extract_takebacks import take_backs
from memagent.memory.extract_triggers import chatter
from memagent.memory.llm_cover import redundant
from memagent.memory.llm_hybrid import (
    LINES_PER_CALL,
    SortedLine,
    SortedLines,
    chunks,
    dedupe,
    to_memory,
    uncovered_lines,
)
from memagent.memory.llm_items import (
    MAX_ITEMS,
    LLMExtraction,
    LLMMemory,
    _checked,
    _grounded,
)
from memagent.memory.llm_sentences import statement_sentences
from memagent.memory.write_path import Candidate
from memagent.prompts.extraction import (
    EXTRACTION_SYSTEM,
    EXTRACTION_USER,
    RETRY_JSON,
    RETRY_SORT,
    SORT_EARLIER,
    SORT_SYSTEM,
    SORT_USER,
)

log = memagent_logger(__name__)


@dataclass
class ExtractionResult:
    """Candidates, and how many items were dropped and why."""

    candidates: list[Candidate] = field(default_factory=list)
    dropped: int = 0
    reasons: list[str] = field(default_factory=list)


CONTEXT_PROMPT_CHARS = 300
"""Most characters of earlier messages in a sorting prompt (its tail: the latest)."""

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
    """Turns in, candidates out. Must not write anything itself.

    ``context``: the session's earlier user messages (``extract_context``), read to
    resolve who "he" is or what "make that 2 million" corrects; no fact comes from them.
    """

    async def __call__(
        self, turns: Sequence[Turn], *, context: Sequence[Turn] = ()
    ) -> ExtractionResult: ...


async def extract_with_context(
    extractor: Extractor, turns: Sequence[Turn], context: Sequence[Turn] = ()
) -> ExtractionResult:
    """``extractor(turns, context=context)``; an extractor of its own that takes no
    ``context`` (a test's, a notebook's) is called without it."""
    if context and _takes_context(extractor):
        return await extractor(turns, context=context)
    return await extractor(turns)


def _takes_context(extractor: object) -> bool:
    try:
        params = inspect.signature(extractor).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return "context" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def rules_with_context(
    turns: Sequence[Turn], context: Sequence[Turn] = ()
) -> tuple[list[Candidate], list[str]]:
    """``extract_rules`` of ``turns`` read after ``context``: names, the topic and dated
    events carry over from the context, its own facts and skip reasons are left out."""
    if not context:
        return extract_rules(turns)
    ctx = as_context(context)
    cands, skipped = extract_rules([*ctx, *turns])
    # the context's turns come first and read the same alone, so their skip reasons lead
    return [c for c in cands if not from_context(c)], skipped[len(extract_rules(ctx)[1]) :]


@dataclass
class RulesExtractor:
    """The rules (``extract_rules``), then the learned fallback (``extract_learned``)."""

    name = "rules"
    learned: Fallback | None = LEARNED

    async def __call__(
        self, turns: Sequence[Turn], *, context: Sequence[Turn] = ()
    ) -> ExtractionResult:
        cands, skipped = rules_with_context(turns, context)
        # only beside rule facts: a message the rules read nothing in is rarely a note
        extra = self.learned(turns, cands, context) if self.learned and cands else []
        return ExtractionResult([*cands, *extra], len(skipped), skipped)


rules_extractor = RulesExtractor  # rules_extractor(learned=None): the rules alone


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


def transcript(turns: Sequence[Turn]) -> str:
    return "\n".join(f"{t.role}: {t.content}" for t in turns)


def to_candidates(
    items: Sequence[dict[str, Any] | LLMMemory],
    turns: Sequence[Turn],
    sentences: Sequence[tuple[str, str, bool]] | None = None,
) -> ExtractionResult:
    """Validate model items one by one into candidates; count and explain drops.
    ``sentences``: the user's labelled sentences the items are checked against (the
    rules' ``user_sentences`` unless given)."""
    out = ExtractionResult()
    user_turns = [t for t in turns if t.role == "user"]
    user_text = " ".join(t.content for t in user_turns)
    sentences = user_sentences(turns) if sentences is None else sentences
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


async def _ask(
    model: BaseChatModel,
    messages: list[Any],
    parse: Callable[[str], list[Any]] | None = None,
    *,
    retry: str = RETRY_JSON,
    schema: type[BaseModel] = LLMExtraction,
) -> list[Any]:
    """Raw items from the model; parsed leniently so valid items survive a bad one.

    The strict, bounded schema is what the model is asked for; validation happens
    per item afterwards (``to_candidates``), so one out-of-range field drops one item.
    The hybrid's sorting call passes its own ``parse``, ``retry`` prompt and ``schema``.
    """
    from memagent.llm.adapter import ask_parsed, response_format

    return await ask_parsed(
        model,
        messages,
        parse or _memories,
        failure=lambda text, exc: MalformedExtractionError(f"malformed extraction JSON: {exc}"),
        retry_prompt=lambda exc: retry,
        response_format=response_format(schema),
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
    learned: Fallback | None = LEARNED
    """The learned fallback beside the rules in the hybrid path (None: the rules alone)."""

    def __init__(self, model: BaseChatModel, *, gate: bool = True, system: str = EXTRACTION_SYSTEM,
                 user: str = EXTRACTION_USER, with_rules: bool = True,
                 hybrid: bool = True, lines_per_call: int = LINES_PER_CALL) -> None:  # fmt: skip
        self.model = model
        self.gate = gate
        self.with_rules = with_rules
        self.hybrid = hybrid and with_rules
        self.lines_per_call = lines_per_call
        self.system = system
        self.user = user

    async def __call__(
        self, turns: Sequence[Turn], *, context: Sequence[Turn] = ()
    ) -> ExtractionResult:
        # not for memory ("just small talk", "off the record"): as the rules, never sent;
        # a private aside inside a note ("（私事：…不用记）") goes, the note's facts stay
        turns = readable_turns(turns)
        turns, backs = take_backs(turns)
        if backs:  # "forget what I just said", "作废": the rules' retraction, never the model
            got = await self(turns, context=context)
            return ExtractionResult([*got.candidates, *backs], got.dropped, got.reasons)
        user_text = " ".join(t.content for t in turns if t.role == "user")
        if not user_text.strip():
            return ExtractionResult(reasons=["no user text (or not for memory)"])
        if self.gate and chatter(user_text):
            # only small talk and questions are skipped: a statement reaches the model
            # whether or not the rules' vocabulary knows its words
            return ExtractionResult(reasons=["gate: small talk or questions only"])
        if self.hybrid:
            return await self._hybrid(turns, context)
        when, dates = note_dates(turns)
        messages = [
            SystemMessage(self.system),
            HumanMessage(self.user.format(transcript=transcript(turns), date=when, dates=dates)),
        ]
        if not self.with_rules:
            return to_candidates(await _ask(self.model, messages), turns)
        rules = rules_with_context(turns, context)[0]
        try:
            items = await _ask(self.model, messages)
        except MalformedExtractionError as exc:
            # the model failed twice: what the rules read is still stored, and the job's
            # result says why the model added nothing (a retry would cost minutes)
            return ExtractionResult(list(rules), reasons=[f"{exc}; the rules' facts are kept"])
        return with_rule_facts(to_candidates(items, turns), rules)

    async def _hybrid(self, turns: Sequence[Turn], context: Sequence[Turn]) -> ExtractionResult:
        """The rules' facts and the learned fallback's, plus what the model reads in the
        clauses none of them covers (a few lines per call); a chunk the model fails on
        loses only its own lines. The earlier messages (``context``) lead the prompt after
        the fixed system part, so the server reuses that prefix across the chunks of one job."""
        rules = rules_with_context(turns, context)[0]
        # the learned fallback too, as the rules extractor runs it: the model reads what
        # neither read, so the LLM path never keeps less than the default path
        if rules and self.learned is not None:
            rules = [*rules, *self.learned(turns, rules, context)]
        earlier = " ".join(t.content for t in context)
        lines = uncovered_lines(turns, rules, earlier=earlier)
        if not lines:
            return ExtractionResult(dedupe(rules)[0], reasons=["the rules read every clause"])
        note = " ".join(t.content for t in turns if t.role == "user")
        head = SORT_EARLIER.format(earlier=earlier[-CONTEXT_PROMPT_CHARS:]) if earlier else ""
        items: list[LLMMemory] = []
        reasons: list[str] = []
        for done, chunk in enumerate(chunks(lines, self.lines_per_call)):
            numbered = "\n".join(f"{i}. {line.text}" for i, line in enumerate(chunk, 1))
            human = head + SORT_USER.format(note=note[:1200], lines=numbered)
            try:
                sorted_lines = await _ask(
                    self.model,
                    [SystemMessage(SORT_SYSTEM), HumanMessage(human)],
                    _sorted,
                    retry=RETRY_SORT,
                    schema=SortedLines,
                )
            except MalformedExtractionError as exc:
                reasons.append(f"{exc}; {len(chunk)} line(s) left to the rules")
                continue
            except LLMUnavailableError as exc:
                if not done:
                    raise  # down from the first call: the worker's outage handling decides
                left = len(lines) - done * self.lines_per_call
                reasons.append(f"{exc}; {left} line(s) left to the rules")
                break
            for item in sorted_lines:
                memory = to_memory(item, chunk)
                if isinstance(memory, str):
                    reasons.append(memory)
                else:
                    items.append(memory)
        found = with_rule_facts(
            to_candidates(items, turns, statement_sentences(turns, clause_hedges=True)), rules
        )
        kept, twins = dedupe(rules, found.candidates[len(rules) :])
        return ExtractionResult(
            kept, found.dropped + twins, reasons + found.reasons + ["a twin"] * twins
        )


def _sorted(text: str) -> list[Any]:
    data = _json_object(text)
    raw = data.get("items", []) if isinstance(data, dict) else []
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(SortedLine.model_validate(item))
        except ValidationError:
            continue
    return out


def with_rule_facts(found: ExtractionResult, rules: Sequence[Candidate]) -> ExtractionResult:
    """The rules' facts plus what only the model found: the model adds to the rules,
    the rules never cap the model (and a fact both read is written once)."""
    extra = [c for c in found.candidates if not redundant(c, rules)]
    reasons = found.reasons + ["read by the rules too"] * (len(found.candidates) - len(extra))
    return ExtractionResult([*rules, *extra], found.dropped, reasons)


def llm_extractor(
    model: BaseChatModel, *, gate: bool = True, with_rules: bool = True, hybrid: bool = True
) -> LLMExtractor:
    """The LLM extractor; ``with_rules`` adds the rules' facts to the model's (default);
    ``hybrid`` (default) sends the model only the clauses the rules did not read."""
    return LLMExtractor(model, gate=gate, with_rules=with_rules, hybrid=hybrid)
