"""Where one home's service lives: a private runtime directory keyed by the home.

``/run/user/<uid>/memagent`` when the user has that directory, else
``/tmp/memagent-<uid>``: derived from the user id alone, not from environment variables
(``XDG_RUNTIME_DIR``, ``TMPDIR``) that a cron job, ``sudo -u`` or an IDE may set
differently, so every terminal of a user finds the same service. Created 0700 and
refused when another user owns it. Inside, one
folder per home (a digest of its resolved path, so the socket path stays short):
``service.sock`` (0600), ``service.lock`` (held by the running service for its whole
life), ``spawn.lock`` (held by a client while it starts one) and ``service.log``.
Stdlib only: the client imports this.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path


class RuntimeDirError(RuntimeError):
    """The runtime directory is missing, not ours, or open to other users."""


def _private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.lstat()
    if not stat.S_ISDIR(st.st_mode):
        raise RuntimeDirError(f"{path} is not a directory")
    if st.st_uid != os.getuid():
        raise RuntimeDirError(f"{path} belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def runtime_root() -> Path:
    """The per-user directory that holds every home's service files."""
    uid = os.getuid()
    run_user = Path(f"/run/user/{uid}")
    with contextlib.suppress(OSError):
        if run_user.stat().st_uid == uid and os.access(run_user, os.W_OK):
            return _private_dir(run_user / "memagent")
    tmp = Path("/tmp") if os.path.isdir("/tmp") else Path(tempfile.gettempdir())
    return _private_dir(tmp / f"memagent-{uid}")


def home_key(home: Path) -> str:
    return hashlib.sha256(str(home.expanduser().resolve()).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ServicePaths:
    """The files of one home's service."""

    dir: Path

    @classmethod
    def for_home(cls, home: Path) -> ServicePaths:
        return cls(_private_dir(runtime_root() / home_key(home)))

    @property
    def socket(self) -> Path:
        return self.dir / "service.sock"

    @property
    def lock(self) -> Path:
        return self.dir / "service.lock"

    @property
    def spawn_lock(self) -> Path:
        return self.dir / "spawn.lock"

    @property
    def log(self) -> Path:
        return self.dir / "service.log"
