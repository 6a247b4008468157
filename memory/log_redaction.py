"""PII redaction of memagent's log records, whoever configures logging.

A library user's ``logging.basicConfig`` handler, or ``langgraph dev``'s, never carries the
CLI's handler filters. A filter on the ``memagent`` logger is no help either: a logger's
filters run only for records created on that very logger, not for records propagated up from
``memagent.graph.worker`` and the other children. The log-record factory is the one hook every
record passes through before any logger filter or handler sees it, so it is wrapped once per
process, by whatever assembles the app (the CLI, ``aopen_agent``/``open_agent``, the Studio
graph and store: ``memagent.graph.tracing.pin_redaction_key``; a library user without those
calls ``install_record_redaction`` itself). Importing memagent never wraps it. It redacts the
records of ``memagent`` and its children; other libraries' records pass untouched.

The key is a per-process one until the composition root pins the install's (the write
path's, so a value gets the same token in memories and logs): ``install_record_redaction``
with ``redact.install_key(settings.home)``, done by the CLI, the agent and the Studio graph.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from memagent.memory.redact import process_key, redact_record

LOGGER_PREFIX = "memagent"

KeySource = Callable[[], bytes]


class _RecordRedactor:
    """The wrapped factory and its key, resolved lazily and at most once per key source."""

    def __init__(self) -> None:
        self.previous: Callable[..., logging.LogRecord] | None = None
        self.source: KeySource = process_key
        self.key: bytes | None = None
        self.lock = threading.RLock()
        self.resolving = False

    def current_key(self) -> bytes:
        if self.key is not None:
            return self.key
        with self.lock:
            if self.key is not None:
                return self.key
            if self.resolving:  # a record logged while the key loads: redact, don't recurse
                return process_key()
            self.resolving = True
            try:
                self.key = self.source()
            except Exception as exc:
                # Tokens then only stay stable within this process; PII still never leaks.
                self.key = process_key()
                logging.getLogger(__name__).warning(
                    "redaction key unavailable (%s); using a per-process key", exc
                )
            finally:
                self.resolving = False
            return self.key

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        assert self.previous is not None
        record = self.previous(*args, **kwargs)
        name = record.name  # None from ``logging.makeLogRecord`` (structlog's formatter)
        if isinstance(name, str) and (
            name == LOGGER_PREFIX or name.startswith(LOGGER_PREFIX + ".")
        ):
            redact_record(record, key=self.current_key())
        return record


_REDACTOR = _RecordRedactor()


def install_record_redaction(key: bytes | KeySource | None = None) -> None:
    """Redact every ``memagent.*`` log record at creation. Idempotent.

    The factory is wrapped on the first call only; a later call with ``key`` (bytes, or a
    function returning them) swaps the key, so the CLI can pin the one it has already loaded.
    A factory installed by someone else later wraps ours and keeps it in the chain.
    """
    with _REDACTOR.lock:
        if key is not None:
            _REDACTOR.source = (lambda: key) if isinstance(key, bytes) else key
            _REDACTOR.key = None
        if _REDACTOR.previous is None:
            _REDACTOR.previous = logging.getLogRecordFactory()
            logging.setLogRecordFactory(_REDACTOR)


def record_redaction_installed() -> bool:
    """Whether this process's memagent log records are redacted at creation."""
    return _REDACTOR.previous is not None
