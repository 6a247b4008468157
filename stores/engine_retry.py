"""Talking to a Qdrant server that may be slow or down: retries, backoff, fail-fast.

Every call of the server engine (``engine_client.ClientEngine`` with a URL) goes through
``Retrying``:

- a connection error (refused, reset before the request was sent, connect timeout) is
  retried with exponential backoff, for every call: the server never saw the request;
- a timeout or a lost response after the request was sent, or a 502/503/504 from a
  proxy, is retried for reads only. A write in that state may have been applied, so it
  is not blindly repeated here: it fails, and the caller's own idempotency takes over
  (the extraction job waits in the outbox and runs again; the write path recognises what
  it already wrote by record id and message ids);
- when the attempts are spent the call raises ``StoreUnavailableError`` (a
  ``ConnectionError``, which the worker treats as an outage: the job is released without
  spending an attempt) and the engine stays "down" for ``cooldown_s``: calls meanwhile
  fail at once with the same error instead of each waiting out its own timeouts, so a
  turn's recall degrades in milliseconds, not ``attempts x timeout``. The first call
  after the cool-down tries the server again.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx

READS = frozenset(
    {"collection_exists", "get_collection", "retrieve", "query_points", "scroll", "facet",
     "count", "get_collections"}
)  # fmt: skip
"""Client methods that change nothing on the server (safe to repeat after a timeout)."""
WRITES = frozenset(
    {"upsert", "delete", "set_payload", "create_collection", "create_payload_index",
     "delete_collection", "delete_payload_index", "overwrite_payload", "delete_payload"}
)  # fmt: skip
"""Client methods that change the server; other methods (``close``) are passed through."""

_CONNECT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, ConnectionRefusedError)
_AFTER_SEND = (httpx.TimeoutException, httpx.RemoteProtocolError, httpx.ReadError,
               httpx.WriteError, TimeoutError, ConnectionError)  # fmt: skip


class StoreUnavailableError(ConnectionError):
    """The Qdrant server cannot be reached now; replies degrade, jobs wait."""


@dataclass(frozen=True)
class RetryPolicy:
    """How hard one call tries (``MEMAGENT_QDRANT_RETRIES``) before the engine is down."""

    attempts: int = 3
    base_s: float = 0.2
    cap_s: float = 2.0
    cooldown_s: float = 10.0

    def backoff_s(self, attempt: int) -> float:
        """Delay after failed attempt ``attempt`` (1-based): base * 2**(n-1), capped, with
        up to 25% jitter so processes that lost the server together do not retry together."""
        delay = min(self.cap_s, self.base_s * 2 ** max(0, attempt - 1))
        return float(delay * (1 + random.random() / 4))


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        source = getattr(e, "source", None)  # qdrant-client's ResponseHandlingException
        todo += [e.__cause__, e.__context__, source if isinstance(source, BaseException) else None]


def failure_kind(exc: BaseException) -> Literal["connect", "after_send"] | None:
    """``connect`` (the request never reached the server), ``after_send`` (it may have),
    or None for an answer from the server (a bad request is no outage)."""
    chain = list(_chain(exc))
    if any(isinstance(e, _CONNECT) for e in chain):
        return "connect"
    if any(isinstance(e, _AFTER_SEND) for e in chain):
        return "after_send"
    status = getattr(exc, "status_code", None)
    return "after_send" if status in (502, 503, 504) else None


def _brief(exc: BaseException) -> str:
    inner = next((e for e in _chain(exc) if isinstance(e, _CONNECT + _AFTER_SEND)), exc)
    text = str(inner).strip() or type(inner).__name__
    return f"{type(inner).__name__}: {text}"[:200]


class Retrying:
    """A qdrant-client whose calls retry, back off and fail fast while the server is down."""

    def __init__(
        self,
        client: Any,
        *,
        where: str,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client, self.where = client, where
        self.policy = policy or RetryPolicy()
        self._sleep, self._clock = sleep, clock
        self._down_until = 0.0
        self._last_error = ""
        self._lock = threading.Lock()

    @property
    def down(self) -> bool:
        """Whether the server is in its cool-down after an outage (calls fail fast)."""
        return self._clock() < self._down_until

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._client, name)
        if name not in READS | WRITES:
            return fn
        return lambda *args, **kwargs: self.call(name, fn, *args, **kwargs)

    def call(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.down:
            wait = self._down_until - self._clock()
            raise StoreUnavailableError(
                f"Qdrant at {self.where} is unreachable ({self._last_error}); "
                f"next try in {wait:.0f} s"
            )
        attempts = max(1, self.policy.attempts)
        for attempt in range(1, attempts + 1):
            try:
                result = fn(*args, **kwargs)
            except Exception as exc:
                kind = failure_kind(exc)
                if kind is None:
                    raise
                retry = kind == "connect" or name in READS
                if retry and attempt < attempts:
                    self._sleep(self.policy.backoff_s(attempt))
                    continue
                with self._lock:
                    self._last_error = _brief(exc)
                    self._down_until = self._clock() + self.policy.cooldown_s
                raise StoreUnavailableError(
                    f"Qdrant at {self.where} is unreachable: {name} failed after {attempt} "
                    f"attempt(s) ({self._last_error})"
                ) from exc
            self._down_until = 0.0
            return result
        raise AssertionError("unreachable")  # pragma: no cover
