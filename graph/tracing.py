"""Per-node timing: every node logs the turn's trace id, its name and its time in ms.

Applied once in ``build_graph`` so node code stays free of logging boilerplate;
the log line is the same whichever implementation fills a slot.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from memagent.core.log_redaction import memagent_logger, use_key_file
from memagent.core.redact import RedactingFilter

logger = memagent_logger("memagent.trace")

AsyncNode = Callable[..., Awaitable[dict[str, Any]]]


def _trace_id(state: Any, update: dict[str, Any] | None) -> str:
    if update and update.get("trace_id"):
        return str(update["trace_id"])
    return str(getattr(state, "trace_id", "") or "-")


def traced(name: str, node: AsyncNode) -> AsyncNode:
    """Wrap an async node ``(state, runtime) -> dict`` so it logs trace id, name and ms."""

    async def wrapper(state: Any, runtime: Any) -> dict[str, Any]:
        start = time.perf_counter()
        update: dict[str, Any] | None = None
        try:
            update = await node(state, runtime)
            return update
        finally:
            ms = (time.perf_counter() - start) * 1000.0
            logger.info(
                "trace=%s node=%s ms=%.1f%s",
                _trace_id(state, update),
                name,
                ms,
                "" if update is not None else " failed",
            )

    # Not functools.wraps: LangGraph injects ``runtime`` by parameter name, and the
    # wrapper's own signature must be the one it inspects, whatever the node calls it.
    wrapper.__name__ = getattr(node, "__name__", name)
    wrapper.__doc__ = node.__doc__
    return wrapper


def install_log_redaction(key_path: Path) -> RedactingFilter:
    """The CLI's logging: redact with the install's key, also other libraries' records.

    memagent's own records are redacted by the filter on its loggers
    (``memagent.core.log_redaction``); this pins the key loaded from ``key_path`` for
    it and puts a ``RedactingFilter`` on the root's handlers (the CLI's ``basicConfig``),
    so nothing the CLI prints carries PII in clear. Idempotent. If the key file cannot be
    read or created, a throwaway key still redacts (tokens are then only stable within
    this process) rather than logging PII in clear.
    """
    current = RedactingFilter(key=use_key_file(key_path))
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(current)
    return current
