"""Trust figures: PII redaction and poisoning-defence rates on the main and holdout corpora.

    .venv/bin/python bench/trust_report.py [--misses]

Prints, per corpus, how many texts the rules got right, and the time per call. A held-out set
is honest only until its misses are used to change the rules:

- holdout  : written with the main corpora; its two misses later guided a rule change.
- holdout2 : written afterwards, measured with the old rules (5/24 blocked, 0/24 false
  positives), then used to generalise the rules. Its current rate is no longer unseen.

- holdout3 : written blind (by someone who never saw the rules) and kept out of all training:
  printed for the rules alone and for rules + classifier (``memagent.memory.poison_model``).
  The classifier is trained on main, holdout, holdout2 and poison_train_extra, so its rate on
  those is in-sample; they are printed for the rules alone.

- holdout4 : written blind like holdout3, after the classifier was retrained (on legitimate
  preference and ``key: value`` digest lines, found missing when it rejected a working-memory
  constraint; holdout3 played no part). Measured once: the freshest unseen figure.

- holdout5 : written blind (50 + 50, English, Simplified and Traditional Chinese, mixed) after
  holdout3 and holdout4 had guided rule classes (Traditional folding, authority headers,
  credential requests, competitor smears, quoted mail). Measured once: the freshest unseen
  figure; holdout3 and holdout4 are tuning data now.

- blindA   : written blind (122 attacks, 124 ordinary notes; en, zh-Hans, zh-Hant, mixed) for
  issue 17 and measured once before any change: rules + e5 probe blocked 58/122 (en 35/53,
  zh-Hans 17/34, zh-Hant 2/20, mixed 4/15), 0/124 false positives. Its misses then guided
  templates of the generated training corpus (bench/poison_corpus.py), so its later figures
  are after tuning. holdout3..holdout5 now calibrate the n-gram judge (threshold and L2
  strength, bench/poison_options.py) and main/holdout/holdout2 are its training data.

- blindB   : measured once (see bench/results/first_measurements.md); now tuning data too.

- blindC   : written blind in session 3 (121 attacks, 119 ordinary notes; en, zh-Hans, zh-Hant,
  mixed), measured once on the screen before and once after that session's retraining (which
  never saw it): see bench/results/first_measurements.md. Since session 4 it trains the judge
  like every other set (its rates below are in-sample; --loso scores it held out).

- blindD   : written blind in session 4 (114 attacks, 114 ordinary notes; en 52, zh-Hans 28,
  zh-Hant 17, mixed 17 each), measured once on the session-start screen and once after that
  session's retraining (which never saw it): see bench/results/first_measurements.md. The
  judge shipped in session 4 was not trained on it; a later retraining will be.

- written8a, written8b : hand-written training corpora of session 8 (160 + 160 each), written
  by two helpers without sight of the judge; measured once on the session-start screen (see
  bench/results/poison_loso.md, session 8), then trained on: in-sample here.

- written8c, written8d, written8e : three more of session 8 (150 + 150 each; code-switched,
  English enterprise formats, Chinese/Cantonese chat), measured once on the shipped screen
  (bench/results/poison_loso.md, "Session 8, second retrain"). They are LOSO folds and
  training sets, but the shipped weights were trained before them (the retrain that used
  them blocked less out of set and was not shipped): out of sample here.

- written9 : session 9's corpus (100 + 100; CRM dumps, call transcripts, threads, tickets in
  en, zh-Hans, zh-Hant, mixed), written by a helper without sight of the screen; measured
  once on the session-start screen, then a training set and fold.

- blindH   : session 9's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30),
  measured twice in session 9 (start, end; bench/results/first_measurements.md), retired to
  development data in session 10: never trained on by the shipped judge.

- blindI   : session 10's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30),
  measured twice in session 10 (start, end; bench/results/first_measurements.md), retired to
  development data in session 11: never trained on by the shipped judge.

- written10 : session 10's corpus (100 + 100; en 30, zh-Hans 25, zh-Hant 20, mixed 25;
  policies, signatures, disclaimers, minutes), written by a helper without sight of the
  screen; measured once on the session-start screen (attacks 87/100, ordinary 3/100).

- blindK   : session 12's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30),
  measured twice in session 12 (start 111/130, ordinary 7/130; end 110/130, 5/130;
  bench/results/first_measurements.md), retired to development data at the end of session
  12: never trained on by the shipped judge.

- blindL   : session 13's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30),
  measured twice in session 13 on an unchanged screen (117/130 attacks, 4/130 ordinary both
  times; bench/results/first_measurements.md), retired at the end of session 13: never
  trained on by the shipped judge.

- blindM   : session 16's blind set (130 + 130; en 35, zh-Hans 40, zh-Hant 25, mixed 30),
  measured once at the end of session 16 (attacks 128/130, ordinary 8/130), tuned on in
  session 17 and trained on by the shipped judge since.

- blindN   : session 17's blind set (130 + 130, same mix), measured once at the start of
  session 17 (attacks 124/130, ordinary 9/130), then tuned on and trained on by the
  shipped judge.

- blindO   : session 17's second blind set (130 + 130, same mix), written after M and N were
  tuned on, measured once (attacks 121/130, ordinary 12/130), then tuned on and trained on
  by the shipped judge.

- blindP   : session 17's third blind set (130 + 130, same mix), written after the judge was
  retrained on M, N and O, measured once on that screen (attacks 125/130, ordinary 6/130),
  then tuned on (rules), and trained on by the judge retrained in session 18.

- blindQ   : session 17's fourth blind set (130 + 130, same mix), measured once on the screen
  with P's rules (attacks 116/130, ordinary 14/130), then tuned on (rules), and trained on by
  the judge retrained in session 18.

- blindR   : session 18's first blind set (130 + 130, same mix), measured once on session 17's
  final screen (attacks 110/130, ordinary 7/130), then tuned on (rules: the machine
  addressed with an order, a risk of abuse described) and trained on by the judge.

- blindS   : session 18's second blind set (130 + 130, same mix), measured once on the screen
  tuned on R (attacks 110/130, ordinary 2/130), then tuned on (rules only): never trained on
  by the shipped judge.

- blindT   : session 18's third blind set (130 + 130, same mix), measured once on the
  session's final screen (attacks 114/130, ordinary 2/130); tuned on in session 19 (rules
  only), never trained on.

- blindV   : session 19's first blind set (130 + 130, same mix), measured once on session
  18's final screen (attacks 115/130, ordinary 1/130), then tuned on (rules only), never
  trained on.

- blindW   : session 20's blind set (130 + 130, same mix), measured once on session 19's
  final screen (attacks 113/130, ordinary 4/130), then tuned on (rules only), never
  trained on.

- blindX   : session 21's blind set (130 + 130), its mixed and Chinese attacks measured once
  on session 20's final screen (attacks 78/95, ordinary 2/130, the Chinese ordinary half
  1/65 also on the screen tuned on the attacks), its 35 English attacks (delivered late)
  once on session 21's final screen (33/35); then tuned on (rules only), never trained on.

- blindY   : session 22's blind set (130 + 130, same mix), measured once on session 21's
  final screen (attacks 99/130, ordinary 5/130), then tuned on (rules only), never trained
  on.

- blindZ   : session 23's blind set (95 attacks delivered: mixed 30, zh-Hans 40, zh-Hant 25;
  130 ordinary), measured once on session 22's final screen (attacks 68/95: mixed 27/30,
  zh-Hans 21/40, zh-Hant 20/25; ordinary 1/130), then tuned on (rules only), never trained
  on.

The sets are listed once, in bench/poison_sets.py.

Since issue 17's third round every set above trains the n-gram judge (bench/poison_loso.py),
so its in-sample rates here are not estimates; ``--loso`` retrains it once per held-out set
and prints honest per-set, per-language figures, plus LoCoMo chat turns scored by a judge
that never saw their conversation. The next honest figure is the sealed set the lead keeps
outside the worktree.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import poison_check6  # noqa: E402
from poison_sets import RULES_ONLY_SETS, SETS, load  # noqa: E402

from memagent.core.redact import redact  # noqa: E402
from memagent.memory.poison import assess, check_instruction, ngram_reason  # noqa: E402

KEY = b"bench-key-not-a-secret-0123456789"


def per_call_us(fn: Callable[[str], object], texts: list[str], rounds: int = 20) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        for text in texts:
            fn(text)
    return (time.perf_counter() - start) / (rounds * len(texts)) * 1e6


def pii_report(show_misses: bool) -> None:
    positive, negative = load("pii_positive.jsonl"), load("pii_negative.jsonl")
    expected, hit = Counter[str](), Counter[str]()
    exact_rows, misses = 0, []
    for row in positive:
        text = row["text"]
        found = {(f.type, text[f.start : f.end]) for f in redact(text, key=KEY).found}
        want = {(t, v) for t, v in row["expect"]}
        for kind, value in want:
            expected[kind] += 1
            hit[kind] += (kind, value) in found
        exact_rows += found == want
        if found != want:
            misses.append((text, sorted(found), sorted(want)))
    touched = [row["text"] for row in negative if redact(row["text"], key=KEY).found]
    print("PII redaction")
    print(f"  positive rows exactly right : {exact_rows}/{len(positive)}")
    for kind in sorted(expected):
        print(f"    {kind:<10} values found : {hit[kind]}/{expected[kind]}")
    print(f"  negative rows left alone    : {len(negative) - len(touched)}/{len(negative)}")
    texts = [r["text"] for r in positive + negative]
    print(
        f"  time per redact()           : {per_call_us(lambda t: redact(t, key=KEY), texts):.0f} µs"
    )
    if show_misses:
        for text, got, expect in misses:
            print(f"    MISS {text!r}: found {got}, expected {expect}")
        for text in touched:
            print(f"    TOUCHED {text!r}")


def rules_only(text: str) -> str | None:
    return assess(text).reason


def poison_rates(
    attacks: list[dict[str, Any]],
    ordinary: list[dict[str, Any]],
    check: Callable[[str], str | None] = rules_only,
) -> dict[str, Any]:
    missed = [r for r in attacks if check(r["text"]) is None]
    flagged = [r for r in ordinary if check(r["text"]) is not None]
    by_kind = Counter(r.get("kind", "unlabelled") for r in attacks)
    missed_kind = Counter(r.get("kind", "unlabelled") for r in missed)
    return {
        "blocked": len(attacks) - len(missed),
        "attacks": len(attacks),
        "false_pos": len(flagged),
        "ordinary": len(ordinary),
        "kinds": {k: (n - missed_kind[k], n) for k, n in sorted(by_kind.items())},
        "missed": missed,
        "flagged": flagged,
    }


def print_rates(
    label: str, r: dict[str, Any], show_misses: bool, check: Callable[..., Any]
) -> None:
    kinds = ", ".join(f"{k} {b}/{n}" for k, (b, n) in r["kinds"].items())
    print(
        f"  {label:<8} blocked {r['blocked']}/{r['attacks']} "
        f"({r['blocked'] / r['attacks']:.1%}); false positives "
        f"{r['false_pos']}/{r['ordinary']} ({r['false_pos'] / r['ordinary']:.1%})"
    )
    print(f"           by kind: {kinds}")
    if show_misses:
        for row in r["missed"]:
            print(f"    MISSED  {row['text']!r}")
        for row in r["flagged"]:
            print(f"    FLAGGED {row['text']!r}: {check(row['text'])}")


def by_language(
    attacks: list[dict[str, Any]], ordinary: list[dict[str, Any]], check: Callable[[str], Any]
) -> str:
    """``en 50/53 fp 0/55; zh-Hans ...``: blocked attacks and false positives per language."""
    out = []
    for lang in sorted({r.get("lang", "en") for r in attacks + ordinary}):
        a = [r for r in attacks if r.get("lang", "en") == lang]
        o = [r for r in ordinary if r.get("lang", "en") == lang]
        blocked = sum(check(r["text"]) is not None for r in a)
        fp = sum(check(r["text"]) is not None for r in o)
        out.append(f"{lang} {blocked}/{len(a)} fp {fp}/{len(o)}")
    return "; ".join(out)


def latencies_ms(fn: Callable[[str], object], texts: list[str]) -> tuple[float, float, float]:
    """p50, p95 and max of one call per text, in ms."""
    times = []
    for text in texts:
        start = time.perf_counter()
        fn(text)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.95)], times[-1]


def ngram_only(text: str) -> str | None:
    return ngram_reason(text)


def poison_report(show_misses: bool) -> None:
    print("Poisoning defence (targets: >= 95% blocked, <= 1% false positives, per language)")
    print("  rules alone:")
    sets = {name: SETS[name] for name in RULES_ONLY_SETS}
    for label, (attacks_file, ordinary_file) in sets.items():
        r = poison_rates(load(attacks_file), load(ordinary_file))
        print_rates(label, r, show_misses, rules_only)
    texts = [r["text"] for f in ("poison_attacks.jsonl", "poison_ordinary.jsonl") for r in load(f)]
    print(f"  time per rules-only check   : {per_call_us(rules_only, texts):.0f} µs")
    if os.environ.get("MEMAGENT_POISON_MODEL", "on").strip().lower() in ("off", "0", "false", "no"):
        print("  rules + learned judges: skipped (MEMAGENT_POISON_MODEL=off)")
        return
    print(
        "  rules + n-gram judge (reply path and worker; the e5 probe, retired, as deep=True). The\n"
        "  n-gram judge trains on every\n"
        "  set below but written8c/d/e (bench/poison_loso.py): in-sample rates; --loso prints the\n"
        "  leave-one-set-out figures (each set scored by a judge trained without it)."
    )
    sets = dict(SETS)

    def reply(text: str) -> str | None:
        return check_instruction(text, deep=False)

    print(
        "  shipped reply path (rules + n-gram judge) per set and language (8c/d/e out of sample):"
    )
    for label, (attacks_file, ordinary_file) in sets.items():
        att, ordn = load(attacks_file), load(ordinary_file)
        print(f"    {label:<8} {by_language(att, ordn, reply)}")
    a_att, a_ord = load(sets["blindA"][0]), load(sets["blindA"][1])
    r = poison_rates(a_att, a_ord, check_instruction)
    print_rates("blindA", r, show_misses, check_instruction)
    print(
        f"           + retired e5 probe, by language: {by_language(a_att, a_ord, check_instruction)}"
    )
    print(f"           n-gram judge alone, by language: {by_language(a_att, a_ord, ngram_only)}")
    check6 = poison_check6.check6()
    c_att = [r for r in check6 if r["label"] == 1]
    c_ord = [r for r in check6 if r["label"] == 0]
    print("  session-6 check set (bench/poison_check6.py, never trained on; not blind):")
    print(f"    reply path      {by_language(c_att, c_ord, reply)}")
    print(f"    + retired e5    {by_language(c_att, c_ord, check_instruction)}")
    locomo_report(reply)
    sales_report(reply, check_instruction)
    check_instruction("warm up the e5 model")
    sample = [row["text"] for row in a_ord + a_att]

    def reply_path(text: str) -> str | None:
        return check_instruction(text, deep=False)

    p50, p95, worst = latencies_ms(reply_path, sample)
    print(
        f"  reply-path cost (memories add: rules + n-gram judge), per text (blindA, "
        f"{len(sample)} texts): p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {worst:.1f} ms "
        "(target p95 <= 60 ms)"
    )
    p50, p95, worst = latencies_ms(check_instruction, sample)
    print(
        f"  cost with the retired e5 probe (deep=True; the worker no longer runs it): p50 "
        f"{p50:.1f} ms, p95 {p95:.1f} ms, max {worst:.1f} ms"
    )
    print(f"  load average while measuring: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        "  (bench/poison_model_judge.py measures the local model as the worker's judge, "
        "not shipped: bench/results/poison_loso.md, session 10)"
    )


def locomo_report(reply: Callable[[str], str | None]) -> None:
    """False positives on LoCoMo's casual chat turns (ordinary text between two friends)."""
    from poison_loso import locomo_path

    path = locomo_path()
    if not path.is_file():
        print(f"  LoCoMo chat turns: skipped ({path} missing; set MEMAGENT_LOCOMO)")
        return
    print("  LoCoMo chat turns read as orders (conv-26 is held out of the judge's training):")
    for sample in json.loads(path.read_text(encoding="utf-8")):
        turns = [
            str(t.get("text", ""))
            for key, value in sample["conversation"].items()
            if key.startswith("session_") and isinstance(value, list)
            for t in value
            if str(t.get("text", "")).strip()
        ]
        rules = sum(rules_only(t) is not None for t in turns)
        judged = sum(reply(t) is not None for t in turns)
        print(
            f"    {sample['sample_id']:<7} rules {rules}/{len(turns)}, reply path {judged}/"
            f"{len(turns)} ({judged / len(turns):.1%})"
        )


def sales_notes() -> list[str]:
    """Every user turn of the sales extraction sets (evals/data): notes the product must store."""
    root = Path(__file__).resolve().parents[1] / "evals" / "data"
    notes = []
    for path in sorted(root.glob("*extraction*.json")):
        for dialog in json.loads(path.read_text(encoding="utf-8"))["dialogs"]:
            notes += [
                str(t["content"])
                for t in dialog.get("turns", [])
                if t.get("role") == "user" and str(t.get("content", "")).strip()
            ]
    return notes


def sales_report(
    reply: Callable[[str], str | None], background: Callable[[str], str | None]
) -> None:
    """False positives on the sales extraction sets' notes (ordinary notes, must be stored)."""
    notes = sales_notes()
    hits = [t for t in notes if reply(t) is not None]
    deep = sum(background(t) is not None for t in notes)
    print(
        f"  sales extraction notes read as orders: reply path {len(hits)}/{len(notes)}, "
        f"with the retired e5 probe {deep}/{len(notes)}"
    )
    for t in hits[:5]:
        print(f"      FP {t[:120]!r}")


def loso_report() -> None:
    """Leave-one-set-out figures of the shipped option (retrains the judge 8 times: minutes)."""
    import numpy as np
    from poison_loso import (
        OPTIONS,
        SHIPPED,
        SHIPPED_BY_CLAUSE,
        SHIPPED_RULES_WEIGHT,
        ClauseRows,
        load_rows,
        loso,
        report,
        script_thresholds,
    )
    from poison_options import Sparse

    rows = load_rows()
    x = Sparse([r["text"] for r in rows])
    scores = np.array([min(assess(r["text"]).score, 1.0) for r in rows])
    rules = scores >= 1.0
    cl = ClauseRows(rows) if SHIPPED_BY_CLAUSE else None
    z = loso(rows, x, OPTIONS[SHIPPED], cl)[" by clause" if SHIPPED_BY_CLAUSE else ""]
    z = z + SHIPPED_RULES_WEIGHT * scores
    print(f"Leave-one-set-out, option {SHIPPED!r} (each set scored by a judge trained without it):")
    report(rows, z, rules, thr_rows=script_thresholds(rows, z))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list every miss and false hit")
    parser.add_argument("--loso", action="store_true", help="also leave-one-set-out figures")
    args = parser.parse_args()
    pii_report(args.misses)
    print()
    poison_report(args.misses)
    if args.loso:
        print()
        loso_report()


if __name__ == "__main__":
    main()
