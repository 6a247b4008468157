"""ruff (lint + format) and mypy are part of the test suite, so CI fails on either."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed in the test environment (pip install -e '.[dev]')")
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint() -> None:
    res = _run(_tool("ruff"), "check", ".")
    assert res.returncode == 0, res.stdout + res.stderr


def test_ruff_format() -> None:
    res = _run(_tool("ruff"), "format", "--check", ".")
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.slow
def test_mypy() -> None:
    _tool("mypy")
    res = _run(sys.executable, str(ROOT / "tests" / "support" / "lint_types.py"))
    assert res.returncode == 0, res.stdout + res.stderr
