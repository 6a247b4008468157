"""One line on stderr and a non-zero exit for every failure of every ``memagent`` command.

Commands turn the errors they expect into their own words (``fail``). Whatever else
escapes a command (a file that cannot be written, an invalid setting, a corrupt
database) is caught once, by the top-level group (``OneLineErrors``), and described by
``describe``: never a traceback. Click's usage errors (a missing option, a file that
does not exist) get the same one-line form, with the command's ``--help`` to try.

Exit codes: 1 a failure, 2 bad input or settings (usage), 3 the LLM endpoint
(``memagent.graph.cli.explain``), 130 interrupted.
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

err = Console(stderr=True)


def one_line(text: str, limit: int = 400) -> str:
    """``text`` flattened to one line of at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` (one line) on stderr and exit with ``code``."""
    err.print(f"[red]error:[/] {escape(one_line(message))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _bad_input() -> tuple[type[BaseException], ...]:
    """Errors that mean the user's input was wrong (exit code 2)."""
    from memagent.graph.cli_jobs import NotDeadError
    from memagent.graph.validation import InvalidMessageError
    from memagent.memory.id_prefix import AmbiguousIdError, IdNotFoundError
    from memagent.memory.memory_ops import InvalidQueryError
    from memagent.memory.namespaces import InvalidScopeError

    return (
        InvalidScopeError,
        InvalidMessageError,
        IdNotFoundError,
        AmbiguousIdError,
        InvalidQueryError,
        NotDeadError,
    )


def describe(exc: BaseException) -> tuple[str, int]:
    """One line and an exit code for an error no command anticipated."""
    from memagent.graph.settings import SettingsError
    from memagent.stores.engine_edge import StoreLockedError
    from memagent.stores.file_access import StorageError

    if isinstance(exc, SettingsError):
        return str(exc), 2
    if isinstance(exc, _bad_input()):
        return (str(exc.args[0]) if exc.args else str(exc)), 2
    if isinstance(exc, StorageError | StoreLockedError):
        return str(exc), 1
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.strerror or type(exc).__name__}: {exc.filename}", 1
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"invalid {where or 'value'}: {first['msg']}", 2
    if isinstance(exc, sqlite3.Error) or type(exc).__module__.startswith("psycopg"):
        return f"database error: {' '.join(str(exc).split())}", 1
    text = str(exc).strip()
    return (f"{type(exc).__name__}: {text}" if text else type(exc).__name__), 1


def _is_usage_error(exc: BaseException) -> bool:
    """Click's own errors (bad option, missing argument, no such command), recognised by
    their interface: typer ships its own copy of click, whose classes are not public."""
    return callable(getattr(exc, "format_message", None)) and isinstance(
        getattr(exc, "exit_code", None), int
    )


def _looks_like_text(exc: Any) -> bool:
    """A 'no such option' whose option has a space in it: a pasted text that starts with
    '-' (a forwarded mail's '---------- Forwarded message', a bullet), not a mistyped flag."""
    name = getattr(exc, "option_name", None)
    return type(exc).__name__ == "NoSuchOption" and isinstance(name, str) and " " in name.strip()


def _usage(exc: Any) -> int:
    """Print a usage error as one line (or the help, for a group called without a
    command); returns its exit code."""
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError":
        exc.show()  # the group's help, as click prints it
        return int(exc.exit_code)
    hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
    if _looks_like_text(exc) and ctx is not None:
        hint = (
            f": a text that starts with '-' goes after `--`, as in "
            f'`{ctx.command_path} ... -- "{exc.option_name[:20]}..."`'
        )
    text = escape(one_line(exc.format_message()) + hint)
    err.print(f"[red]error:[/] {text}", highlight=False, soft_wrap=True)
    return int(exc.exit_code)


@contextlib.contextmanager
def one_line_errors() -> Iterator[None]:
    """Every error of the block as one line (``describe``) and an exit code; for
    sub-apps that are also run on their own (tests invoke them without the top group)."""
    try:
        yield
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        fail(*describe(exc))


class OneLineErrors(TyperGroup):
    """The top-level group: usage errors and anything a command let escape become one
    line (``describe``) instead of a panel or a traceback."""

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except (typer.Abort, KeyboardInterrupt):
            err.print("[red]error:[/] interrupted", highlight=False)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, no trace
            if _is_usage_error(exc):
                sys.exit(_usage(exc))
            message, status = describe(exc)
            err.print(
                f"[red]error:[/] {escape(one_line(message))}", highlight=False, soft_wrap=True
            )
            sys.exit(status)
        sys.exit(code if isinstance(code, int) else 0)
