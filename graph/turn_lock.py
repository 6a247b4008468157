"""Turns of one session, one at a time across processes that share a home.

``session_lock`` (``memagent.memory.working_memory``) serialises turns on one event
loop; the per-home service runs every CLI turn on one loop, so it is enough there.
This lock covers the rest: two processes each with their own agent on one home
(``MEMAGENT_SERVICE=off``, notebooks, scripts; on the embedded store only with
``MEMAGENT_STORE_SHARED=true``). Without it both read the same checkpoint, and the
later one's checkpoints drop the other's message or reply.

An ``flock`` on one of ``STRIPES`` files under ``home/locks`` picked by the session id
(bounded files; two sessions rarely share one, and then only wait for each other).
Polled without blocking the event loop. A home where the lock cannot be created
(read-only) gets no lock: no turn can write there anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

STRIPES = 256
POLL_S = 0.02


def lock_path(directory: Path, session: str) -> Path:
    stripe = int(hashlib.sha256(session.encode()).hexdigest(), 16) % STRIPES
    return directory / f"turn-{stripe:03d}.lock"


@contextlib.asynccontextmanager
async def turn_lock(directory: Path, session: str) -> AsyncIterator[None]:
    """Hold the session's cross-process turn lock for the block."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path(directory, session), os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:
        yield
        return
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(POLL_S)
        yield
    finally:
        os.close(fd)
