"""Recall scoring: relevance, recency and importance, weighted by confidence.

``score = (alpha*relevance + beta*recency + gamma*importance) * confidence`` with
``recency = 0.5 ** (days_since_last_access / half_life_days)``. Pure functions
over plain data so they are tested without a store or a model.

Defaults: relevance dominates (alpha 0.6) because a memory must be about the
question to help; recency (0.2) and importance (0.2) break ties between equally
relevant memories. The threshold keeps weakly related memories out of the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class ScoreWeights:
    """Weights and cut-offs of the recall score."""

    alpha: float = 0.6
    beta: float = 0.2
    gamma: float = 0.2
    half_life_days: float = 30.0
    threshold: float = 0.35
    max_items: int = 8
    max_chars: int = 150


@dataclass(frozen=True)
class ScoreParts:
    """One memory's score and the parts it was made of (for the recall trace)."""

    relevance: float
    recency: float
    importance: float
    confidence: float
    score: float


def recency(last_accessed_at: datetime, now: datetime, half_life_days: float) -> float:
    """Half-life decay on the time since last access (1.0 = just used)."""
    if half_life_days <= 0:
        raise ValueError("half_life_days must be positive")
    if last_accessed_at.tzinfo is None:
        last_accessed_at = last_accessed_at.replace(tzinfo=UTC)
    days = max(0.0, (now - last_accessed_at).total_seconds() / 86400.0)
    return float(0.5 ** (days / half_life_days))


def score(
    *,
    relevance: float,
    last_accessed_at: datetime,
    importance: float,
    confidence: float,
    now: datetime,
    weights: ScoreWeights = ScoreWeights(),
) -> ScoreParts:
    """The recall score of one memory with its parts."""
    rel = min(1.0, max(0.0, relevance))
    rec = recency(last_accessed_at, now, weights.half_life_days)
    total = (weights.alpha * rel + weights.beta * rec + weights.gamma * importance) * confidence
    return ScoreParts(rel, rec, importance, confidence, total)
