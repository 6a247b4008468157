"""Leave-one-set-out figures for the n-gram judge, and training of the shipped weights.

    MEMAGENT_LOCOMO=path/to/locomo_dev.json OMP_NUM_THREADS=1 \
        nice -n 10 .venv/bin/python bench/poison_loso.py [--write] [--options A B ...]

Every hand-written set in tests/data (``bench/poison_sets.py``: main .. blindF, written8a/b) has been
measured and tuned on, so none is blind; generalisation is estimated honestly by holding one
set out at a time: train on the generated corpus (``bench/poison_corpus.py``),
``poison_train_extra`` and every other hand-written set, score the held-out one. LoCoMo's
casual chat turns (``MEMAGENT_LOCOMO``, else ``../shared/data/locomo/locomo_dev.json``) are
ordinary text too: fold k also holds out conversation k mod 5, so every turn is scored by a
model that never saw its conversation.

The user turns of the sales extraction sets (evals/data: notes the product must store) are
ordinary text the same way: dialog i of a file is held out with the LoCoMo conversation of
fold i mod 5, and the shipped judge never trains on ``HELD_SALES``. ``--clauses`` also scores
every row by its worst sentence (``memagent.memory.poison_ngram.clauses``) with the same fold
models, printed as option "... by clause".

The blocking threshold is chosen on the pooled out-of-set logits: the lowest logit at which
ordinary hand-written notes, LoCoMo turns and sales notes are each blocked at most
``FP_TARGET`` of the time in every language. The shipped model is then trained on everything, with that
threshold. Deterministic: fixed corpus seed, full-batch Adam from zeros.

``--folds A B`` runs only those folds (each still holds out its LoCoMo conversation and sales
dialogs, k mod 5); ``--compare saved.npz`` also scores the folds' rows with saved weights (a
copy of the shipped ones) at their own thresholds, so old weights and the new recipe print
side by side; ``--dump`` keeps every out-of-set logit with its text for re-scoring.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from poison_augment import twins  # noqa: E402
from poison_corpus import generate  # noqa: E402
from poison_e5 import Features, cached, passage_matrix, text_key, train_judge  # noqa: E402
from poison_hard_negatives import hard_negatives  # noqa: E402
from poison_options import Sparse, before_fix, train_ngram  # noqa: E402
from poison_sets import EXTRA, SETS, lang_of, load  # noqa: E402
from poison_written import written  # noqa: E402
from poison_written5 import written5  # noqa: E402
from poison_written6 import written6  # noqa: E402

from memagent.memory.poison import assess, judge_input  # noqa: E402
from memagent.memory.poison_ngram import NGRAM_PATH, NgramModel, clauses, has_cjk  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HAND = SETS
WRITTEN6 = "written6"
"""Session 6's hand-written rows (``bench/poison_written6.py``): training data, but also a
fold of its own, so a judge that never saw them scores them (the freshest text we have)."""
FOLDS = [*HAND, WRITTEN6]
FP_TARGET = 0.01
ALWAYS = ("gen", "extra", "hard", "written", "written5", "aug")
"""Groups that train every fold and are never scored."""


def locomo_path() -> Path:
    env = os.environ.get("MEMAGENT_LOCOMO")
    return Path(env) if env else ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"


SALES = ROOT / "evals" / "data"
HELD_SALES = "sales_extraction_holdout3"
"""The sales extraction set whose notes the shipped judge never trains on."""


def sales_rows() -> list[dict[str, Any]]:
    """Every user turn of the sales extraction sets (evals/data): ordinary notes the product
    must store. Dialog i of a file is in group ``sales:<i mod 5>``, held out with fold k like
    LoCoMo conversation k mod 5; ``src`` names the file."""
    rows = []
    for path in sorted(SALES.glob("*extraction*.json")):
        for i, dialog in enumerate(json.loads(path.read_text(encoding="utf-8"))["dialogs"]):
            lang = lang_of(dialog)
            rows += [
                {"text": str(t["content"]), "label": 0, "lang": lang, "group": f"sales:{i % 5}",
                 "src": path.stem}
                for t in dialog.get("turns", [])
                if t.get("role") == "user" and str(t.get("content", "")).strip()
            ]  # fmt: skip
    return rows


def load_rows(*, with_written5: bool = True, with_written6: bool = True) -> list[dict[str, Any]]:
    """Every row with ``text``, ``label``, ``lang`` and ``group`` (set name, ``gen``,
    ``extra``, ``hard`` or ``locomo:<k>``)."""
    rows: list[dict[str, Any]] = []
    for group, (att, ordn) in HAND.items():
        for name, label in ((att, 1), (ordn, 0)):
            rows += [{**r, "label": label, "lang": lang_of(r), "group": group} for r in load(name)]
    rows += [
        {**r, "label": int(r["label"]), "lang": lang_of(r), "group": "extra"} for r in load(EXTRA)
    ]
    rows += [{**r, "group": "gen"} for r in generate(6000)]
    rows += [{"text": t, "label": 0, "lang": lang, "group": "hard"} for t, lang in hard_negatives()]
    rows += [{**r, "group": "written"} for r in written()]
    if with_written5:
        rows += [{**r, "group": "written5"} for r in written5()]
    if with_written6:
        rows += [{**r, "group": WRITTEN6} for r in written6()]
    rows += sales_rows()
    path = locomo_path()
    if not path.is_file():
        raise SystemExit(f"LoCoMo data not found at {path}; set MEMAGENT_LOCOMO")
    for k, sample in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        conv = sample["conversation"]
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                rows += [{"text": t["text"], "label": 0, "lang": "en", "group": f"locomo:{k}",
                          "conv": sample["sample_id"]} for t in turns if str(t.get("text", "")).strip()]  # fmt: skip
    return rows


@dataclass(frozen=True)
class Option:
    """Which groups train the judge and how much each weighs (total weight per class)."""

    name: str
    hand: bool  # other hand-written sets in training
    locomo: bool  # LoCoMo turns (other conversations) as negatives
    hard: bool  # bench/poison_hard_negatives.py
    hand_weight: float = 1.0  # a hand-written row weighs this many generated rows
    l2: float = 1e-5
    feats: str = "ngram"  # "ngram", "e5" (passage embedding) or "e5+ngram" (one joint model)
    l2_dense: float = 1e-4
    aug: bool = False  # train on pinyin and reversed twins of the always-training rows


OPTIONS = {
    o.name: o
    for o in (
        Option("gen+dev", hand=False, locomo=False, hard=False),
        Option("+hand", hand=True, locomo=False, hard=False),
        Option("+hand+locomo", hand=True, locomo=True, hard=False),
        Option("+hand+locomo+hard", hand=True, locomo=True, hard=True),
        Option("+hand x5+locomo+hard", hand=True, locomo=True, hard=True, hand_weight=5.0),
        Option("ngram", hand=True, locomo=True, hard=True, hand_weight=5.0),
        Option("ngram x8", hand=True, locomo=True, hard=True, hand_weight=8.0),
        Option("ngram x8 aug", hand=True, locomo=True, hard=True, hand_weight=8.0, aug=True),
        Option("e5", hand=True, locomo=True, hard=True, hand_weight=5.0, feats="e5"),
        Option(
            "e5 l2=1e-3",
            hand=True,
            locomo=True,
            hard=True,
            hand_weight=5.0,
            feats="e5",
            l2_dense=1e-3,
        ),
        Option(
            "e5 l2=1e-5",
            hand=True,
            locomo=True,
            hard=True,
            hand_weight=5.0,
            feats="e5",
            l2_dense=1e-5,
        ),
        Option("e5+ngram", hand=True, locomo=True, hard=True, hand_weight=5.0, feats="e5+ngram"),
    )
}
DEV_SETS = ("main", "holdout", "holdout2")  # the old judge's training sets
SHIPPED = "ngram x8"
"""The option whose weights ship (``--write``), chosen by the leave-one-set-out figures."""
SHIPPED_BY_CLAUSE = False
"""Whether the shipped judge scores each sentence too (``--clauses --write``)."""
SHIPPED_RULES_WEIGHT = 0.5
"""The rules' score (capped at 1) times this joins the judge's logit (``--rules-weight``)."""
HELD_CONV = 0
"""The LoCoMo conversation (conv-26) the shipped judge never trains on."""


def in_training(row: dict[str, Any], opt: Option, held: str, held_conv: int) -> bool:
    g = row["group"]
    if g == held:
        return False
    if g == "aug":
        return opt.aug
    if g in ("gen", "extra", "written", "written5", WRITTEN6):
        return True
    if g == "hard":
        return opt.hard
    if g.startswith("locomo:"):
        return opt.locomo and int(g.split(":")[1]) != held_conv
    if g.startswith("sales:"):
        if not held:  # the shipped judge: one sales set stays out, its figure stays honest
            return row.get("src") != HELD_SALES
        return int(g.split(":")[1]) != held_conv
    return opt.hand or g in DEV_SETS


def row_weights(rows: list[dict[str, Any]], opt: Option) -> NDArray[np.float64]:
    return np.array([opt.hand_weight if r["group"] not in ("gen", "aug") else 1.0 for r in rows])


def fit(x: Sparse, y: NDArray[np.int64], w: NDArray[np.float64], l2: float) -> tuple[Any, float]:
    return train_ngram(x, y, l2=l2, weights=w)


def threshold_for(
    rows: list[dict[str, Any]], z: NDArray[np.float64], *, pool_cjk: bool = False
) -> float:
    """Lowest logit keeping every (source, language) cell of ordinary text at <= FP_TARGET;
    with ``pool_cjk`` zh-Hans, zh-Hant and mixed text form one Chinese cell per source."""
    cells: dict[tuple[str, str], list[float]] = {}
    for r, s in zip(rows, z, strict=True):
        if r["label"] == 0 and r["group"] not in ALWAYS:
            src = r["group"].split(":")[0] if ":" in r["group"] else "notes"
            lang = "zh" if pool_cjk and r["lang"] != "en" else r["lang"]
            cells.setdefault((src, lang), []).append(float(s))
    thr = -1e9
    for scores in cells.values():
        allowed = int(np.floor(FP_TARGET * len(scores)))
        thr = max(thr, float(np.sort(scores)[::-1][allowed]) + 1e-3)
    return thr


def rates(rows: Iterable[dict[str, Any]], blocked: Iterable[bool]) -> str:
    cells: dict[str, list[int]] = {}
    for r, b in zip(rows, blocked, strict=True):
        c = cells.setdefault(r["lang"], [0, 0, 0, 0])
        c[0 if r["label"] else 2] += int(b)
        c[1 if r["label"] else 3] += 1
    tot = [sum(c[i] for c in cells.values()) for i in range(4)]
    parts = [f"all {tot[0]}/{tot[1]} fp {tot[2]}/{tot[3]}"]
    parts += [f"{k} {c[0]}/{c[1]} fp {c[2]}/{c[3]}" for k, c in sorted(cells.items())]
    return "; ".join(parts)


def features_for(rows: list[dict[str, Any]], x: Sparse | None, opt: Option) -> Features:
    """The option's feature blocks: n-grams (``x``) and/or e5 passage embeddings."""
    dense = passage_matrix([r["text"] for r in rows]) if "e5" in opt.feats else None
    return Features(x if "ngram" in opt.feats else None, dense)


class ClauseRows:
    """The sentences (``memagent.memory.poison_ngram.clauses``) of every row, as one matrix
    with each sentence's row index, so a fold scores them in one product."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        parent, texts = [], []
        for i, r in enumerate(rows):
            for c in clauses(judge_input(r["text"])):
                parent.append(i)
                texts.append(c)
        self.parent = np.array(parent, dtype=np.int64)
        self.x = Sparse(texts)

    def max_logit(
        self, judge: Any, z_whole: NDArray[np.float64], score: NDArray[np.bool_]
    ) -> NDArray[np.float64]:
        """``z_whole`` raised, for the ``score`` rows, to their best sentence's logit."""
        z = z_whole.copy()
        mask = score[self.parent]
        if mask.any():
            zc = judge.logit(Features(self.x.subset(mask), None))
            np.maximum.at(z, self.parent[mask], zc)
        return z


def loso(
    rows: list[dict[str, Any]],
    x: Sparse,
    opt: Option,
    cl: ClauseRows | None = None,
    only: Iterable[str] | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Out-of-set logit of every hand-written and LoCoMo row: the whole text's (``""``) and,
    with ``cl`` (n-gram options), the highest of the whole text's and its sentences'."""
    y = np.array([r["label"] for r in rows])
    wts = row_weights(rows, opt)
    z = np.full(len(rows), np.nan)
    zc = np.full(len(rows), np.nan)
    f = features_for(rows, x, opt)
    keep = set(FOLDS if only is None else only)
    for k, held in enumerate(FOLDS):
        if held not in keep:  # fold k keeps its LoCoMo/sales share (k mod 5) either way
            continue
        train = np.array([in_training(r, opt, held, k % 5) for r in rows])
        score = np.array(
            [r["group"] in (held, f"locomo:{k % 5}", f"sales:{k % 5}") for r in rows]
        ) & np.isnan(z)
        judge = train_judge(
            f.subset(train), y[train], l2=opt.l2, l2_dense=opt.l2_dense, weights=wts[train]
        )
        z[score] = judge.logit(f.subset(score))
        if cl is not None and opt.feats == "ngram":
            zc[score] = cl.max_logit(judge, z, score)[score]
        print(f"    fold {held}: trained on {int(train.sum())}", flush=True)
    out = {"": z}
    if cl is not None and opt.feats == "ngram":
        out[" by clause"] = zc
    return out


def script_thresholds(
    rows: list[dict[str, Any]], z: NDArray[np.float64], *, pool_cjk: bool = False
) -> NDArray[np.float64]:
    """Per row, the threshold of its script: ``threshold_for`` over the rows without Chinese
    characters, and over those with them (``has_cjk``, as the shipped judge decides); with
    ``pool_cjk`` the Chinese threshold keeps the pooled Chinese ordinary text at <= 1%."""
    cjk = np.array([has_cjk(r["text"]) for r in rows])
    scored = ~np.isnan(z)
    out = np.full(len(rows), np.nan)
    for mask in (~cjk, cjk):
        m = scored & mask
        sel = [r for r, s in zip(rows, m, strict=True) if s]
        out[mask] = threshold_for(sel, z[m], pool_cjk=pool_cjk)
    return out


def report(
    rows: list[dict[str, Any]],
    z: NDArray[np.float64],
    rules: NDArray[np.bool_],
    label: str = "+rules",
    thr_rows: NDArray[np.float64] | None = None,
) -> float:
    """Print the rates; the threshold is one pooled logit, or ``thr_rows`` (one per row)."""
    scored = ~np.isnan(z)
    sel = [r for r, s in zip(rows, scored, strict=True) if s]
    zs = z[scored]
    if thr_rows is None:
        thr = threshold_for(sel, zs)
        ts = np.full(len(zs), thr)
        print(
            f"  threshold (pooled out-of-set, <= {FP_TARGET:.0%} fp per language): logit {thr:.2f}"
        )
    else:
        ts = thr_rows[scored]
        thr = float(ts.max())
        print(
            f"  thresholds by script (<= {FP_TARGET:.0%} fp per language): {sorted(set(ts.round(2)))}"
        )
    for group in [*FOLDS, "locomo", "sales"]:
        idx = [i for i, r in enumerate(sel) if r["group"].split(":")[0] == group]
        if not idx:
            continue
        g = [sel[i] for i in idx]
        judge = zs[idx] >= ts[idx]
        rl = rules[scored][idx]
        print(f"    {group:<9} judge {rates(g, judge)}")
        print(f"    {'':<9} {label} {rates(g, judge | rl)}")
    notes = [i for i, r in enumerate(sel) if r["group"] in HAND]
    blocked = (zs >= ts) | rules[scored]
    print(f"    ALL NOTES {label} {rates([sel[i] for i in notes], blocked[notes])}")
    fresh = notes + [i for i, r in enumerate(sel) if r["group"] == WRITTEN6]
    print(f"    +{WRITTEN6:<8} {label} {rates([sel[i] for i in fresh], blocked[fresh])}")
    return thr


def misses(
    rows: list[dict[str, Any]], z: NDArray[np.float64], rules: NDArray[np.bool_], thr: float
) -> None:
    for r, s, rl in zip(rows, z, rules, strict=True):
        if np.isnan(s) or r["group"].startswith("locomo") and s < thr and not rl:
            continue
        if r["label"] == 1 and s < thr and not rl:
            print(f"      MISS {s:+.2f} [{r['group']} {r['lang']}] {r['text'][:140]!r}")
        elif r["label"] == 0 and (s >= thr or rl):
            print(f"      FP   {s:+.2f} [{r['group']} {r['lang']}] {r['text'][:140]!r}")


def compare(
    rows: list[dict[str, Any]],
    rules: NDArray[np.bool_],
    rule_scores: NDArray[np.float64],
    scored: NDArray[np.bool_],
    path: Path,
    scores: dict[str, NDArray[np.float64]],
) -> None:
    """The saved judge at ``path`` on the rows the folds scored, at its own thresholds and
    rules weight: as it was trained to read (``before_fix``) and as the code reads now."""
    judge = NgramModel.load(path)
    sel = [r for r, s in zip(rows, scored, strict=True) if s]
    cjk = np.array([has_cjk(r["text"]) for r in rows])
    thr = np.where(cjk, judge.threshold_cjk or judge.threshold, judge.threshold)
    for label, prepare in (("as trained (before the fix)", before_fix), ("fixed input", None)):
        x = Sparse([r["text"] for r in sel], *([prepare] if prepare else []))
        z = np.full(len(rows), np.nan)
        z[scored] = x.dot(judge.weights.astype(np.float64)) + judge.bias
        z = z + judge.rules_weight * rule_scores
        print(
            f"saved judge {path.name} ({label}; rules weight {judge.rules_weight}, thresholds "
            f"{judge.threshold:.2f} / CJK {judge.threshold_cjk}):",
            flush=True,
        )
        report(rows, z, rules, thr_rows=thr)
        scores[f"saved {label}"] = z


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--options", nargs="*", default=list(OPTIONS))
    parser.add_argument("--write", metavar="OPTION", help="train OPTION on everything and ship it")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument(
        "--threshold", type=float, help="with --write: the threshold a previous LOSO run printed"
    )
    parser.add_argument(
        "--threshold-cjk", type=float, help="with --write: the CJK threshold a LOSO run printed"
    )
    parser.add_argument(
        "--clauses",
        action="store_true",
        help="also score by clause (max over sentences); with --write, ship that scoring",
    )
    parser.add_argument(
        "--rules-weight",
        type=float,
        default=SHIPPED_RULES_WEIGHT,
        help="also report the judge's logit plus this times the rules' score, with one "
        "threshold per script (text with / without Chinese characters); --write ships it",
    )
    parser.add_argument("--dump", type=Path, help="save every option's out-of-set logits (npz)")
    parser.add_argument(
        "--folds", nargs="*", help="run only these folds (each keeps its LoCoMo/sales share)"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        help="also score the folds' rows with these saved weights (e.g. a copy of the shipped "
        "ones) at their own thresholds, read as trained (before_fix) and as the code reads now",
    )
    parser.add_argument(
        "--without-written5",
        action="store_true",
        help="leave out bench/poison_written5.py (the figures before it was written)",
    )
    parser.add_argument(
        "--without-written6",
        action="store_true",
        help="leave out bench/poison_written6.py (the figures before it was written)",
    )
    parser.add_argument(
        "--cached-only", action="store_true", help="drop generated rows not yet embedded by e5"
    )
    parser.add_argument(
        "--gen-subset",
        action="store_true",
        help="keep the generated rows whose SHA-1 starts with 0-8 (9/16 of them; e5 options)",
    )
    args = parser.parse_args()
    rows = load_rows(
        with_written5=not args.without_written5, with_written6=not args.without_written6
    )
    chosen = [OPTIONS[o] for o in [*args.options, *([args.write] if args.write else [])]]
    if any(o.aug for o in chosen):
        rows += twins([r for r in rows if r["group"] in ALWAYS])
    if args.gen_subset:
        rows = [r for r in rows if r["group"] != "gen" or text_key(r["text"])[0] in "012345678"]
    if args.cached_only:
        have = cached([r["text"] for r in rows])
        rows = [r for r, h in zip(rows, have, strict=True) if h or r["group"] != "gen"]
    print(f"rows: {len(rows)}", flush=True)
    x = Sparse([r["text"] for r in rows])
    rule_scores = np.array([min(assess(r["text"]).score, 1.0) for r in rows])
    rules = np.array([assess(r["text"]).reason is not None for r in rows])
    cl = ClauseRows(rows) if args.clauses else None
    by_script: dict[str, NDArray[np.float64]] = {}
    thresholds, scores = {}, {}
    for base in args.options:
        opt = OPTIONS[base]
        print(f"option {base}:", flush=True)
        for variant, z in loso(rows, x, opt, cl, args.folds).items():
            name = base + variant
            print(f"option {name}:", flush=True)
            thresholds[name] = report(rows, z, rules)
            scores[name] = z
            if "ngram" not in name and "ngram" in scores:
                print(f"option {name} or the n-gram judge (background = reply path + this):")
                either = rules | (np.nan_to_num(scores["ngram"], nan=-1e9) >= thresholds["ngram"])
                report(rows, z, either, "+ngram+rules")
            if args.misses:
                misses(rows, z, rules, thresholds[name])
            a = args.rules_weight
            zb = z + a * rule_scores
            by_script[name] = script_thresholds(rows, zb)
            print(f"option {name}, + {a} x rules' score, one threshold per script:", flush=True)
            report(rows, zb, rules, thr_rows=by_script[name])
            pooled = script_thresholds(rows, zb, pool_cjk=True)
            print(f"option {name}, + {a} x rules' score, pooled Chinese threshold:", flush=True)
            report(rows, zb, rules, thr_rows=pooled)
            scores[name + " +rules score"] = zb
    if args.compare is not None and scores:
        compare(
            rows, rules, rule_scores, ~np.isnan(next(iter(scores.values()))), args.compare, scores
        )
    if args.dump:
        np.savez(
            args.dump,
            names=np.array(list(scores)),
            z=np.stack(list(scores.values())),
            label=np.array([r["label"] for r in rows]),
            lang=np.array([r["lang"] for r in rows]),
            group=np.array([r["group"] for r in rows]),
            rules=np.array([assess(r["text"]).score for r in rows]),
            text=np.array([r["text"] for r in rows]),
            src=np.array([str(r.get("src", "")) for r in rows]),
        )
    if args.write:
        opt = OPTIONS[args.write]
        by_clause = args.clauses
        name = args.write + (" by clause" if by_clause else "")
        if name in by_script:
            cjk = np.array([has_cjk(r["text"]) for r in rows])
            thr, thr_cjk = float(by_script[name][~cjk][0]), float(by_script[name][cjk][0])
        elif args.threshold is not None:
            thr = args.threshold
            thr_cjk = args.threshold if args.threshold_cjk is None else args.threshold_cjk
        else:
            raise SystemExit("--write OPTION needs its LOSO threshold: list it in --options")
        # LoCoMo conv-26 (conversation 0) stays out, so its false-positive figure stays honest
        train = np.array([in_training(r, opt, "", HELD_CONV) for r in rows])
        y = np.array([r["label"] for r in rows])
        if opt.feats != "ngram":
            raise SystemExit("only n-gram options ship (the joint judge is measured, not shipped)")
        w, b = fit(x.subset(train), y[train], row_weights(rows, opt)[train], opt.l2)
        a = args.rules_weight
        NgramModel(w.astype(np.float32), b, thr, by_clause, a, thr_cjk).save(NGRAM_PATH)
        print(
            f"wrote {NGRAM_PATH} ({name}, rules weight {a}, thresholds {thr:.2f} / CJK "
            f"{thr_cjk:.2f})"
        )


if __name__ == "__main__":
    main()
