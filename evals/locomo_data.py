"""LoCoMo data and metric: the loader, turn-level evidence recall and the context
fields turns are indexed with; they follow ``shared/data/locomo/README.md`` exactly so the
figures are comparable with the reference baselines there."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from memagent.memory.episodes import CONTEXT_TURNS, episode_context

CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

REFERENCE_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "to",
        "of",
        "and",
        "or",
        "in",
        "on",
        "at",
        "for",
        "with",
        "what",
        "when",
        "where",
        "who",
        "why",
        "how",
        "did",
        "do",
        "does",
        "i",
        "you",
        "he",
        "she",
        "it",
        "they",
        "we",
        "my",
        "your",
        "his",
        "her",
        "their",
        "me",
        "him",
        "them",
        "that",
        "this",
    ]
)
_SESSION_KEY = re.compile(r"^session_(\d+)$")


class LocomoFormatError(ValueError):
    """The file is not LoCoMo-shaped."""


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    date: str
    caption: str | None = None

    @property
    def document(self) -> str:
        """The reference document text: ``"{speaker}: {text}"`` plus the image caption."""
        doc = f"{self.speaker}: {self.text}"
        return f"{doc} [image: {self.caption}]" if self.caption else doc


@dataclass(frozen=True)
class Question:
    question: str
    evidence: tuple[str, ...]
    category: int


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def split_evidence(raw: Iterable[str]) -> tuple[str, ...]:
    """Evidence ids, with malformed entries like ``"D8:6; D9:17"`` split on ';' and stripped."""
    return tuple(part.strip() for item in raw for part in str(item).split(";") if part.strip())


def _turns(conv: dict) -> list[Turn]:
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION_KEY.match(key)))
    turns: list[Turn] = []
    for number, key in sessions:
        date = str(conv.get(f"{key}_date_time", ""))
        for t in conv[key] or []:
            turns.append(
                Turn(
                    dia_id=str(t["dia_id"]).strip(),
                    speaker=str(t["speaker"]),
                    text=str(t["text"]),
                    session=number,
                    date=date,
                    caption=t.get("blip_caption") or None,
                )
            )
    return turns


def parse_conversation(entry: dict) -> Conversation:
    """One LoCoMo entry; category-5 (adversarial) questions are kept, the metric skips them."""
    try:
        conv = entry["conversation"]
        questions = tuple(
            Question(str(q["question"]), split_evidence(q.get("evidence", [])), int(q["category"]))
            for q in entry["qa"]
        )
        return Conversation(
            sample_id=str(entry["sample_id"]),
            speakers=(str(conv["speaker_a"]), str(conv["speaker_b"])),
            turns=tuple(_turns(conv)),
            questions=questions,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise LocomoFormatError(f"not a LoCoMo conversation entry: {exc!r}") from exc


def load_locomo(path: str | Path) -> list[Conversation]:
    """All conversations in a LoCoMo JSON file (a list of entries); ``LocomoFormatError``
    names the file and what is wrong with it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise LocomoFormatError(f"{path} is not UTF-8 text, so not LoCoMo JSON") from None
    except json.JSONDecodeError as exc:
        raise LocomoFormatError(
            f"{path} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(data, list) or not data:
        kind = "an empty list" if data == [] else f"a JSON {type(data).__name__}"
        raise LocomoFormatError(f"{path} holds {kind}, not a list of LoCoMo conversations")
    try:
        return [parse_conversation(entry) for entry in data]
    except LocomoFormatError as exc:
        raise LocomoFormatError(f"{path}: {exc}") from None


def reference_tokenize(text: str) -> list[str]:
    """The README's keyword tokens: ``\\w+`` of the lower-cased text minus its stop words."""
    return [t for t in re.findall(r"\w+", text.lower()) if t not in REFERENCE_STOP_WORDS]


def evaluated(questions: Iterable[Question]) -> list[Question]:
    """Questions the metric counts: categories 1-4 with at least one evidence id."""
    return [q for q in questions if q.category in CATEGORIES and q.evidence]


def evidence_recall(retrieved: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Fraction of the evidence ids found among the first ``k`` retrieved turn ids."""
    if not evidence:
        raise ValueError("evidence_recall needs at least one evidence id")
    top = set(retrieved[:k])
    return sum(e in top for e in evidence) / len(evidence)


def summarise(
    rows: Iterable[tuple[int, Sequence[str], Sequence[str]]], ks: Sequence[int]
) -> dict[str, dict[str, float]]:
    """Mean recall@k overall and per category from ``(category, retrieved, evidence)`` rows."""
    sums: dict[str, dict[int, float]] = {}
    counts: dict[str, int] = {}
    for category, retrieved, evidence in rows:
        for group in ("all", str(category)):
            counts[group] = counts.get(group, 0) + 1
            bucket = sums.setdefault(group, dict.fromkeys(ks, 0.0))
            for k in ks:
                bucket[k] += evidence_recall(retrieved, evidence, k)
    return {
        group: {"n": float(counts[group])} | {f"R@{k}": sums[group][k] / counts[group] for k in ks}
        for group in sorted(sums, key=lambda g: (g != "all", g))
    }


# ---------------------------------------------------------------- documents as ingested

ContextMode = Literal["none", "window", "field"]
CONTEXT_MODES: tuple[str, ...] = ("none", "window", "field")


def session_day(turn: Turn) -> str:
    """``"8 May, 2023"`` from LoCoMo's ``"1:56 pm on 8 May, 2023"`` (the text itself otherwise)."""
    return turn.date.split(" on ", 1)[-1].strip()


def context_only(turns: Sequence[Turn], i: int, before: int = CONTEXT_TURNS) -> str:
    """What makes turn ``i`` findable beyond its own words: its session date and the
    ``before`` turns it answers (same session only), so "Yes, twice last year!" carries its
    topic and "what did we discuss in May 2023" can match. Known at ingestion time: only
    earlier turns are used. The same text the agent's episodes are indexed with
    (``memagent.memory.episodes.episode_context``)."""
    turn = turns[i]
    previous = [
        turns[j].document for j in range(max(0, i - before), i) if turns[j].session == turn.session
    ]
    return episode_context(session_day(turn) if turn.date else "", previous, before)


def context_text(turns: Sequence[Turn], i: int, before: int = CONTEXT_TURNS) -> str:
    """Turn ``i`` after its context (``context_only``) as one text."""
    ctx = context_only(turns, i, before)
    return f"{ctx}\n{turns[i].document}" if ctx else turns[i].document


def turn_values(conv: Conversation, context: ContextMode) -> list[tuple[str, dict, list[str]]]:
    """``(key, value, index fields)`` for every turn, as the harness puts them in the store.

    ``none``: the reference document alone. ``window``: the document after its context as
    one text (one vector; BM25 over all of it). ``field``: the document in ``content`` and
    its context in ``context``, both listed in ``index``: the store treats ``context`` as a
    keyword-only field (``HybridConfig.keyword_only_fields``), so BM25 runs over both
    joined while the one vector comes from the turn alone, the winning recipe.
    """
    if context not in CONTEXT_MODES:
        raise ValueError(f"context must be one of {CONTEXT_MODES}, got {context!r}")
    out = []
    for i, turn in enumerate(conv.turns):
        # A turn is active memory about its speaker: the agent's recall filters on
        # ``status`` and focuses on a named ``entity`` (memagent.nodes.recall_expand).
        value: dict = {
            "content": turn.document,
            "speaker": turn.speaker,
            "entity": turn.speaker,
            "status": "active",
            "date": turn.date,
        }
        fields = ["content"]
        if context == "window":
            value["content"] = context_text(conv.turns, i)
        elif context == "field":
            ctx = context_only(conv.turns, i)
            if ctx:
                value["context"] = ctx
                fields.append("context")
        out.append((turn.dia_id, value, fields))
    return out


# ---------------------------------------------------------------- the harness
