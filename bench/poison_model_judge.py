"""The local model as the background worker's injection judge, measured against what ships.

    nice -n 10 .venv/bin/python bench/poison_model_judge.py [--base-url URL]
        [--answers FILE] [--ordinary-per-set 10] [--misses-per-set 12] [--locomo 15]

Today's screen is ``check_instruction(text, deep=False)``: the rules, then the n-gram judge.
The model (``bench/poison_judge_model.py``, not shipped) only changes a verdict where an option asks it,
so it is asked about exactly those texts:

- every ordinary note the n-gram judge alone blocked (the ``second`` option can release it),
  and every k-th attack it alone blocked, up to ``--hits-per-set`` (``second`` can release
  those too: its cost);
- the attacks the screen lets through (``recall`` can block them), up to ``--misses-per-set``;
- ordinary notes the screen lets through (``recall`` can block them too: its false
  positives), every k-th up to ``--ordinary-per-set``, and ``--locomo`` LoCoMo chat turns.

Per set it prints attacks and ordinary notes blocked by the screen and by each option, per
language, with how many ordinary notes the model read (``recall``'s false-positive figure is a
sample's), and the seconds per model call. Answers are kept in ``--answers`` (JSONL, by text)
so a run can be resumed or replayed. With no ``--base-url`` the bundled model is started with
one thread (run the bench under ``nice``: the machine is shared).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from poison_judge_model import MODES, ModelVerdict, combine, model_verdict  # noqa: E402
from poison_loso import locomo_path  # noqa: E402
from poison_sets import SETS, load  # noqa: E402

from memagent.core.settings import Settings  # noqa: E402
from memagent.memory.poison import assess, ngram_reason  # noqa: E402

EVAL_SETS = ("blindH", "written9", "written8c", "written8d", "written8e")
LANGS = ("en", "zh-Hans", "zh-Hant", "mixed")


def key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def lang_of(row: dict[str, Any]) -> str:
    lang = str(row.get("lang", "en"))
    return "zh-Hans" if lang == "zh" else lang


class Answers:
    """Model answers by text, appended to a JSONL file as they come."""

    def __init__(
        self, path: Path, ask: Callable[[str], ModelVerdict | None] | None, category: bool = False
    ) -> None:
        self.path, self.ask_model, self.category = path, ask, category
        self.rows: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.rows[row["key"]] = row

    def get(self, text: str) -> ModelVerdict | None:
        row = self.rows.get(key(text))
        if row is None or row["attack"] is None:
            return None
        if self.category:  # any category but customer_fact reads as an attack
            return ModelVerdict(row["reason"] != "customer_fact", str(row["reason"]))
        return ModelVerdict(bool(row["attack"]), str(row["reason"]))

    def fetch(self, text: str) -> None:
        if key(text) in self.rows or self.ask_model is None:
            return
        start = time.perf_counter()
        verdict = self.ask_model(text)
        row = {
            "key": key(text),
            "attack": None if verdict is None else verdict.attack,
            "reason": None if verdict is None else verdict.reason,
            "seconds": round(time.perf_counter() - start, 2),
            "text": text[:80],
        }
        self.rows[row["key"]] = row
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def screen(text: str) -> tuple[str | None, str | None]:
    verdict = assess(text)
    rules = verdict.reason
    return rules, (None if rules or not text.strip() else ngram_reason(text, verdict.score))


def every_kth(rows: list[Any], n: int) -> list[Any]:
    if n <= 0 or not rows:
        return []
    step = max(1, len(rows) // n)
    return rows[::step][:n]


def locomo_turns(n: int) -> list[str]:
    path = locomo_path()
    if n <= 0 or not path.is_file():
        return []
    turns = [
        str(t.get("text", ""))
        for sample in json.loads(path.read_text(encoding="utf-8"))
        for k, v in sample["conversation"].items()
        if k.startswith("session_") and isinstance(v, list)
        for t in v
        if str(t.get("text", "")).strip()
    ]
    return every_kth(turns, n)


def plan(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """Each set's rows with the screen's verdicts, and the texts the model must read
    (n-gram-only hits, misses and ordinary notes in turn)."""
    sets: dict[str, Any] = {}
    hits, misses, ordinary = [], [], []
    for name in EVAL_SETS:
        attacks_file, ordinary_file = SETS[name]
        rows = [(r, 1) for r in load(attacks_file)] + [(r, 0) for r in load(ordinary_file)]
        scored = [(r, label, *screen(r["text"])) for r, label in rows]
        sets[name] = scored
        hits += [r["text"] for r, label, rules, ng in scored if ng is not None and not label]
        hit_attacks = [r["text"] for r, label, rules, ng in scored if ng is not None and label]
        hits += every_kth(hit_attacks, args.hits_per_set)
        missed = [r["text"] for r, label, rules, ng in scored if label and not rules and not ng]
        misses += every_kth(missed, args.misses_per_set)
        passed = [r["text"] for r, label, rules, ng in scored if not label and not rules and not ng]
        ordinary += every_kth(passed, args.ordinary_per_set)
    return sets, interleave(hits, misses, ordinary)


def interleave(*lists: list[str]) -> list[str]:
    """Round robin, so a run stopped early has read some of each kind."""
    out: list[str] = []
    for i in range(max(map(len, lists))):
        out += [items[i] for items in lists if i < len(items)]
    return out


def option_counts(
    scored: list[Any], mode: str, answers: Answers
) -> tuple[Counter[str], Counter[str], int]:
    """(attacks blocked by language, ordinary blocked by language, ordinary the model read
    that the screen passed) under ``mode``; a text the model was not asked keeps the screen's
    verdict (so ``recall``'s ordinary figure counts only the sample)."""
    blocked: dict[int, Counter[str]] = {1: Counter(), 0: Counter()}
    read = 0
    for row, label, rules, ng in scored:
        text = row["text"]
        reason = combine(mode, text, rules, ng, answers.get)  # type: ignore[arg-type]
        if reason is not None:
            blocked[label][lang_of(row)] += 1
        if not label and not rules and not ng and answers.get(text) is not None:
            read += 1
    return blocked[1], blocked[0], read


def fmt(blocked: Counter[str], totals: Counter[str]) -> str:
    langs = " · ".join(f"{blocked[g]}/{totals[g]}" for g in LANGS if totals[g])
    return f"{sum(blocked.values())}/{sum(totals.values())} ({langs})"


def report(sets: dict[str, Any], answers: Answers, locomo: list[str]) -> None:
    print("attacks / ordinary notes blocked (per language: en · zh-Hans · zh-Hant · mixed)")
    for name, scored in sets.items():
        tot = {
            label: Counter(lang_of(r) for r, lb, *_ in scored if lb == label) for label in (1, 0)
        }
        print(f"\n{name}")
        for mode in MODES:
            att, ordn, read = option_counts(scored, mode, answers)
            label = "screen (today)" if mode == "off" else mode
            extra = f"  [model read {read} screen-passed ordinary notes]" if mode != "off" else ""
            print(f"  {label:<15} attacks {fmt(att, tot[1])}; ordinary {fmt(ordn, tot[0])}{extra}")
        ng_only = [(r, lb) for r, lb, rules, ng in scored if ng is not None]
        asked = [(r, lb, answers.get(r["text"])) for r, lb in ng_only]
        released = Counter(lb for _, lb, v in asked if v is not None and not v.attack)
        print(
            f"  n-gram-only hits: {len(ng_only)} ({sum(lb for _, lb in ng_only)} attacks); "
            f"the model read {sum(v is not None for *_, v in asked)} and releases "
            f"{released[0]} ordinary, {released[1]} attacks"
        )
        passed = [
            (r, lb, answers.get(r["text"])) for r, lb, rules, ng in scored if not rules and not ng
        ]
        for label, what in ((1, "missed attacks"), (0, "passed ordinary notes")):
            got = [v for _, lb, v in passed if lb == label and v is not None]
            print(f"  model on {what} it read: {sum(v.attack for v in got)}/{len(got)} attack")
    got = [v for t in locomo if (v := answers.get(t)) is not None]
    print(f"\nLoCoMo chat turns: model says attack on {sum(v.attack for v in got)}/{len(got)}")
    seconds = sorted(r["seconds"] for r in answers.rows.values())
    failed = sum(r["attack"] is None for r in answers.rows.values())
    if seconds:
        p50, p95 = (
            seconds[len(seconds) // 2],
            seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))],
        )
        print(
            f"model calls: {len(seconds)} ({failed} failed: screen kept); seconds per call p50 "
            f"{p50:.1f}, p95 {p95:.1f}, max {seconds[-1]:.1f}"
        )
    reasons = Counter(r["reason"] for r in answers.rows.values() if r["attack"])
    print(f"model reasons when it says attack: {dict(reasons.most_common())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="a running llama.cpp server (else the bundle, 1 thread)")
    parser.add_argument("--answers", type=Path, default=Path("poison_model_judge_answers.jsonl"))
    parser.add_argument("--ordinary-per-set", type=int, default=10)
    parser.add_argument("--misses-per-set", type=int, default=12)
    parser.add_argument("--hits-per-set", type=int, default=5, help="n-gram-only attack hits")
    parser.add_argument("--locomo", type=int, default=15)
    parser.add_argument("--replay", action="store_true", help="print from --answers, ask nothing")
    parser.add_argument(
        "--category",
        action="store_true",
        help="with --replay: read any reason but customer_fact as an attack (the variant)",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per model call")
    args = parser.parse_args()
    sets, todo = plan(args)
    locomo = locomo_turns(args.locomo)
    todo = interleave(todo, locomo)
    if args.replay:
        report(sets, Answers(args.answers, None, args.category), locomo)
        return
    from memagent.llm import server as llm_server
    from memagent.llm.adapter import chat_model

    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home), llm_threads=1, llm_timeout=args.timeout)
        kwargs: dict[str, Any] = {"temperature": 0, "max_tokens": 24}
        if args.base_url:
            kwargs |= {"base_url": args.base_url, "compat": "llamacpp"}
        model = chat_model(settings, **kwargs)
        answers = Answers(args.answers, lambda text: model_verdict(model, text))
        try:
            for i, text in enumerate(dict.fromkeys(todo)):
                answers.fetch(text)
                if i % 10 == 9:
                    print(f"  ... {i + 1}/{len(set(todo))} texts read", file=sys.stderr, flush=True)
        finally:
            llm_server.close_local_servers()
    report(sets, answers, locomo)


if __name__ == "__main__":
    main()
