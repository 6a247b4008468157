"""Where one home's service lives: a private runtime directory keyed by the home.

``$XDG_RUNTIME_DIR/memagent`` when the session has one, else ``<tmp>/memagent-<uid>``;
created 0700 and refused when another user owns it or can write it. Inside, one
folder per home (a digest of its resolved path, so the socket path stays short):
``service.sock`` (0600), ``service.lock`` (held by the running service for its whole
life), ``spawn.lock`` (held by a client while it starts one) and ``service.log``.
Stdlib only: the client imports this.
"""

from __future__ import annotations

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
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isdir(xdg) and os.access(xdg, os.W_OK):
        return _private_dir(Path(xdg) / "memagent")
    return _private_dir(Path(tempfile.gettempdir()) / f"memagent-{os.getuid()}")


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
