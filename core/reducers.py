"""Channel reducers of ``State``: pure functions over plain dicts and lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final


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


RESET: Final = "__reset__"
"""Leading marker of a ``degraded`` update that starts a new turn's list (see ``add_notes``)."""


def add_notes(current: Sequence[str] | None, update: Sequence[str] | None) -> list[str]:
    """Channel reducer for per-turn note lists such as ``State.degraded``.

    Nodes return only the notes they add; the reducer appends them in order and
    drops repeats, so nodes that run in one turn never overwrite each other. The
    channel is checkpointed with the thread, so without a reset it would grow over
    every turn: an update that starts with ``RESET`` (``fresh_notes``) replaces the
    list instead. The first node of every turn sends one, so the list names only
    the current turn's failures.
    """
    items = list(update or [])
    if items and items[0] == RESET:
        return list(dict.fromkeys(n for n in items[1:] if n != RESET))
    return list(dict.fromkeys([*(current or []), *(n for n in items if n != RESET)]))


def fresh_notes(*notes: str) -> list[str]:
    """A ``degraded`` update that starts this turn's list with ``notes``."""
    return [RESET, *notes]
