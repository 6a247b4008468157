"""Run ``memagent`` commands on a home this process truly cannot write.

As an ordinary user the home is made read-only with ``chmod``; root ignores file
permissions, so as root the commands run in a private mount namespace where the home
is bind-mounted read-only (``unshare -m``: the file system then refuses every write,
whoever asks). Either way the commands run in one child process (``python -m
readonly_home ARGS_JSON``), each through ``CliRunner``, and come back as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _set_writable(root: Path, writable: bool) -> None:
    paths = [root, *root.rglob("*")]
    for path in sorted(paths, reverse=not writable):  # parents last when locking
        mode = path.stat().st_mode
        bits = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
        path.chmod(mode | stat.S_IWUSR if writable else mode & ~bits)


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return probe.returncode == 0


def how() -> str | None:
    """``chmod``, ``mount`` or None when this process cannot be kept from writing."""
    if os.geteuid() != 0:
        return "chmod"
    return "mount" if _can_unshare() else None


@contextmanager
def read_only(home: Path) -> Iterator[Any]:
    """A function ``run(list_of_argv) -> [(exit_code, stdout, stderr), ...]`` running the
    commands with ``home`` read-only."""
    mode = how()
    if mode is None:
        raise RuntimeError("root without unshare: cannot make a directory read-only")

    def run(commands: Sequence[Sequence[str]], env: dict[str, str]) -> list[list[Any]]:
        child = [sys.executable, str(HERE / "readonly_home.py"), json.dumps(list(commands))]
        if mode == "mount":
            script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
            child = [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                script,
                str(home),
                *child,
            ]
        done = subprocess.run(
            child, capture_output=True, text=True, env={**os.environ, **env}, timeout=600
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return list(json.loads(done.stdout.splitlines()[-1]))

    if mode == "chmod":
        _set_writable(home, False)
    try:
        yield run
    finally:
        if mode == "chmod":
            _set_writable(home, True)


def _main(commands: list[list[str]]) -> None:
    from typer.testing import CliRunner

    from memagent.graph.cli import app

    results = []
    for argv in commands:
        res = CliRunner().invoke(app, argv)
        crashed = res.exception is not None and not isinstance(res.exception, SystemExit)
        results.append(
            [res.exit_code, res.stdout, res.stderr + (repr(res.exception) if crashed else "")]
        )
    print(json.dumps(results))


if __name__ == "__main__":
    _main(json.loads(sys.argv[1]))
