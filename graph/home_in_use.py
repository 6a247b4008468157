"""What to tell a user whose command finds the home's embedded store held by another
process (``StoreLockedError``): who holds it and what to do, in one line.

The embedded Qdrant store takes one process at a time (``memagent.stores.engine_edge``).
The CLI's commands share it through the home's service; Studio (``langgraph dev``),
``memagent worker`` and library use open it themselves. So a CLI command on a home that
Studio holds, or Studio on a home the CLI's service holds, cannot open it. The client
checks before it starts a service (``in_use``), so the command fails at once, naming
the holder, instead of after a service start that cannot succeed; the same words
explain a ``StoreLockedError`` raised anywhere else (``explain``). Stdlib only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memagent.stores.lock_owner import Holder, holder_of

if TYPE_CHECKING:
    from memagent.graph.settings import Settings

_SHARE = "or run both with MEMAGENT_STORE_SHARED=true (they take turns on the store)"


def advice(holder: Holder | None, home: str) -> str:
    """One line (under the CLI's 400 characters with a 200-character home): whose the
    home is and what the user can do about it."""
    if holder is None:
        return (
            f"MEMAGENT_HOME {home} is open in another process: stop it (`memagent service "
            "stop` for the CLI's service, Ctrl-C for `langgraph dev`), or use another "
            f"MEMAGENT_HOME, {_SHARE}"
        )
    who = holder.describe()
    if holder.kind == "service":
        return (
            f"MEMAGENT_HOME {home} is held by the CLI's memagent service, {who}: run "
            f"`memagent service stop` first, or use another MEMAGENT_HOME, {_SHARE}"
        )
    what = {"studio": "LangGraph Studio (`langgraph dev`)", "worker": "`memagent worker`"}
    return (
        f"MEMAGENT_HOME {home} is held by {what.get(holder.kind, 'another process')}, "
        f"{who}: stop it (Ctrl-C in its terminal, or `kill {holder.pid}`), or run the CLI "
        f"with another MEMAGENT_HOME, {_SHARE}"
    )


def _store_dir(settings: Settings) -> Path | None:
    location = settings.resolved_store_location()
    if settings.qdrant_url or location == ":memory:" or "://" in location:
        return None
    return Path(location).expanduser()


def in_use(settings: Settings) -> str | None:
    """``advice`` when another process holds the home's embedded store, else None: a
    store server, a shared store, nothing held, a holder that cannot be seen, or this
    home's service (one that is starting; the client waits for it)."""
    store = _store_dir(settings)
    if store is None or settings.store_shared:
        return None
    holder = holder_of(store / "LOCK")
    if holder is None or holder.kind == "service":
        return None
    return advice(holder, str(settings.home))


def explain(path: Path | None, holder: Holder | None) -> str:
    """``advice`` for a ``StoreLockedError`` on ``path`` (its home: the store's parent)."""
    if path is None:
        return advice(holder, "the home")
    return advice(holder, str(path.parent if path.name == "store" else path))
