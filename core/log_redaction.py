"""PII redaction of memagent's log records, whoever configures logging.

memagent's modules get their loggers from ``memagent_logger(__name__)``: the standard
``logging.getLogger`` with one shared ``logging.Filter`` added to that logger. A logger's
filters see every record created on it before any handler does — the CLI's, a library
user's ``basicConfig``, ``langgraph dev``'s structlog handler — so memagent's records are
redacted whoever emits them, and nobody else's are touched. (A filter on the ``memagent``
logger alone would not do: filters do not run for records propagated up from children, so
each of our loggers carries it.) Importing memagent changes nothing global: no log-record
factory, no handler, no level; it only adds this filter to its own loggers.

The key is the install's (the write path's, so a value gets the same token in memories and
logs). The composition roots load and pin it where blocking is fine (the CLI at start, the
Studio factory and ``aopen_agent`` in a thread); until then a per-process key redacts
(tokens stable within the process only). This module never reads settings.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from memagent.core.redact import redact_record
from memagent.core.redaction_key import load_or_create_key, process_key

LOGGER_PREFIX = "memagent"

KeySource = Callable[[], bytes]


class RedactionFilter(logging.Filter):
    """Redacts a record's message, traceback and stack in place; never drops a record.

    The key comes from a source resolved at most once (until a new one is pinned); a
    record logged while it resolves is redacted with a per-process key, not in clear.
    """

    def __init__(self, source: KeySource = process_key) -> None:
        super().__init__()
        self.source: KeySource = source
        self.key: bytes | None = None
        self.pinned = False
        self._lock = threading.RLock()
        self._resolving = False

    def pin(self, key: bytes | KeySource) -> None:
        with self._lock:
            self.source = (lambda: key) if isinstance(key, bytes) else key
            self.key = key if isinstance(key, bytes) else None
            self.pinned = True

    def current_key(self) -> bytes:
        if self.key is not None:
            return self.key
        with self._lock:
            if self.key is not None:
                return self.key
            if self._resolving:  # a record logged while the key loads: redact, don't recurse
                return process_key()
            self._resolving = True
            try:
                self.key = self.source()
            except Exception as exc:
                # Tokens then only stay stable within this process; PII still never leaks.
                self.key = process_key()
                log.warning("redaction key unavailable (%s); using a per-process key", exc)
            finally:
                self._resolving = False
            return self.key

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record, key=self.current_key())
        return True


REDACTION = RedactionFilter()
"""The one filter on every memagent logger."""


def memagent_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` for a memagent module, its records redacted. Idempotent."""
    if name != LOGGER_PREFIX and not name.startswith(LOGGER_PREFIX + "."):
        raise ValueError(f"{name!r} is not a memagent logger name")
    logger = logging.getLogger(name)
    if REDACTION not in logger.filters:
        logger.addFilter(REDACTION)
    return logger


def pin_redaction_key(key: bytes | KeySource) -> None:
    """Redact with ``key`` (bytes, or a function returning them) from now on."""
    REDACTION.pin(key)


def use_key_file(path: Path, *, replace: bool = True) -> bytes:
    """Load (or create) the key file and pin it; blocking, so call it where that is fine.

    ``replace=False`` keeps a key pinned earlier (the first composition root wins). If the
    file cannot be read or created, a per-process key still redacts, with a warning.
    """
    if not replace and REDACTION.pinned:
        return REDACTION.current_key()
    try:
        key = load_or_create_key(path)
    except (OSError, ValueError) as exc:
        key = process_key()
        log.warning("redaction key unavailable (%s); using a per-process key", exc)
    pin_redaction_key(key)
    return key


memagent_logger(LOGGER_PREFIX)  # records logged on the package's own logger, too
log = memagent_logger(__name__)
