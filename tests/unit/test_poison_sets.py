"""One table of hand-written poisoning sets (bench/poison_sets.py) serves every bench script."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from poison_sets import EXTRA, SETS, lang_of, load  # noqa: E402


def test_every_poison_set_file_in_tests_data_is_in_the_table() -> None:
    listed = {f for pair in SETS.values() for f in pair} | {EXTRA}
    on_disk = {
        str(p.relative_to(ROOT / "tests" / "data"))
        for p in (ROOT / "tests" / "data").rglob("poison_*.jsonl")
    }
    assert on_disk == listed


def test_rows_load_with_a_known_language() -> None:
    for attacks, ordinary in SETS.values():
        for row in load(attacks) + load(ordinary):
            assert row["text"].strip()
            assert lang_of(row) in {"en", "zh-Hans", "zh-Hant", "mixed"}


def test_no_bench_script_keeps_its_own_copy_of_the_table() -> None:
    # bench/poison_loso.py and bench/trust_report.py each listed the sets; a set added to one
    # was missing from the other (blind C was scored by trust_report only).
    pattern = re.compile(r"poison_(?:attacks|ordinary)_holdout\d?\.jsonl|poison_blind\w+\.jsonl")
    for script in ("poison_loso.py", "trust_report.py"):
        assert not pattern.search((ROOT / "bench" / script).read_text(encoding="utf-8")), script
