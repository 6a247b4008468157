"""Per-node timing: every node logs the turn's trace id, its name and its time in ms.

Applied once in ``build_graph`` so node code stays free of logging boilerplate;
the log line is the same whichever implementation fills a slot.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from memagent.memory.log_redaction import install_record_redaction
from memagent.memory.redact import RedactingFilter, install_key, load_or_create_key

logger = logging.getLogger("memagent.trace")
ROOT_LOGGER = "memagent"

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
    """Redact PII in log records before any handler emits them, with the install's key.

    Every ``memagent.*`` record is already redacted at creation (``memagent.stores`` wraps
    the log-record factory on import); this pins the key loaded from ``key_path`` for that,
    and also puts the filter on the root's handlers (``basicConfig``) and any on ``memagent``,
    so the CLI's own output is redacted for other libraries' records too. Idempotent. If the
    key file cannot be read or created, a throwaway key still redacts (tokens are then only
    stable within this process) rather than logging PII in clear.
    """
    try:
        key = load_or_create_key(key_path)
    except (OSError, ValueError) as exc:
        key = secrets.token_bytes(32)
        logger.warning("redaction key unavailable (%s); using a per-process key", exc)
    install_record_redaction(key)
    current = RedactingFilter(key=key)
    ours = logging.getLogger(ROOT_LOGGER)
    for target in (ours, *ours.handlers, *logging.getLogger().handlers):
        if not any(isinstance(f, RedactingFilter) for f in target.filters):
            target.addFilter(current)
    return current


def pin_redaction_key(home: Path) -> None:
    """Redact memagent's log records with the install's key under ``home`` (read on the
    first record that needs it), so a value gets the same token in logs as in memories.
    Called where the app is assembled: the agent, the Studio store and graph."""
    install_record_redaction(lambda: install_key(home))
