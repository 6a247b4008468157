"""A notebook that needs data the repository does not ship (LoCoMo), on a clone alone.

The suite is run on a copy of the notebooks folder (its conftest, the real 02 notebook's
metadata, a tiny stand-in notebook declaring the same need) in a directory with nothing
beside it: the notebook is skipped with a clear reason, fails the run when ``CI=true``,
and runs with the path handed to its kernel when the data is there (through
``MEMAGENT_LOCOMO`` or in the development layout beside the repository).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
STAND_IN = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "c0",
            "metadata": {},
            "outputs": [],
            "source": [
                "import os, pathlib\n",
                "data = pathlib.Path(os.environ['MEMAGENT_LOCOMO'])\n",
                "assert data.read_text() == '[]', data",
            ],
        }
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "memagent": {"needs_data": ["locomo"]},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """``tmp_path/clone``: the notebooks' conftest and pytest config, nothing beside it."""
    repo = tmp_path / "clone"
    (repo / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", repo)
    shutil.copy(ROOT / "notebooks" / "conftest.py", repo / "notebooks")
    (repo / "notebooks" / "stand_in.ipynb").write_text(json.dumps(STAND_IN))
    return repo


def _pytest(repo: Path, notebook: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "MEMAGENT_LOCOMO")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", f"notebooks/{notebook}", "-p", "no:cacheprovider",
         "-rA", "--rootdir", str(repo)],
        cwd=repo, env={**base, **env}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_retrieval_notebook_declares_that_it_needs_locomo() -> None:
    notebook = json.loads((ROOT / "notebooks" / "02_retrieval.ipynb").read_text())
    assert notebook["metadata"]["memagent"]["needs_data"] == ["locomo"]


def test_without_the_data_it_is_skipped_with_the_reason(clone: Path) -> None:
    shutil.copy(ROOT / "notebooks" / "02_retrieval.ipynb", clone / "notebooks")
    done = _pytest(clone, "02_retrieval.ipynb")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 skipped" in done.stdout and "set MEMAGENT_LOCOMO" in done.stdout, done.stdout


def test_without_the_data_in_ci_it_fails_loudly(clone: Path) -> None:
    shutil.copy(ROOT / "notebooks" / "02_retrieval.ipynb", clone / "notebooks")
    done = _pytest(clone, "02_retrieval.ipynb", CI="true")
    assert done.returncode != 0
    assert "CI=true and locomo data not found" in done.stdout, done.stdout[-3000:]


def test_a_variable_naming_no_file_fails_even_outside_ci(clone: Path, tmp_path: Path) -> None:
    done = _pytest(clone, "stand_in.ipynb", MEMAGENT_LOCOMO=str(tmp_path / "nope.json"))
    assert done.returncode != 0 and "is not a file" in done.stdout, done.stdout[-3000:]


def test_the_data_reaches_the_kernel(clone: Path, tmp_path: Path) -> None:
    given = tmp_path / "elsewhere.json"
    given.write_text("[]")
    done = _pytest(clone, "stand_in.ipynb", MEMAGENT_LOCOMO=str(given), CI="true")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]
    beside = tmp_path / "shared" / "data" / "locomo" / "locomo_dev.json"  # ../shared
    beside.parent.mkdir(parents=True)
    beside.write_text("[]")
    done = _pytest(clone, "stand_in.ipynb", CI="true")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]
