"""The wire format between the CLI and the service, and what makes two settings equal.

One request per connection: the client sends one JSON line ``{"v", "op", "args",
"settings"}`` and reads JSON lines until the last one: ``ok`` (with ``data``),
``error`` (``message``, ``code``, ``saved``) or ``mismatch`` (``fields``, ``busy``).
Before it, a turn sends ``saved`` once its message is checkpointed, ``note`` lines and
``token`` lines (the reply as it is generated). A client that closes its end cancels
its request. ``settings`` is a digest per setting, never the values: secrets do not
travel, and the service names the settings that differ from its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memagent.graph.settings import Settings

VERSION = 1
MAX_LINE = 64 * 1024 * 1024
"""Longest line either side reads (an export of a large scope is one line)."""

LOCAL_ONLY = frozenset({"service", "service_idle_s"})
"""Settings of the client alone: a service with other values serves it all the same."""

FINAL = frozenset({"ok", "error", "mismatch"})


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, default=str).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    value = json.loads(line)
    if not isinstance(value, dict):
        raise ValueError("a protocol line must be a JSON object")
    return value


def _plain(value: Any) -> Any:
    """A JSON-ready value with secrets revealed (they are hashed or passed by env)."""
    if hasattr(value, "get_secret_value"):
        return value.get_secret_value()
    if isinstance(value, Path):
        return str(value)
    return value


def for_service(settings: Settings) -> Settings:
    """The same settings with every path absolute: the service runs elsewhere (its cwd is
    its runtime dir), so ``MEMAGENT_HOME=./data`` must mean the client's ``./data``."""
    update: dict[str, Any] = {"home": settings.home.expanduser().resolve()}
    if settings.gguf_path is not None:
        update["gguf_path"] = settings.gguf_path.expanduser().resolve()
    update["model_dir"] = settings.model_dir.expanduser().resolve()
    location = settings.store_location
    if location and "://" not in location and location != ":memory:":
        update["store_location"] = str(Path(location).expanduser().resolve())
    return settings.model_copy(update=update)


def _code_version() -> str:
    """The installed memagent's version: a service left running across an upgrade is
    restarted (when idle) rather than serving new clients with old code."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memagent")
    except PackageNotFoundError:
        return "unknown"


_CODE = ("core", "graph", "llm", "memory", "nodes", "prompts", "stores")


def _code_digest() -> str:
    """Path, size and mtime of every module the service runs: a service left running while
    its code changed under the same version (an editable install being worked on, a
    ``git pull``) is restarted like one left running across an upgrade. A few ms of
    ``stat`` calls, no import."""
    from importlib.util import find_spec

    digest = hashlib.sha256()
    for name in _CODE:
        spec = find_spec(f"memagent.{name}")
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for root, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for f in sorted(f for f in files if f.endswith(".py")):
                    with contextlib.suppress(OSError):
                        st = os.stat(os.path.join(root, f))
                        digest.update(f"{root}/{f}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _home_identity(home: Path) -> str:
    """Which directory the home is (device and inode), created first when missing (the
    service would create it): a home deleted and made again while its service still runs
    is another home, so that service (holding the deleted files) is restarted, never
    left to write where nobody can read."""
    try:
        home.mkdir(parents=True, exist_ok=True)
        st = home.stat()
    except OSError as exc:
        return f"unavailable: {type(exc).__name__}"
    return f"{st.st_dev}:{st.st_ino}"


def fingerprint(settings: Settings) -> dict[str, str]:
    """A short digest of every setting that changes what the service does, plus the
    protocol and package versions, the code and which directory the home is
    (``differing`` names them like settings)."""
    out: dict[str, str] = {
        "protocol": str(VERSION),
        "memagent version": _code_version(),
        "memagent code": _code_digest(),
        "home directory": _home_identity(Path(settings.home).expanduser()),
    }
    for name in type(settings).model_fields:
        if name in LOCAL_ONLY:
            continue
        raw = json.dumps(_plain(getattr(settings, name)), sort_keys=True, default=str)
        out[name] = hashlib.sha256(raw.encode()).hexdigest()[:16]
    return out


def differing(mine: dict[str, str], theirs: dict[str, Any]) -> list[str]:
    """Names of the settings whose digests differ (a missing one differs)."""
    return sorted(
        name for name in mine.keys() | theirs.keys() if mine.get(name) != theirs.get(name)
    )


def settings_env(settings: Settings) -> dict[str, str]:
    """``MEMAGENT_*`` variables that make ``Settings()`` in the service equal ``settings``.

    Passed in the service's environment (readable by this user only), so every part of
    the service, even one that reads the process-wide settings, sees the client's.
    """
    env: dict[str, str] = {}
    for name in type(settings).model_fields:
        value = _plain(getattr(settings, name))
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        env[f"MEMAGENT_{name.upper()}"] = str(value)
    return env
