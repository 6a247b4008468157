"""Development set 7 (evals/data/sales_extraction_dev7dups.json): it loads, it has what it
says it has, and the rules keep one memory per person and no superseded, placeholder or
own-side value through the worker's own path."""

from __future__ import annotations

from pathlib import Path

from memagent.evals.eval_dataset import load_dataset
from memagent.evals.eval_extraction import Selection, run_extraction_eval
from memagent.memory.extractors import rules_extractor

DEV7 = Path(__file__).resolve().parents[2] / "evals" / "data" / "sales_extraction_dev7dups.json"


def test_dev7_loads_as_a_bilingual_development_set() -> None:
    data = load_dataset(DEV7)
    assert len(data.dialogs) >= 12
    assert {d.split for d in data.dialogs} == {"dev"}
    langs = [d.lang for d in data.dialogs]
    assert langs.count("zh") >= 6 and langs.count("en") >= 6
    assert sum(bool(d.stale) for d in data.dialogs) >= 8


def test_rules_leave_no_duplicate_and_few_stale_values_on_dev7() -> None:
    data = load_dataset(DEV7)
    res = run_extraction_eval(
        rules_extractor(), data.dialogs, selection=Selection("dev"), version=2
    )
    assert res["duplicates"] == 0, res.get("misses")
    # first figures (before the write-side fixes): 6 duplicates, 17 of 22 stale values kept
    assert res["stale_leaks"] <= 2, res.get("misses")
    assert res["recall"] >= 0.9, res["recall"]
