"""Notebooks that need data the repository does not ship.

A notebook says what it needs in its metadata (``{"memagent": {"needs_data": ["locomo"]}}``).
Each data set is found through its environment variable, else in the development layout
beside the repository (``../shared/data/...``). When it is missing the notebook is skipped
with the reason, except in CI (``CI=true``), where the missing data fails the run: CI must
never silently lose a case. A variable that is set but names no file always fails (someone
asked for that file). The path found is handed to the notebook's kernel in the variable.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATASETS = {
    # name: (environment variable, path in the development layout beside the repository)
    "locomo": ("MEMAGENT_LOCOMO", ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"),
}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def needed_data(notebook: Path) -> list[str]:
    metadata = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
    return list(metadata.get("memagent", {}).get("needs_data", []))


def locate(name: str) -> tuple[Path | None, str]:
    """(the file, "") or (None, why it was not found)."""
    if name not in DATASETS:
        return None, f"unknown data set {name!r} in the notebook's metadata"
    variable, beside = DATASETS[name]
    if os.environ.get(variable):
        path = Path(os.environ[variable]).expanduser()
        if path.is_file():
            return path, ""
        pytest.fail(f"{variable}={path} is not a file", pytrace=False)
    if beside.is_file():
        return beside, ""
    return None, f"{name} data not found: set {variable}, or put it at {beside}"


_SAVED = pytest.StashKey[dict[str, str | None]]()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.path.suffix != ".ipynb":
        return
    saved: dict[str, str | None] = {}
    item.stash[_SAVED] = saved
    for name in needed_data(item.path):
        found, why = locate(name)
        if found is None:
            if in_ci():
                pytest.fail(f"CI=true and {why}", pytrace=False)
            pytest.skip(why)
        variable = DATASETS[name][0]
        saved[variable] = os.environ.get(variable)
        os.environ[variable] = str(found)  # the kernel inherits it


def pytest_runtest_teardown(item: pytest.Item) -> None:
    for variable, value in item.stash.get(_SAVED, {}).items():
        if value is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = value
