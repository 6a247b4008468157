"""Where tests find the LoCoMo dev split: ``MEMAGENT_LOCOMO``, or ``../shared`` beside the repo.

Missing data skips the test with the reason, and fails it under ``CI=true`` so CI never
silently drops it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BESIDE = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"


def locomo_dev() -> Path:
    if os.environ.get("MEMAGENT_LOCOMO"):
        path = Path(os.environ["MEMAGENT_LOCOMO"]).expanduser()
        if not path.is_file():
            pytest.fail(f"MEMAGENT_LOCOMO={path} is not a file", pytrace=False)
        return path
    if BESIDE.is_file():
        return BESIDE
    reason = f"locomo data not found: set MEMAGENT_LOCOMO, or put it at {BESIDE}"
    if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)
