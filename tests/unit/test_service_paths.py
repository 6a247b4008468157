"""Every terminal of a user finds the same service for a home, whatever its environment,
and nobody else can reach it."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from memagent.graph.service.paths import ServicePaths, runtime_root


def test_the_runtime_dir_does_not_follow_environment_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = runtime_root()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # a cron job, an IDE, sudo -u
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert runtime_root() == plain


def test_one_private_folder_per_home(tmp_path: Path) -> None:
    a, b = ServicePaths.for_home(tmp_path / "a"), ServicePaths.for_home(tmp_path / "b")
    assert a.dir != b.dir and a.dir.parent == b.dir.parent
    assert ServicePaths.for_home(tmp_path / "a" / ".." / "a").dir == a.dir
    assert stat.S_IMODE(a.dir.stat().st_mode) == 0o700
    assert not str(a.socket).startswith(str(tmp_path))
    assert len(str(a.socket)) < 100  # within the Unix socket path limit
