"""Merge ``poison_loso.py --dump`` files of runs over disjoint ``--folds`` into one report.

    .venv/bin/python bench/poison_loso_merge.py run1.npz run2.npz [--compare saved.npz]

The leave-one-set-out folds are independent, so on a machine with spare cores they can run
as separate processes (``--folds A B --dump a.npz``, ``--folds C D --dump b.npz``); this
script joins their out-of-set logits (each row scored by one fold) and prints what
one run over all the folds prints: the per-script thresholds (<= 1% fp per (source,
language) cell of ordinary text), the pooled-Chinese variant, and the saved judge's scores
at its own thresholds when the runs had ``--compare``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))
from poison_loso import report, script_thresholds  # noqa: E402

from memagent.memory.poison import assess  # noqa: E402
from memagent.memory.poison_ngram import NgramModel, has_cjk  # noqa: E402


def merged(paths: list[Path]) -> tuple[list[dict[str, Any]], dict[str, NDArray[np.float64]]]:
    """The rows of the first dump and, per score name, the logits of every dump joined. A
    LoCoMo conversation or sales dialog held out by folds of two runs keeps the first run's
    score, as one run keeps its first fold's: give the dumps in fold order."""
    dumps = [np.load(p) for p in paths]
    first = dumps[0]
    for d in dumps[1:]:
        if not np.array_equal(d["text"], first["text"]):
            raise SystemExit("the dumps hold different rows: run them on the same data")
    rows = [
        {"text": str(t), "label": int(y), "lang": str(lang), "group": str(g), "src": str(s)}
        for t, y, lang, g, s in zip(
            first["text"], first["label"], first["lang"], first["group"], first["src"], strict=True
        )
    ]
    scores: dict[str, NDArray[np.float64]] = {}
    for d in dumps:
        for name, z in zip(d["names"], d["z"], strict=True):
            cur = scores.setdefault(str(name), np.full(len(rows), np.nan))
            new = np.isnan(cur) & ~np.isnan(z)
            cur[new] = z[new]
    return rows, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dumps", nargs="+", type=Path)
    parser.add_argument("--compare", type=Path, help="the saved judge the runs compared")
    args = parser.parse_args()
    rows, scores = merged(args.dumps)
    rules = np.array([assess(r["text"]).reason is not None for r in rows])
    for name, z in scores.items():
        if name.startswith("saved"):
            continue
        print(f"option {name}:", flush=True)
        if name.endswith("+rules score"):
            report(rows, z, rules, thr_rows=script_thresholds(rows, z))
            print(f"option {name}, pooled Chinese threshold:", flush=True)
            report(rows, z, rules, thr_rows=script_thresholds(rows, z, pool_cjk=True))
        else:
            report(rows, z, rules)
    if args.compare is not None:
        judge = NgramModel.load(args.compare)
        cjk = np.array([has_cjk(r["text"]) for r in rows])
        thr = np.where(cjk, judge.threshold_cjk or judge.threshold, judge.threshold)
        for name, z in scores.items():
            if name.startswith("saved"):
                print(f"{name} ({args.compare.name}, thresholds {judge.threshold:.2f} / CJK "
                      f"{judge.threshold_cjk}):", flush=True)  # fmt: skip
                report(rows, z, rules, thr_rows=thr)


if __name__ == "__main__":
    main()
