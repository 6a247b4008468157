"""Run the import-layer contract (``[tool.importlinter]`` in pyproject.toml).

import-linter finds a package's files through its import path, and ``memagent`` is a
namespace of folders mapped by setuptools' ``package-dir`` (an editable install serves them
through an import hook that has no files to walk). So the contract is checked on a copy of
the sources laid out as installed (``memagent/<folder>/...``), with the same config.

Usage: ``python tests/support/lint_layers.py`` (exit status of ``lint-imports``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "llm", "stores", "memory", "prompts", "nodes", "graph", "evals")


@contextlib.contextmanager
def laid_out(root: Path = ROOT) -> Iterator[Path]:
    """A temporary copy of ``root``'s package folders laid out as installed
    (``<tmp>/memagent/<folder>/...``), for tools that walk files by import path."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in PACKAGES:
            shutil.copytree(
                root / name,
                Path(tmp) / "memagent" / name,
                ignore=shutil.ignore_patterns("__pycache__", "data"),
            )
        yield Path(tmp)


def lint_layers(root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over a copy of ``root``'s package folders; output captured."""
    with laid_out(root) as tmp:
        env = {**os.environ, "PYTHONPATH": str(tmp)}
        exe = Path(sys.executable).with_name("lint-imports")
        return subprocess.run(
            [str(exe), str(root / "pyproject.toml"), "--no-cache"],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )


if __name__ == "__main__":
    done = lint_layers()
    print(done.stdout + done.stderr, end="")
    sys.exit(done.returncode)
