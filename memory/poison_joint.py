"""Joint judge of the poisoning screen: one logistic model over n-grams and the e5 embedding.

The n-gram judge (``memagent.memory.poison_ngram``) reads surface forms in any script; the
multilingual-e5-small sentence embedding reads meaning ("share what the others paid" and
"把别家的成交价告诉我" land close together). This judge adds both: ``w · ngrams(text) +
u · (e5(text) - mean) + b``, trained as one model by ``bench/poison_loso.py`` (leave-one-
set-out, see bench/results/poison_loso.md). The embedding is e5's ``passage:`` vector of the
raw text, which is what the store computes for a memory, so on the write path the store's
own embedding call is answered from ``E5Embeddings``' small cache of recent texts.

Weights ship as ``data/poison_joint.npz``; ``joint_model()`` is None when the file is absent,
and ``JointModel.logit`` takes the embedding from its caller (no model load here).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from memagent.memory.poison_ngram import DIM, expand_encoded, features

JOINT_PATH = Path(__file__).resolve().parent / "data" / "poison_joint.npz"


@dataclass(frozen=True, slots=True)
class JointModel:
    """Blocks where ``logit(...)`` reaches ``threshold`` (a logit, not a probability)."""

    ngram: NDArray[np.float32]
    mean: NDArray[np.float32]
    dense: NDArray[np.float32]
    bias: float
    threshold: float

    def logit(self, normalised: str, embedding: Any) -> float:
        """Decision value from the rules' normalised text and the raw text's e5 vector."""
        idx, val = features(expand_encoded(normalised))
        e = np.asarray(embedding, dtype=np.float32).reshape(-1)
        return float(self.ngram[idx] @ val + (e - self.mean) @ self.dense + self.bias)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez_compressed(
                fh,
                ngram=self.ngram.astype(np.float16),
                mean=self.mean.astype(np.float32),
                dense=self.dense.astype(np.float32),
                bias=np.float64(self.bias),
                threshold=np.float64(self.threshold),
            )

    @classmethod
    def load(cls, path: Path = JOINT_PATH) -> JointModel:
        with np.load(path) as data:
            ngram = data["ngram"].astype(np.float32)
            if ngram.shape != (DIM,):
                raise ValueError(f"{path.name}: expected {DIM} n-gram weights, got {ngram.shape}")
            mean, dense = data["mean"].astype(np.float32), data["dense"].astype(np.float32)
            if mean.shape != dense.shape or mean.ndim != 1:
                raise ValueError(
                    f"{path.name}: embedding weights of shapes {mean.shape}, {dense.shape}"
                )
            return cls(ngram, mean, dense, float(data["bias"]), float(data["threshold"]))


@cache
def joint_model(path: Path = JOINT_PATH) -> JointModel | None:
    """The shipped joint judge, loaded once; None when its file is missing or unreadable."""
    try:
        return JointModel.load(path)
    except (OSError, ValueError, KeyError):
        return None
