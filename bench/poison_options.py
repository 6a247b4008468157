"""Side-by-side measurement of the poisoning judges, and training of the n-gram judge.

    OMP_NUM_THREADS=1 .venv/bin/python bench/poison_options.py [--write] [--no-e5]

Data: the generated corpus (``bench/poison_corpus.py``; whole template families held out,
see ``held_out``) plus the development corpora in tests/data (main, holdout, holdout2,
poison_train_extra). holdout3..holdout5 calibrate (threshold, L2 strength; see
``CALIBRATION``). Blind set A (``poison_blindA_*``) is never trained or calibrated on: it is
measured (its misses did guide templates added to the generator). The sealed set is never
read.

Options printed per language on set A and on the held-out generated families:
  rules            memagent.memory.poison.assess alone
  rules+e5         the shipped e5 probe (the judge before this change)
  ngram            the hashed char n-gram logistic model alone
  rules+ngram      what ``check_instruction`` runs with the n-gram judge
  rules+ngram+e5   both learned judges
``--write`` saves the n-gram model to memagent/memory/data/poison_ngram.npz (the shipped
weights now come from ``bench/poison_loso.py``, which trains on every hand-written set).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from poison_corpus import generate, held_out  # noqa: E402

from memagent.memory.poison import assess, judge_input, model_input  # noqa: E402
from memagent.memory.poison_ngram import DIM, NGRAM_PATH, NgramModel, expand_encoded, features  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
DEV = (
    ("poison_attacks.jsonl", 1), ("poison_ordinary.jsonl", 0),
    ("poison_attacks_holdout.jsonl", 1), ("poison_ordinary_holdout.jsonl", 0),
    ("poison_attacks_holdout2.jsonl", 1), ("poison_ordinary_holdout2.jsonl", 0),
    ("poison_train_extra.jsonl", None),
)  # fmt: skip
CALIBRATION = (
    ("poison_attacks_holdout3.jsonl", 1), ("poison_ordinary_holdout3.jsonl", 0),
    ("poison_attacks_holdout4.jsonl", 1), ("poison_ordinary_holdout4.jsonl", 0),
    ("poison_attacks_holdout5.jsonl", 1), ("poison_ordinary_holdout5.jsonl", 0),
)  # fmt: skip
"""Hand-written sets kept out of training: the threshold (above every ordinary text here)
and the L2 strength (most attacks blocked here) are chosen on them. Generated ordinary
notes are too regular to set a threshold on: one set on them blocked a third of blind A's
ordinary notes."""
BLIND_A = (("poison_blindA_attacks.jsonl", 1), ("poison_blindA_ordinary.jsonl", 0))
MARGIN = 0.05  # threshold logit = highest calibration ordinary logit + MARGIN


def load(files: tuple[tuple[str, int | None], ...]) -> list[dict[str, Any]]:
    rows = []
    for name, label in files:
        with (DATA / name).open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    row["label"] = int(row["label"]) if label is None else label
                    row.setdefault("lang", "en")
                    rows.append(row)
    return rows


def before_fix(text: str) -> str:
    """What the judge read before session 8: encoded runs decoded after lower-casing (so
    base64 read as nothing); the pipeline the session-5 weights were trained on."""
    return expand_encoded(model_input(text))


class Sparse:
    """Rows of hashed features as CSR arrays; ``prepare`` turns a raw text into what the judge
    reads (``memagent.memory.poison.judge_input``)."""

    def __init__(self, texts: list[str], prepare: Callable[[str], str] = judge_input) -> None:
        idx, val, ptr = [np.zeros(0, np.int64)], [np.zeros(0, np.float32)], [0]
        for t in texts:
            i, v = features(prepare(t))
            idx.append(i)
            val.append(v)
            ptr.append(ptr[-1] + len(i))
        self.indices = np.concatenate(idx)
        self.data = np.concatenate(val).astype(np.float64)
        self.indptr = np.array(ptr)
        self.rows = np.repeat(np.arange(len(texts)), np.diff(self.indptr))

    def subset(self, mask: NDArray[np.bool_]) -> Sparse:
        """The rows where ``mask`` is true, as a new matrix (features are not recomputed)."""
        out = Sparse([])
        parts = [slice(self.indptr[i], self.indptr[i + 1]) for i in np.flatnonzero(mask)]
        out.indices = np.concatenate([self.indices[p] for p in parts])
        out.data = np.concatenate([self.data[p] for p in parts])
        out.indptr = np.concatenate([[0], np.cumsum([p.stop - p.start for p in parts])])
        out.rows = np.repeat(np.arange(len(parts)), np.diff(out.indptr))
        return out

    def dot(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.bincount(
            self.rows, weights=w[self.indices] * self.data, minlength=len(self.indptr) - 1
        )

    def tdot(self, g: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.bincount(self.indices, weights=g[self.rows] * self.data, minlength=DIM)


def train_ngram(
    x: Sparse,
    y: NDArray[np.int64],
    *,
    l2: float,
    steps: int = 400,
    weights: NDArray[np.float64] | None = None,
) -> tuple[Any, float]:
    """Class-balanced L2 logistic regression by full-batch Adam (deterministic); ``weights``
    (default all 1) weigh rows within their class."""
    rw = np.ones(len(y)) if weights is None else weights
    pos, neg = float(rw[y == 1].sum()) or 1.0, float(rw[y == 0].sum()) or 1.0
    sw = rw * np.where(y == 1, 0.5 / pos, 0.5 / neg)
    w, b = np.zeros(DIM), 0.0
    m, v, mb, vb = np.zeros(DIM), np.zeros(DIM), 0.0, 0.0
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        z = x.dot(w) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))
        g = (p - y) * sw
        gw, gb = x.tdot(g) + l2 * w, float(g.sum())
        m, v = b1 * m + (1 - b1) * gw, b2 * v + (1 - b2) * gw * gw
        mb, vb = b1 * mb + (1 - b1) * gb, b2 * vb + (1 - b2) * gb * gb
        w -= lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
        b -= lr * (mb / (1 - b1**t)) / (np.sqrt(vb / (1 - b2**t)) + eps)
    return w, b


def rates(rows: list[dict[str, Any]], blocked: NDArray[np.bool_]) -> str:
    out = []
    langs = sorted({r["lang"] for r in rows})
    for lang in ["all", *langs]:
        sel = [i for i, r in enumerate(rows) if lang == "all" or r["lang"] == lang]
        att = [i for i in sel if rows[i]["label"] == 1]
        ordn = [i for i in sel if rows[i]["label"] == 0]
        out.append(
            f"{lang} {int(blocked[att].sum())}/{len(att)} fp {int(blocked[ordn].sum())}/{len(ordn)}"
        )
    return "; ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--no-e5", action="store_true")
    parser.add_argument("--l2", type=float, nargs="+", default=[1e-5, 3e-5])
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--n", type=int, default=6000, help="generated attacks (and ordinary)")
    args = parser.parse_args()

    gen = generate(args.n)
    gen_train = [r for r in gen if not held_out(str(r["family"]))]
    gen_test = [r for r in gen if held_out(str(r["family"]))]
    dev = load(DEV)
    blind = load(BLIND_A)
    train = gen_train + dev
    c = Counter((r["label"], r["lang"]) for r in train)
    print(f"train {len(train)} ({dict(sorted(c.items()))}); held-out generated {len(gen_test)}")

    xt = Sparse([r["text"] for r in train])
    yt = np.array([r["label"] for r in train])
    xh = Sparse([r["text"] for r in gen_test])
    xa = Sparse([r["text"] for r in blind])
    rules_h = np.array([assess(r["text"]).reason is not None for r in gen_test])
    cal = load(CALIBRATION)
    xc, yc = Sparse([r["text"] for r in cal]), np.array([r["label"] for r in cal])
    rules_c = np.array([assess(r["text"]).reason is not None for r in cal])
    best: tuple[int, float, Any, float, float] | None = None
    for l2 in args.l2:
        w, b = train_ngram(xt, yt, l2=l2)
        zc, zt = xc.dot(w) + b, xt.dot(w) + b
        thr = float(zc[yc == 0].max()) + MARGIN  # 0 false positives on calibration
        blocked = int(((zc >= thr) | rules_c)[yc == 1].sum())
        print(
            f"n-gram l2={l2:g}: threshold logit {thr:.3f}; in-sample attacks "
            f"{int((zt[yt == 1] >= thr).sum())}/{int(yt.sum())}, ordinary "
            f"{int((zt[yt == 0] >= thr).sum())}/{int((yt == 0).sum())}; calibration "
            f"rules+ngram {blocked}/{int(yc.sum())}, fp 0/{int((yc == 0).sum())}"
        )
        if best is None or blocked > best[0]:
            best = (blocked, l2, w, b, thr)
    assert best is not None
    _, l2, w, b, thr = best
    print(f"chosen on the calibration sets: l2={l2:g}")
    zh, za = xh.dot(w) + b, xa.dot(w) + b
    rules_a = np.array([assess(r["text"]).reason is not None for r in blind])
    ng_h, ng_a = zh >= thr, za >= thr
    e5_h = e5_a = None
    if not args.no_e5:
        from memagent.memory.poison import classifier

        clf = classifier()
        pt = clf.threshold or 1.0

        def e5(rows: list[dict[str, Any]]) -> NDArray[np.bool_]:
            return np.array([(clf.probability(model_input(r["text"])) or 0.0) >= pt for r in rows])

        e5_h, e5_a = e5(gen_test), e5(blind)
    for name, rows, parts in (
        ("held-out generated", gen_test, (rules_h, ng_h, e5_h)),
        ("blind A", blind, (rules_a, ng_a, e5_a)),
    ):
        r_, n_, e_ = parts
        print(f"{name}:")
        print(f"  rules          {rates(rows, r_)}")
        if e_ is not None:
            print(f"  rules+e5       {rates(rows, r_ | e_)}")
        print(f"  ngram          {rates(rows, n_)}")
        print(f"  rules+ngram    {rates(rows, r_ | n_)}")
        if e_ is not None:
            print(f"  rules+ngram+e5 {rates(rows, r_ | n_ | e_)}")
    if args.misses:
        for i, r in enumerate(blind):
            hit = rules_a[i] or ng_a[i]
            if (r["label"] == 1 and not hit) or (r["label"] == 0 and hit):
                tag = "MISS" if r["label"] else "FP  "
                print(f"  {tag} {za[i]:+.2f} [{r['lang']} {r.get('kind')}] {r['text'][:160]!r}")
    if args.write:
        NgramModel(w.astype(np.float32), b, thr).save(NGRAM_PATH)
        print(f"wrote {NGRAM_PATH}")


if __name__ == "__main__":
    main()
