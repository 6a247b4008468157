"""Channel reducers of ``State``: pure functions over plain dicts and lists."""

from __future__ import annotations

from typing import Any


def reduce_working(current: dict[str, Any] | None, update: dict[str, Any] | None) -> dict:
    """Channel reducer for ``State.working``: compare-and-set on ``version``.

    An update whose version is not newer than the stored one is a stale
    writer's and is dropped, so two turns racing on one thread cannot undo
    each other's slots.
    """
    if not update:
        return current or {}
    if not current:
        return update
    return update if int(update.get("version", 0)) > int(current.get("version", 0)) else current
