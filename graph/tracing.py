"""Per-node timing: every node logs the turn's trace id, its name and its time in ms.

Applied once in ``build_graph`` so node code stays free of logging boilerplate;
the log line is the same whichever implementation fills a slot.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

logger = logging.getLogger("memagent.trace")

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
