"""How a CLI command runs a request: ``request(op, args)``, errors as one line.

Through the per-home service by default, in this process with ``MEMAGENT_SERVICE=off``
(``memagent.graph.service.backend``). Importing this loads no LangGraph, Qdrant or
embedder: a client command costs a Python start, Typer and one socket round trip.
"""

from __future__ import annotations

from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from memagent.graph.service.backend import Backend, OnEvent, open_backend
from memagent.graph.service.errors import Interrupted, OpError
from memagent.graph.settings import Settings, get_settings

err = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def saved_hint(retry: str) -> str:
    return f"your message is saved: retry with `{retry}`"


def print_note(event: dict[str, Any]) -> None:
    if event.get("t") == "note":
        err.print(f"[dim]{escape(str(event.get('text', '')))}[/]", highlight=False)


def call(b: Backend, op: str, args: dict[str, Any] | None = None, *,
         on_event: OnEvent | None = None, retry: str | None = None) -> Any:  # fmt: skip
    """``b.call`` with every failure turned into one line on stderr and an exit code.

    ``retry`` is how the user finishes a turn whose message was kept (``--retry ...``).
    """

    def events(event: dict[str, Any]) -> None:
        print_note(event)
        if on_event is not None:
            on_event(event)

    try:
        return b.call(op, args, events)
    except OpError as exc:
        hint = f"; {saved_hint(retry)}" if exc.saved and retry else ""
        fail(f"{exc.message}{hint}", exc.code)
    except Interrupted as exc:
        hint = f": {saved_hint(retry)}" if exc.saved and retry else ""
        fail(f"interrupted{hint}", 130)


def open_or_fail(settings: Settings) -> Backend:
    """The backend for ``settings``, or one line and an exit code when it cannot be had."""
    try:
        return open_backend(settings)
    except OpError as exc:
        fail(exc.message, exc.code)


def request(op: str, args: dict[str, Any] | None = None, *,
            on_event: OnEvent | None = None, retry: str | None = None) -> Any:  # fmt: skip
    """One request with this process's settings (a fresh backend, closed after)."""
    b = open_or_fail(get_settings())
    try:
        return call(b, op, args, on_event=on_event, retry=retry)
    finally:
        b.close()
