"""Tracked notebooks (sources and saved outputs) and benchmarks carry no absolute path of
the machine they were written or run on: a clone elsewhere has none of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MACHINE_PATH = re.compile(
    r"(?<![\w.~-])(/(work|tmp|root|home|Users|private|var/folders|mnt|opt)/[^\s\"'`]*"
    r"|[A-Z]:\\\\[^\s\"']*)"
)
FILES = sorted(
    [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("bench/*.py"), *ROOT.glob("bench/results/*")]
)


def test_the_scan_covers_the_notebooks_and_benchmarks() -> None:
    names = {p.name for p in FILES}
    assert {"02_retrieval.ipynb", "locomo_experiments.py", "locomo_variants.md"} <= names


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_absolute_machine_path(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = [
        f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)[:80]}"
        for m in MACHINE_PATH.finditer(text)
    ]
    assert not found, f"{path.relative_to(ROOT)} holds machine paths: {found}"
