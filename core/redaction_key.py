"""The redaction key: one secret per install, under the data home, or one per process.

Tokens (``redact.placeholder``) are HMACs keyed by it, so the same value gets the same
token in memories and logs for as long as the key file is kept. No secret lives in code.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

MIN_KEY_BYTES = 16

REDACTION_KEY_FILE = "redaction.key"
"""The install's key file, under the data home; one key for memories and logs alike."""


def install_key(home: Path) -> bytes:
    """The install's redaction key under the data home ``home`` (created on first use).

    The one place that knows where the key lives: the write path and the log-record
    redaction both load it here, so a value gets the same token in memories and logs."""
    return load_or_create_key(Path(home) / REDACTION_KEY_FILE)


def load_or_create_key(path: Path) -> bytes:
    """The per-install redaction key at ``path``, created (mode 0600) on first use.

    Tokens are only stable while the key is: losing the file means new tokens, not lost data.
    The file is written aside and hard-linked into place, so a concurrent first use by two
    processes ends with both reading the same complete key.
    """
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_bytes(32).hex())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process won the race: use its key
        finally:
            tmp.unlink()
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except ValueError as exc:
        raise ValueError(f"redaction key file {path} is not hex") from exc
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"redaction key file {path} holds fewer than {MIN_KEY_BYTES} bytes")
    return key


_PROCESS_KEY: list[bytes] = []


def process_key() -> bytes:
    """A throwaway key for this process, when no install key was given: PII is still
    replaced, but its tokens are only stable within the process."""
    if not _PROCESS_KEY:
        _PROCESS_KEY.append(secrets.token_bytes(32))
    return _PROCESS_KEY[0]
