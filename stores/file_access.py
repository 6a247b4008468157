"""Reading a home that cannot be written, and saying which file is in the way.

Commands that only read (``memories list``, ``sessions list``, ``jobs status``...) must
work on a read-only home: a backup mounted read-only, another user's data shared with
read permission. SQLite opens such a file with a read-only URI; a database in WAL mode
needs its ``-shm`` file, which a read-only directory cannot hold, so the second try is
``immutable=1`` (SQLite then takes no locks at all: right for a directory nobody can
write, where nothing can change under the reader).

Commands that write fail with ``StorageError``, one line naming the file or directory
and why (``unwritable_reason``), instead of SQLite's "unable to open database file".
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from pathlib import Path
from typing import Any


class StorageError(RuntimeError):
    """A file of the home cannot be opened as needed; the message names it and why."""


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing ancestor."""
    target = path
    while not target.exists() and target.parent != target:
        target = target.parent
    return target


def _blocker(path: Path) -> tuple[Path, str] | None:
    """(what is in the way, why) when ``path`` cannot be written, else None."""
    targets = [path] if path.exists() else []
    directory = path if path.is_dir() else path.parent
    targets.append(_existing(directory))
    for target in targets:
        if not target.is_dir() and target != path:
            return target, "is not a directory"
        if os.access(target, os.W_OK):
            continue
        try:
            read_only_fs = bool(os.statvfs(target).f_flag & os.ST_RDONLY)
        except OSError:
            read_only_fs = False
        if read_only_fs:
            return target, "is on a read-only file system"
        return target, "is not writable (permission denied)"
    return None


def unwritable_reason(path: str | Path) -> str | None:
    """Why ``path`` (a file or directory, existing or still to be created) cannot be
    written, or None when it can. Checks the file and the directory that must hold it
    (SQLite writes ``-wal``/``-journal`` files beside a database)."""
    found = _blocker(Path(path))
    return None if found is None else f"{found[0]} {found[1]}"


def open_failure(path: str | Path, exc: BaseException, *, writing: bool = True) -> StorageError:
    """A ``StorageError`` naming ``path`` (and what is in the way) for a failed open."""
    verb = "write" if writing else "read"
    found = _blocker(Path(path)) if writing else None
    if found is not None:
        target, why = found
        where = "it" if target == Path(path) else str(target)
        return StorageError(f"cannot {verb} {path}: {where} {why}")
    text = str(exc).strip()
    return StorageError(
        f"cannot {verb} {path}: {text.splitlines()[0] if text else type(exc).__name__}"
    )


def require_writable(path: str | Path) -> None:
    """``StorageError`` naming what is in the way when ``path`` cannot be written (SQLite
    would open such a database read-only without a word and fail on the first write)."""
    if _blocker(Path(path)) is not None:
        raise open_failure(path, PermissionError())


def readonly_uri(path: str | Path, *, immutable: bool = False) -> str:
    """The SQLite URI that opens ``path`` read-only (never creating it)."""
    query = "mode=ro&immutable=1" if immutable else "mode=ro"
    return f"file:{urllib.parse.quote(str(Path(path).absolute()))}?{query}"


def connect_readonly(path: str | Path, **kwargs: Any) -> sqlite3.Connection:
    """A read-only connection to an existing database (``StorageError`` if it cannot be read).

    Tries a plain read-only open first (sees concurrent writers' commits), then
    ``immutable=1`` for a WAL database in a directory that cannot hold its ``-shm`` file.
    """
    if not Path(path).is_file():
        raise StorageError(f"cannot read {path}: no such file")
    last: Exception | None = None
    for immutable in (False, True):
        conn = sqlite3.connect(readonly_uri(path, immutable=immutable), uri=True, **kwargs)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            last = exc
    raise StorageError(f"cannot read {path}: {last}")


async def aconnect_readonly(path: str | Path) -> Any:
    """``connect_readonly`` for aiosqlite (the checkpointer's driver)."""
    import aiosqlite

    if not Path(path).is_file():
        raise StorageError(f"cannot read {path}: no such file")
    last: Exception | None = None
    for immutable in (False, True):
        conn = await aiosqlite.connect(readonly_uri(path, immutable=immutable), uri=True)
        try:
            async with conn.execute("SELECT count(*) FROM sqlite_master") as cursor:
                await cursor.fetchone()
            return conn
        except sqlite3.DatabaseError as exc:
            await conn.close()
            last = exc
    raise StorageError(f"cannot read {path}: {last}")
