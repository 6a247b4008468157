"""Recall's search step: candidates from the store, feedback expansion, entity focus.

Split out of ``memagent.nodes.recall``; a hit is ``(item, relevance, dense, keyword)``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from langgraph.store.base import BaseStore

from memagent.memory.scoring import ScoreWeights
from memagent.nodes.recall_expand import (
    RecallTuning,
    feedback_terms,
    focus,
    mentioned,
    named_entities,
    without_names,
    without_placeholders,
)
from memagent.nodes.recall_items import Origin, RecalledItem, RecallResult, score_candidate
from memagent.stores.protocols import MemoryStoreExtensions

SearchMode = Literal["hybrid", "dense", "keyword"]
NAMES_OUT_MIN_TERMS = 2
"""Searchable terms (idf > 0) the query must keep without the names for the names to go:
"Do they still use Salesforce?" with an entity ``salesforce`` would otherwise be searched
as "Do they still use?" (the focus prefers that entity's records, but only among what
the search found)."""


Hit = tuple[Any, float, float | None, float | None]
"""(item, relevance, dense score, keyword score) of one candidate."""


def _search(
    store: BaseStore,
    ns: tuple[str, ...],
    query: str,
    mode: SearchMode,
    result: RecallResult,
    limit: int,
) -> list[Hit]:
    """Candidates by the store's best search."""
    if isinstance(store, MemoryStoreExtensions):
        hits = store.search_scored(
            ns, query=query, mode=mode, filter={"status": "active"}, limit=limit
        )
        return [(h.item, float(h.relevance), h.dense, h.keyword) for h in hits]
    if mode == "keyword":
        result.notes.append("store has no keyword search; used its default search")
    items = store.search(ns, query=query, filter={"status": "active"}, limit=limit)
    return [(i, max(0.0, float(i.score or 0.0)), i.score, None) for i in items]


def _content(item: Any) -> str:
    value = item.value if isinstance(item.value, dict) else {}
    text = value.get("content") or value.get("summary") or ""
    return text if isinstance(text, str) else ""


def _expand(
    store: MemoryStoreExtensions,
    ns: tuple[str, ...],
    query: str,
    hits: list[Hit],
    tuning: RecallTuning,
    result: RecallResult,
) -> list[Hit]:
    """Feedback expansion (``memagent.nodes.recall_expand``): one keyword search with the
    query plus the rarest terms of the top hits, added at ``feedback_weight``. Needs a
    store with keyword search and ``keyword_idf`` (the caller checks)."""
    if not hits:
        return hits
    keyword_idf, search_scored = store.keyword_idf, store.search_scored
    top = sorted(hits, key=lambda h: -h[1])[: tuning.feedback_docs]
    top_terms = [keyword_idf(ns, without_placeholders(_content(h[0]))) for h in top]
    terms = feedback_terms(keyword_idf(ns, query), top_terms, tuning.feedback_terms)
    if not terms:
        return hits
    expanded = f"{query} {' '.join(terms)}"
    result.queries.append(expanded)
    extra = search_scored(
        ns, query=expanded, mode="keyword", filter={"status": "active"}, limit=tuning.candidates
    )
    w = tuning.feedback_weight
    merged: dict[str, Hit] = {h[0].key: h for h in hits}
    for h in extra:
        item, rel, dense, kw = merged.get(h.item.key, (h.item, 0.0, None, h.keyword))
        merged[h.item.key] = (item, rel + w * float(h.relevance), dense, kw)
    # Rescale so the best candidate keeps the first search's top relevance: the order is
    # the fused one, the scale stays comparable with the score threshold.
    top_before = max(h[1] for h in hits)
    top_after = max(h[1] for h in merged.values())
    scale = top_before / top_after if top_after > 0 else 1.0
    return [(item, rel * scale, dense, kw) for item, rel, dense, kw in merged.values()]


def _search_text(
    store: BaseStore,
    ns: tuple[str, ...],
    query: str,
    mode: SearchMode,
    tuning: RecallTuning,
    result: RecallResult,
) -> tuple[str, list[Hit] | None]:
    """The text to search for ``query``: without the names of the entities it names
    (``recall_expand.without_names``), which the entity focus handles. The entities are
    read from a keyword-only search (no embedding; a name is a rare word, so the records
    about that person are among its candidates). ``query`` itself when the store has no
    keyword search, the mode is dense, nothing is named, or fewer than
    ``NAMES_OUT_MIN_TERMS`` searchable terms would be left. Also returns that keyword
    search's hits when they are the search's own (keyword mode, ``query`` unchanged),
    so it is not run twice; else None."""
    if not tuning.names_out or mode == "dense" or not isinstance(store, MemoryStoreExtensions):
        return query, None
    found = store.search_scored(
        ns, query=query, mode="keyword", filter={"status": "active"}, limit=tuning.candidates
    )
    probe: list[Hit] = [(h.item, float(h.relevance), h.dense, h.keyword) for h in found]
    same = probe if mode == "keyword" else None
    named = mentioned(
        query, (h[0].value.get("entity") for h in probe if isinstance(h[0].value, dict))
    )
    if not named:
        return query, same
    text = without_names(query, named)
    left = sum(v > 0 for v in store.keyword_idf(ns, text).values())
    if text == query or left < NAMES_OUT_MIN_TERMS:
        return query, same
    result.notes.append(f"searched without names: {', '.join(sorted(named))}")
    return text, None


def _focus(query: str, hits: list[Hit], tuning: RecallTuning, result: RecallResult) -> list[Hit]:
    """Entity focus (``memagent.nodes.recall_expand``)."""
    if tuning.entity_focus >= 1.0 or not hits:
        return hits
    entity_of = {
        h[0].key: (h[0].value.get("entity") if isinstance(h[0].value, dict) else None) for h in hits
    }
    named = named_entities(query, entity_of.values())
    if not named:
        return hits
    result.notes.append(f"entity focus: {', '.join(sorted(named))}")
    rel = focus({h[0].key: h[1] for h in hits}, entity_of, named, tuning.entity_focus)
    return [(item, rel[item.key], dense, kw) for item, _, dense, kw in hits]


RECALLED_KINDS = ("facts", "episodes")


def _origin(item: Any) -> Origin:
    return "episode" if tuple(item.namespace)[-1:] == ("episodes",) else "search"


def _recallable(hits: list[Hit]) -> list[Hit]:
    """Facts and episodes only (a customer prefix also holds profiles and transcripts)."""
    return [h for h in hits if tuple(h[0].namespace)[-1:] in {(k,) for k in RECALLED_KINDS}]


def _scored(
    hits: list[Hit], origin: Origin, weights: ScoreWeights, now: datetime
) -> list[RecalledItem]:
    out = []
    for item, relevance, dense, keyword in hits:
        scored = score_candidate(
            item.value,
            item.key,
            relevance=relevance,
            origin=origin,
            weights=weights,
            now=now,
            dense=dense,
            keyword=keyword,
        )
        if scored:
            out.append(scored)
    return out
