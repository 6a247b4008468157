"""The TTL sweeper thread: deletes expired items every few minutes.

Expired items are already invisible to reads (every read checks ``expires_at``);
sweeping only reclaims space, so best effort on a daemon thread is enough.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
from collections.abc import Callable

from memagent.core.log_redaction import memagent_logger

log = memagent_logger(__name__)


class TTLSweeper:
    """Runs ``sweep()`` every ``interval_minutes`` until stopped."""

    def __init__(self, sweep: Callable[[], int], interval_minutes: float) -> None:
        if interval_minutes <= 0:
            raise ValueError("sweep interval must be > 0 minutes")
        self._sweep = sweep
        self._interval = interval_minutes * 60.0
        self._stop = threading.Event()
        self._done: cf.Future[None] = cf.Future()
        self._thread = threading.Thread(target=self._loop, name="memagent-ttl-sweeper", daemon=True)

    def start(self) -> cf.Future[None]:
        """Start once; the future resolves when the thread ends."""
        if not self._thread.is_alive() and not self._done.done():
            self._thread.start()
        return self._done

    def stop(self, timeout: float | None = None) -> bool:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _loop(self) -> None:
        try:
            while not self._stop.wait(self._interval):
                try:
                    self._sweep()
                except Exception:  # a failed sweep is retried next interval
                    log.exception("TTL sweep failed")
        finally:
            self._done.set_result(None)
