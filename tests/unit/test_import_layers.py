"""The layering of DESIGN.md holds: every import points down (import-linter contract)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from lint_layers import lint_layers  # noqa: E402


def test_layers_only_import_downward() -> None:
    done = lint_layers()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout
