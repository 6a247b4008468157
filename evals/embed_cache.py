"""An embedder wrapper that keeps vectors on disk by text, so evaluation re-runs skip the model."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings


class CachedEmbeddings(Embeddings):
    """An embedder that remembers vectors on disk by text, so re-runs skip the model.

    Results are identical to the wrapped embedder's; only the time to re-ingest changes.
    """

    def __init__(self, inner: Embeddings, directory: str | Path) -> None:
        self.inner = inner
        self.path = Path(directory) / f"{type(inner).__name__}.npz"
        self._vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                self._vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self._dirty = False

    @staticmethod
    def _key(text: str, kind: str) -> str:
        return kind + hashlib.sha1(text.encode("utf-8")).hexdigest()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = list(dict.fromkeys(t for t in texts if self._key(t, "p") not in self._vectors))
        if missing:
            for t, v in zip(missing, self.inner.embed_documents(missing), strict=True):
                self._vectors[self._key(t, "p")] = np.asarray(v, dtype=np.float32)
            self._dirty = True
        return [self._vectors[self._key(t, "p")].tolist() for t in texts]

    @property
    def score_floor(self) -> float | None:
        """The wrapped embedder's fusion floor, so the store fuses exactly as without cache."""
        return getattr(self.inner, "score_floor", None)

    def embed_query(self, text: str) -> list[float]:
        # Queries are never cached: their embedding is part of the measured search latency.
        return self.inner.embed_query(text)

    def save(self) -> None:
        if self._dirty:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp.npz")
            keys = list(self._vectors)
            np.savez(tmp, keys=np.array(keys), vectors=np.stack([self._vectors[k] for k in keys]))
            tmp.replace(self.path)
            self._dirty = False
