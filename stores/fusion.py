"""Fusing dense and keyword (BM25) candidates into one relevance in [0, 1].

Two methods, chosen by ``FusionConfig.method``:

- ``"weighted"`` (default): a convex combination of normalised scores,
  ``(wd * dense_n + wk * keyword_n) / (wd + wk)``. ``dense_n`` is the cosine
  similarity rescaled from ``[dense_floor, 1]`` to ``[0, 1]`` and is *absolute*;
  ``keyword_n`` is the BM25 score divided by the best BM25 score of the query
  (``"max"``) or saturated as ``s / (s + keyword_saturation)``.
- ``"rrf"``: reciprocal rank fusion, ``sum(w / (k + rank))``, divided by its
  maximum ``sum(w) / (k + 1)`` so an item ranked first by both sides gets 1.0.

Why weighted is the default: recall drops memories below a relevance threshold
(DESIGN.md, "below a threshold nothing is injected"). RRF only sees ranks, so the
best candidate of an unrelated query still scores near 1 and no threshold can
tell it apart; the convex combination keeps the absolute cosine, so an unrelated
query stays low. RRF is kept for callers that want rank-only robustness (no
score calibration across embedders).

Defaults (dense 0.7, keyword 0.3, ``"max"``, 50 candidates a side) are the best of
the LoCoMo dev-split sweep (bench/locomo_experiments.py, e5 with keyword-only context:
evidence recall@10 0.768; 0.6/0.4 gave 0.764, 0.8/0.2 0.766; candidate depths of
20-200 changed nothing in the variants tried). The floor belongs
to the embedder, not to the fusion: e5's cosine between unrelated texts already
sits near 0.7 (its scores span ~0.71-0.90), so without a floor its side is a flat
band that barely moves the ranking. ``dense_floor=None`` (the default) means "the
embedder's recommended floor": an embeddings object may carry ``score_floor``
(e5: 0.7), read by the store when it opens (``HybridConfig.for_embeddings``);
embedders without one (hash, OpenAI, MiniLM) get 0. Weights and depths are
constructor options so the retrieval evaluation can tune them without code edits.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeVar

from memagent.stores.tokenize import DEFAULT_TOKENIZER, TokenizerConfig

SearchMode = Literal["hybrid", "dense", "keyword"]
ScoreKind = Literal["relevance", "similarity"]


@dataclass(frozen=True)
class FusionConfig:
    """How dense and keyword scores are combined (see module docstring)."""

    method: Literal["weighted", "rrf"] = "weighted"
    dense_weight: float = 0.7
    keyword_weight: float = 0.3
    rrf_k: int = 60
    dense_floor: float | None = None
    keyword_norm: Literal["max", "saturate"] = "max"
    keyword_saturation: float = 5.0

    def __post_init__(self) -> None:
        if self.method not in ("weighted", "rrf"):
            raise ValueError(f"unknown fusion method {self.method!r}")
        if self.dense_weight < 0 or self.keyword_weight < 0:
            raise ValueError("fusion weights must be >= 0")
        if self.dense_weight + self.keyword_weight <= 0:
            raise ValueError("at least one fusion weight must be > 0")
        if self.dense_floor is not None and not 0.0 <= self.dense_floor < 1.0:
            raise ValueError("dense_floor must be None (the embedder's) or in [0, 1)")
        if self.rrf_k < 0:
            raise ValueError("rrf_k must be >= 0")
        if self.keyword_norm not in ("max", "saturate"):
            raise ValueError(f"unknown keyword_norm {self.keyword_norm!r}")
        if self.keyword_saturation <= 0:
            raise ValueError("keyword_saturation must be > 0")


@dataclass(frozen=True)
class HybridConfig:
    """Hybrid search options of a store: fusion, candidate depths, tokenizer, mode.

    ``dense_candidates`` / ``keyword_candidates`` are how many top hits each side
    contributes before fusion (at least ``offset + limit`` are always fetched).
    ``keyword_only_fields`` are value paths whose text joins the item's BM25 text but
    is never embedded (see ``QdrantStore``): a memory's surrounding context.

    ``score`` is what ``SearchItem.score`` holds after a search with a query:
    ``"relevance"`` (default) the fused relevance in [0, 1]; ``"similarity"`` the
    vector similarity LangGraph's stores return (cosine, inner product or negated L2
    distance, per the index's ``distance_type``), for code that thresholds scores as it
    would on ``InMemoryStore``. The ranking is the same either way (by fused relevance,
    so similarity scores need not descend); ``default_mode="dense"`` ranks by
    similarity too. Keyword-mode searches have no similarity and keep the relevance.
    """

    fusion: FusionConfig = field(default_factory=FusionConfig)
    tokenizer: TokenizerConfig = DEFAULT_TOKENIZER
    dense_candidates: int = 50
    keyword_candidates: int = 50
    default_mode: SearchMode = "hybrid"
    keyword_cache_size: int = 1024
    keyword_only_fields: tuple[str, ...] = ("context",)
    score: ScoreKind = "relevance"

    def for_embeddings(self, score_floor: float) -> HybridConfig:
        """This config with an unset ``dense_floor`` replaced by the embedder's floor."""
        if self.fusion.dense_floor is not None:
            return self
        return replace(self, fusion=replace(self.fusion, dense_floor=score_floor))

    def __post_init__(self) -> None:
        if isinstance(self.keyword_only_fields, str) or not all(
            isinstance(f, str) and f for f in self.keyword_only_fields
        ):
            raise ValueError("keyword_only_fields must be a tuple of non-empty value paths")
        if "$" in self.keyword_only_fields:
            raise ValueError("keyword_only_fields cannot hold '$' (the whole value)")
        if self.dense_candidates < 1 or self.keyword_candidates < 1:
            raise ValueError("candidate depths must be >= 1")
        if self.default_mode not in ("hybrid", "dense", "keyword"):
            raise ValueError(f"unknown search mode {self.default_mode!r}")
        if self.keyword_cache_size < 1:
            raise ValueError("keyword_cache_size must be >= 1")
        if self.score not in ("relevance", "similarity"):
            raise ValueError(f"unknown score {self.score!r}; expected 'relevance' or 'similarity'")


K = TypeVar("K", bound=Hashable)
"""A candidate's id (the store's point ids are strings)."""


@dataclass(frozen=True)
class Fused:
    """One fused candidate: its id, fused relevance and the raw side scores."""

    id: Hashable
    relevance: float
    dense: float | None
    keyword: float | None


def normalize_dense(score: float, floor: float = 0.0) -> float:
    """Cosine similarity rescaled from ``[floor, 1]`` to ``[0, 1]`` (clamped)."""
    return min(1.0, max(0.0, (score - floor) / (1.0 - floor)))


def normalize_keyword(
    scores: Mapping[K, float], how: str = "max", saturation: float = 5.0
) -> dict[K, float]:
    """BM25 scores mapped to ``[0, 1]``; non-positive scores map to 0."""
    if how == "saturate":
        return {k: (s / (s + saturation) if s > 0 else 0.0) for k, s in scores.items()}
    top = max((s for s in scores.values() if s > 0), default=0.0)
    if top <= 0:
        return dict.fromkeys(scores, 0.0)
    return {k: (s / top if s > 0 else 0.0) for k, s in scores.items()}


def rrf_scores(
    rankings: Sequence[Sequence[Hashable]], weights: Sequence[float], k: int = 60
) -> dict[Hashable, float]:
    """Weighted reciprocal rank fusion, normalised so rank 1 everywhere = 1.0."""
    total = sum(weights)
    if total <= 0:
        raise ValueError("RRF needs a positive total weight")
    out: dict[Hashable, float] = {}
    for ranking, w in zip(rankings, weights, strict=True):
        for rank, key in enumerate(ranking, start=1):
            out[key] = out.get(key, 0.0) + w / (k + rank)
    top = total / (k + 1)
    return {key: v / top for key, v in out.items()}


def fuse(
    dense: Mapping[K, float],
    keyword: Mapping[K, float],
    config: FusionConfig = FusionConfig(),
    *,
    use_dense: bool = True,
    use_keyword: bool = True,
) -> list[Fused]:
    """Fuse two candidate maps (id -> raw score) into a ranking, best first.

    A side that is switched off (``use_*=False``) contributes nothing and its
    weight is dropped, so single-mode search also yields a relevance in [0, 1].
    Ties keep dense order first, then keyword order (stable, deterministic).
    """
    wd = config.dense_weight if use_dense else 0.0
    wk = config.keyword_weight if use_keyword else 0.0
    if wd + wk <= 0:  # a mode whose only side has weight 0: rank by that side alone
        wd, wk = float(use_dense), float(use_keyword)
    order = list(dict.fromkeys([*dense.keys(), *keyword.keys()]))
    if config.method == "rrf":
        d_rank = sorted(dense, key=lambda x: -dense[x]) if use_dense else []
        k_rank = [x for x in sorted(keyword, key=lambda x: -keyword[x]) if keyword[x] > 0]
        rel = rrf_scores([d_rank, k_rank if use_keyword else []], [wd, wk], config.rrf_k)
    else:
        kn = normalize_keyword(keyword, config.keyword_norm, config.keyword_saturation)
        floor = config.dense_floor or 0.0
        rel = {}
        for key in order:
            d = normalize_dense(dense[key], floor) if key in dense else 0.0
            rel[key] = (wd * d + wk * kn.get(key, 0.0)) / (wd + wk)
    position = {key: i for i, key in enumerate(order)}
    ranked = sorted(order, key=lambda x: (-rel.get(x, 0.0), position[x]))
    return [
        Fused(
            id=key,
            relevance=min(1.0, max(0.0, rel.get(key, 0.0))),
            dense=dense.get(key),
            keyword=keyword.get(key),
        )
        for key in ranked
    ]
