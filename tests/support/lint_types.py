"""Type-check the packages as one program (mypy over the installed layout).

Run on the folders themselves, mypy sees ``memagent.<folder>`` imports as missing
(the editable install serves them through an import hook) and, with
``ignore_missing_imports``, types every cross-package call as ``Any``. So, like the
import contract, the check runs on a copy laid out as installed (``memagent/<folder>``),
where every call between packages is checked.

Usage: ``python tests/support/lint_types.py`` (exit status of mypy).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lint_layers import ROOT, laid_out


def lint_types(root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """mypy over a laid-out copy of ``root``'s packages, with the project's config."""
    with laid_out(root) as tmp:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--config-file",
                str(root / "pyproject.toml"),
                "--namespace-packages",
                "--explicit-package-bases",
                "--no-incremental",
                "memagent",
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )


if __name__ == "__main__":
    done = lint_types()
    print(done.stdout + done.stderr, end="")
    sys.exit(done.returncode)
