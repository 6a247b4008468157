"""A learned fallback of the rules extractor: the clauses no rule read, kept when a small
classifier finds a salient customer fact in them.

Hand-written rules reach high precision on notes nobody has seen but miss a quarter of
their facts (people marked only by 的, titles outside the list, pains and commitments in
words of their own). Session after session, rules drawn from the development sets raised
those sets and barely moved unseen notes. This fallback learns from all the labelled
development data instead: each user clause the rules' facts do not cover (the hybrid LLM
extractor's own selection, ``llm_hybrid.uncovered_lines``: small talk, questions, the
salesperson's own affairs, our own company's news and restated lines already left out) is
scored by a logistic model over hashed character n-grams (``poison_ngram.features``:
Traditional folded to Simplified, 1-4 character grams and word bigrams); above the
threshold (one for clauses with Chinese characters, one without) it is stored as the
user's own words, under a many-valued key of its category
(``<category>:learned``, no value: it never supersedes another record).

The model is one salience head (is the clause a gold fact the rules missed) and one
one-vs-rest head per category (which category it files under). Weights ship as
``data/extract_learned.npz``, written by ``bench/extract_learned.py --write`` from the
repository's labelled sets; the threshold was chosen on leave-one-set-out figures.
A clause the speaker marks as uncertain ("maybe", "可能") is stored at pending confidence,
as the rules do. Pure functions over one job; no I/O but the weights' one load.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memagent.core.types import Turn
from memagent.memory.extract_asides import readable_turns
from memagent.memory.extract_corrections import CORRECTS, REPLACED, drop_old_values, replaced_by_new
from memagent.memory.extract_hedges import is_uncertain
from memagent.memory.extract_takebacks import take_backs
from memagent.memory.hanzi_fold import to_simplified
from memagent.memory.llm_categories import Line
from memagent.memory.llm_cover import fact_core, salient
from memagent.memory.llm_hybrid import family, squeezed, uncovered_lines
from memagent.memory.poison_ngram import features
from memagent.memory.write_path import Candidate

LEARNED_PATH = Path(__file__).resolve().parent / "data" / "extract_learned.npz"
BITS = 16
"""The n-gram hashes folded to 2**16 buckets: a few hundred KB of weights per head."""
DIM = 1 << BITS
CATEGORIES: tuple[str, ...] = (
    "stakeholder", "budget", "timeline", "requirement", "incumbent", "competitor",
    "contact_preference", "pain_point", "commitment", "deal_stage", "other",
)  # fmt: skip
"""The labelled sets' categories, in their order (``evals.eval_dataset.CATEGORIES``)."""
SUFFIX = ":learned"
"""Attribute suffix of a learned fact: ``pain_point:1a2b3c4d:learned`` files under its category
and, having no value, is many-valued (the write path versions only keyed values)."""
_TYPE = {"commitment": "commitment", "timeline": "commitment", "contact_preference": "preference",
         "deal_stage": "status"}  # fmt: skip
NOVEL_MIN = 0.5
"""Least ``novelty`` of a clause the fallback stores: below it the rules' facts of the job
already hold most of its names and figures (chosen on leave-one-set-out rows)."""
ZH_WORDS = False
"""Chinese clauses also carry their jieba words (``word_grams``): measured, not shipped (more
Chinese recall, but precision fell 0.006-0.008 on two leave-one-set-out folds)."""
MAX_LEARNED = 8
"""Most learned facts of one job (its highest-scored clauses)."""


def learned_key(category: str, content: str) -> str:
    """``<category>:<hash of the words>:learned``: one key per learned fact, so two of a
    kind from one note are two memories, never versions of one (a shared key made the
    second write retry against the first until it gave up)."""
    digest = hashlib.sha1(squeezed(content).encode("utf-8")).hexdigest()[:8]
    return f"{category}:{digest}{SUFFIX}"


def clause_input(text: str) -> str:
    """The normalised text a clause is scored on (NFKC, lower case, single spaces)."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


_HAN_RUN = re.compile("[\u4e00-\u9fff]{2,}")


def word_grams(text: str) -> list[str]:
    """The jieba words (``rjieba``) of each Chinese run of the clause and their bigrams: a
    fact's words ("负责人", "预算") rather than the character grams that straddle them."""
    import rjieba  # lazy: loading the dictionary costs ~0.2 s, once

    out = []
    for run in _HAN_RUN.findall(to_simplified(text)):
        words = rjieba.cut(run)
        out += [f"zw:{w}" for w in words]
        out += [f"zw2:{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    return out


def folded_features(text: str) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """``poison_ngram.features`` of the clause, its buckets folded to ``DIM``, with the
    clause's Chinese words (``word_grams``) when it has any; L2-normalised."""
    clause = clause_input(text)
    idx, val = features(clause)
    grams = word_grams(clause) if ZH_WORDS else []
    if not grams:
        return idx & (DIM - 1), val
    counts: dict[int, float] = {}
    for b, v in zip((idx & (DIM - 1)).tolist(), val.tolist(), strict=True):
        counts[b] = counts.get(b, 0.0) + v * v
    for g in grams:
        b = zlib.crc32(g.encode("utf-8")) & (DIM - 1)
        counts[b] = counts.get(b, 0.0) + 1.0 / len(grams)
    out_idx = np.fromiter(counts, dtype=np.int64, count=len(counts))
    out_val = np.sqrt(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
    return out_idx, (out_val / np.float32(np.linalg.norm(out_val) or 1.0)).astype(np.float32)


@dataclass(frozen=True, slots=True)
class ClauseModel:
    """Row 0 of ``weights``: the salience head; row 1 + i: category ``CATEGORIES[i]``.
    ``threshold`` (a salience logit) applies to clauses without Chinese characters,
    ``threshold_cjk`` to those with."""

    weights: NDArray[np.float32]
    bias: NDArray[np.float32]
    threshold: float
    threshold_cjk: float

    def logits(self, text: str) -> NDArray[np.float32]:
        idx, val = folded_features(text)
        return (self.weights[:, idx] @ val + self.bias).astype(np.float32)

    def threshold_of(self, text: str) -> float:
        return self.threshold_cjk if re.search("[\u4e00-\u9fff]", text) else self.threshold

    def judge(self, text: str) -> tuple[float, str]:
        """The clause's salience logit minus its threshold, and its category."""
        z = self.logits(text)
        return float(z[0]) - self.threshold_of(text), CATEGORIES[int(np.argmax(z[1:]))]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez_compressed(
                fh,
                weights=self.weights.astype(np.float16),
                bias=self.bias.astype(np.float32),
                threshold=np.float64(self.threshold),
                threshold_cjk=np.float64(self.threshold_cjk),
            )

    @classmethod
    def load(cls, path: Path = LEARNED_PATH) -> ClauseModel:
        with np.load(path) as data:
            weights = data["weights"].astype(np.float32)
            if weights.shape != (1 + len(CATEGORIES), DIM):
                raise ValueError(f"{path.name}: unexpected weights shape {weights.shape}")
            return cls(
                weights,
                data["bias"].astype(np.float32),
                float(data["threshold"]),
                float(data["threshold_cjk"]),
            )


@cache
def learned_model(path: Path = LEARNED_PATH) -> ClauseModel | None:
    """The shipped model, loaded once; None when its file is missing or unreadable."""
    try:
        return ClauseModel.load(path)
    except (OSError, ValueError, KeyError):
        return None


def open_lines(turns: Sequence[Turn], rules: Sequence[Candidate],
               context: Sequence[Turn] = ()) -> list[tuple[Turn, Line]]:  # fmt: skip
    """Each user turn's clauses no rule fact covers (``uncovered_lines``), with the turn
    they come from; none of a turn that takes back what was said, none conditional."""
    turns, backs = take_backs(readable_turns(turns))
    if backs:
        return []
    earlier = " ".join(t.content for t in context if t.role == "user")
    out = []
    for turn in turns:
        if turn.role != "user":
            continue
        for line in uncovered_lines([turn], rules, earlier=earlier):
            if not line.conditional:
                out.append((turn, line))
        earlier = f"{earlier} {turn.content}".strip()
    return out


_REFERS_BACK = re.compile(r"^(?:he|she|his|her|him|they|their)\b|^[他她]", re.I)


def fact_text(line: Line) -> str:
    """What a learned fact stores: the clause (its relative dates resolved), led by the
    person the note named last when it refers back to them ("she's our champion"). A value
    the clause says is no longer true ("150 seats, not 120") is left out, as the rules do."""
    text = drop_old_values(replaced_by_new((line.dated or line.text).strip())).strip()
    if line.person and line.person not in text and _REFERS_BACK.search(text):
        sep = "：" if re.search("[\u4e00-\u9fff]", text) else ": "
        return f"{line.person}{sep}{text}"
    return text


def novelty(text: str, rules: Sequence[Candidate]) -> float:
    """Share of the clause's salient units (figures, capitalised names and terms, Chinese
    characters: ``llm_cover.salient``) that no rule fact of the job holds: a clause whose
    names and figures the rules already wrote restates their fact in other words ("Buyer is
    Nicole Hart, Director of Procurement" beside "Nicole Hart: Director of Procurement.")."""
    figures, terms, hanzi = salient(text)
    units = [*figures, *terms, *hanzi]
    if not units:
        return 1.0
    said = unicodedata.normalize("NFKC", " ".join(f"{r.content} {r.value or ''}" for r in rules))
    lower = said.lower()
    return sum(u not in (said if u in hanzi else lower) for u in units) / len(units)


def learned_facts(
    turns: Sequence[Turn],
    rules: Sequence[Candidate],
    context: Sequence[Turn] = (),
    model: ClauseModel | None = None,
) -> list[Candidate]:
    """The facts the model reads in the clauses the rules left, none restating a rule
    fact (``_new``, the text check of ``llm_hybrid.dedupe``), at most ``MAX_LEARNED``, best first."""
    model = model or learned_model()
    if model is None:
        return []
    scored = []
    for turn, line in open_lines(turns, rules, context):
        margin, category = model.judge(line.text)
        if margin < 0 or family(category) in line.taken or novelty(line.text, rules) < NOVEL_MIN:
            continue
        if CORRECTS.search(line.text) or REPLACED.search(line.text):
            # a correction is the rules' to apply to the fact it corrects, never a new fact
            continue
        content = fact_text(line)
        if not content:  # "不是80万" with its old value dropped says nothing new
            continue
        scored.append(
            (
                margin,
                Candidate(
                    content=content[:150],
                    type=_TYPE.get(category, "fact"),  # type: ignore[arg-type]
                    attribute=learned_key(category, content),
                    importance=0.6,
                    confidence=0.5 if is_uncertain(line.text) else 0.8,
                    message_ids=[turn.id] if turn.id else [],
                ),
            )
        )
    best = [c for _, c in sorted(scored, key=lambda s: -s[0])[:MAX_LEARNED]]
    return _new(best, rules)


def _new(found: Sequence[Candidate], rules: Sequence[Candidate]) -> list[Candidate]:
    """``found`` without a fact whose text a rule fact's or an earlier kept one's holds, or
    holds it (one fact, one memory)."""
    texts = [squeezed(fact_core(r.content)) for r in rules]
    out = []
    for c in found:
        text = squeezed(fact_core(c.content))
        if any(
            text == t or (min(len(text), len(t)) >= 6 and (text in t or t in text)) for t in texts
        ):
            continue
        texts.append(text)
        out.append(c)
    return out


Fallback = Callable[[Sequence[Turn], Sequence[Candidate], Sequence[Turn]], list[Candidate]]
"""What the rules extractor calls after the rules: (turns, rule facts, context) -> facts."""


@dataclass(frozen=True, slots=True)
class Learned:
    """The fallback as a value (``learned_facts`` with the shipped model): a class default
    of the rules extractor that a subclass reads as is, never bound as a method."""

    def __call__(
        self, turns: Sequence[Turn], rules: Sequence[Candidate], context: Sequence[Turn] = ()
    ) -> list[Candidate]:
        return learned_facts(turns, rules, context)


LEARNED = Learned()
