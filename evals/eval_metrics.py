"""Scoring of the extraction evaluation: plain functions over plain data.

Matching: a gold item is matched by a memory when, for every group of the item,
the memory's text (content, and value if the record has one) contains one of
the group's strings, both sides NFKC-normalised, lowercased, without whitespace
and commas.

Per dialog, over the *confirmed* active memories (active and not pending):

- precision: memories matching some gold item / all confirmed memories (a
  memory that matches only a pending item is a false positive: it should not
  be confirmed);
- recall: gold items matched by a confirmed memory / all gold items;
- duplicates: memories that match gold items but only ones another memory
  already covers. Counted as the gold-matching memories left over by a maximum
  one-to-one assignment of memories to gold items, so the count does not depend
  on the order the store returns records in;
- pending: each pending item is ``kept`` (found only in unconfirmed records),
  ``confirmed`` (found in a confirmed memory: wrong) or ``lost``;
- stale leaks: stale strings found in a confirmed memory.

Categories: a memory counts in the category of the first gold item it matches
(else the first pending item, else its record attribute's category, else
"other"); a duplicate in the category of its first gold item. Stale strings
have no category and only count in the totals.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from memagent.evals.eval_dataset import CATEGORIES, Dialog, GoldItem

# Record attributes written by today's extractors, by category (for memories that match
# nothing; any attribute starting with a category name counts in that category).
_ATTRIBUTE_CATEGORY = {
    "budget": "budget",
    "deadline": "timeline",
    "decision_maker": "stakeholder",
    "contact_channel": "contact_preference",
    "contact_avoid": "contact_preference",
    "current_vendor": "incumbent",
    "seats": "requirement",
}


def norm(text: str) -> str:
    """NFKC, lowercase, no whitespace, no commas."""
    text = unicodedata.normalize("NFKC", text).lower()
    return "".join(text.split()).replace(",", "")


def record_text(value: Mapping[str, Any]) -> str:
    """The normalised text a memory is matched on: content and value."""
    return norm(f"{value.get('content') or ''} {value.get('value') or ''}")


def matches(item: GoldItem, text: str) -> bool:
    """Every group of ``item`` has one string in ``text`` (already normalised)."""
    return all(any(norm(s) in text for s in group) for group in item.groups)


def attribute_category(attribute: str) -> str:
    a = attribute.strip().lower()
    if a in _ATTRIBUTE_CATEGORY:
        return _ATTRIBUTE_CATEGORY[a]
    return next((c for c in CATEGORIES if a.startswith(c)), "other")


def max_assignment(links: Sequence[Sequence[int]]) -> dict[int, int]:
    """A maximum one-to-one assignment of memories (index) to gold items (linked
    indices), as {memory: gold}; augmenting paths, fine for a dialog's few items."""
    owner: dict[int, int] = {}

    def place(m: int, seen: set[int]) -> bool:
        for g in links[m]:
            if g in seen:
                continue
            seen.add(g)
            if g not in owner or place(owner[g], seen):
                owner[g] = m
                return True
        return False

    for m in range(len(links)):
        if links[m]:
            place(m, set())
    return {m: g for g, m in owner.items()}


@dataclass
class Counts:
    """Additive counts; ``figures()`` turns them into the reported metrics."""

    memories: int = 0
    true_memories: int = 0
    gold: int = 0
    gold_found: int = 0
    duplicates: int = 0
    pending: int = 0
    pending_kept: int = 0
    pending_confirmed: int = 0
    pending_lost: int = 0
    stale: int = 0
    stale_leaks: int = 0

    def add(self, other: Counts) -> None:
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)

    def figures(self) -> dict[str, Any]:
        return {
            "precision": ratio(self.true_memories, self.memories),
            "recall": ratio(self.gold_found, self.gold),
            "duplicate_rate": ratio(self.duplicates, self.memories),
            **asdict(self),
        }


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


@dataclass
class DialogScore:
    """One dialog's outcome: totals, per-category counts, and what went wrong."""

    id: str
    lang: str
    split: str | None
    total: Counts
    by_category: dict[str, Counts]
    missed: list[GoldItem] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    pending_confirmed: list[GoldItem] = field(default_factory=list)
    pending_lost: list[GoldItem] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    memories: list[str] = field(default_factory=list)


def score_dialog(
    dialog: Dialog,
    confirmed: Sequence[Mapping[str, Any]],
    unconfirmed: Sequence[Mapping[str, Any]] = (),
) -> DialogScore:
    """Score the confirmed and unconfirmed (pending) memory values left by one dialog."""
    texts = [record_text(v) for v in confirmed]
    held = [record_text(v) for v in unconfirmed]
    links = [[g for g, item in enumerate(dialog.gold) if matches(item, t)] for t in texts]
    plinks = [[p for p, item in enumerate(dialog.pending) if matches(item, t)] for t in texts]
    assigned = max_assignment(links)
    found = {g for gs in links for g in gs}
    cats: dict[str, Counts] = {}

    def cat(name: str) -> Counts:
        return cats.setdefault(name, Counts())

    score = DialogScore(dialog.id, dialog.lang, dialog.split, Counts(), cats)
    for m, value in enumerate(confirmed):
        content = str(value.get("content") or "")
        score.memories.append(content)
        if links[m]:
            c = cat(dialog.gold[links[m][0]].category)
            c.memories += 1
            c.true_memories += 1
            if m not in assigned:
                c.duplicates += 1
                score.duplicates.append(content)
            continue
        if plinks[m]:
            cat(dialog.pending[plinks[m][0]].category).memories += 1
        else:
            cat(attribute_category(str(value.get("attribute") or ""))).memories += 1
        score.extra.append(content)
    for g, item in enumerate(dialog.gold):
        c = cat(item.category)
        c.gold += 1
        if g in found:
            c.gold_found += 1
        else:
            score.missed.append(item)
    for p, item in enumerate(dialog.pending):
        c = cat(item.category)
        c.pending += 1
        if any(p in ps for ps in plinks):
            c.pending_confirmed += 1
            score.pending_confirmed.append(item)
        elif any(matches(item, t) for t in held):
            c.pending_kept += 1
        else:
            c.pending_lost += 1
            score.pending_lost.append(item)
    for c in cats.values():
        score.total.add(c)
    score.leaks = [s for s in dialog.stale if any(norm(s) in t for t in texts)]
    score.total.stale = len(dialog.stale)
    score.total.stale_leaks = len(score.leaks)
    return score


def aggregate(scores: Iterable[DialogScore]) -> dict[str, Any]:
    """Overall figures and the breakdowns by category, language and split."""
    total = Counts()
    by: dict[str, dict[str, Counts]] = {"category": {}, "lang": {}, "split": {}}
    for s in scores:
        total.add(s.total)
        by["lang"].setdefault(s.lang, Counts()).add(s.total)
        if s.split is not None:
            by["split"].setdefault(s.split, Counts()).add(s.total)
        for name, c in s.by_category.items():
            by["category"].setdefault(name, Counts()).add(c)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return {
        "overall": total.figures(),
        "by_category": {
            k: by["category"][k].figures()
            for k in sorted(by["category"], key=lambda k: order.get(k, len(order)))
        },
        "by_lang": {k: v.figures() for k, v in sorted(by["lang"].items())},
        "by_split": {k: v.figures() for k, v in sorted(by["split"].items())},
    }
