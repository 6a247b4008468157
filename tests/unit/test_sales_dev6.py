"""Development set 6 (evals/data/sales_extraction_dev6.json): it loads, it has what it
says it has, and the rules keep its corrections, retractions and people without stale
values or duplicates through the worker's own path."""

from __future__ import annotations

import re
from pathlib import Path

from memagent.evals.eval_dataset import load_dataset
from memagent.evals.eval_extraction import Selection, run_extraction_eval
from memagent.memory.extractors import rules_extractor

DEV6 = Path(__file__).resolve().parents[2] / "evals" / "data" / "sales_extraction_dev6.json"
TRADITIONAL = re.compile(r"[們這說記錄經處聯會議預算絡來電話業與資]")


def test_dev6_loads_as_a_bilingual_development_set() -> None:
    data = load_dataset(DEV6)
    assert len(data.dialogs) == 30
    assert {d.split for d in data.dialogs} == {"dev"}
    langs = [d.lang for d in data.dialogs]
    assert langs.count("zh") >= 14 and langs.count("en") >= 14
    traditional = [d for d in data.dialogs if TRADITIONAL.search(str(d.turns[0]["content"]))]
    assert len(traditional) >= 4
    assert sum(bool(d.stale) for d in data.dialogs) >= 12


def test_rules_leave_no_stale_value_and_no_duplicate_on_dev6() -> None:
    data = load_dataset(DEV6)
    res = run_extraction_eval(
        rules_extractor(), data.dialogs, selection=Selection("dev"), version=2
    )
    assert res["stale_leaks"] == 0, res["misses"] if "misses" in res else res["per_dialog"]
    assert res["duplicates"] == 0
    assert res["recall"] >= 0.9 and res["precision"] >= 0.85, (res["precision"], res["recall"])
