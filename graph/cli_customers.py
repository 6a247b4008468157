"""``memagent customers add|list|show``: the accounts of the local CRM.

The CRM is not a gate (any valid customer id works in chat, ask and memories); a
record gives the tools a contact, an address, a stage and a deal to work with.
Errors end in one line on stderr: exit 2 for bad input, 1 for a CRM that cannot be
read or written.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memagent.graph.settings import get_settings
from memagent.memory.crm import (
    DEFAULT_CURRENCY,
    DEFAULT_STAGE,
    Crm,
    Customer,
    InvalidCustomerError,
    UnknownScopeError,
    new_customer,
    open_crm,
)
from memagent.memory.namespaces import InvalidScopeError

app = typer.Typer(no_args_is_help=True, help="Customer accounts in the local CRM.")
out = Console()
err = Console(stderr=True)
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@contextmanager
def crm() -> Iterator[Crm]:
    """The CRM of this home, with every error a user can meet as one line and an exit code."""
    book = open_crm(get_settings().crm_location)
    try:
        yield book
    except (InvalidCustomerError, InvalidScopeError, UnknownScopeError) as exc:
        fail(str(exc), 2)
    except (sqlite3.Error, OSError) as exc:
        fail(f"cannot use the CRM at {book.where}: {exc}")
    finally:
        book.close()


def emit(data: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False))
    else:
        render(data)


def _show(c: dict[str, Any]) -> None:
    for k, v in c.items():
        out.print(f"[bold]{k}[/]: ", end="")
        out.print(f"{v:,}" if isinstance(v, int) else str(v), highlight=False, markup=False)


@app.command("add")
def add_cmd(
    customer_id: Annotated[str, typer.Argument(metavar="ID", help="Account id, e.g. acme.com.")],
    name: Annotated[str, typer.Option("--name", help="Company name.")],
    contact: Annotated[str, typer.Option(help="Contact person, e.g. 'Li Wei (CTO)'.")] = "",
    email: Annotated[str, typer.Option(help="The contact's e-mail address.")] = "",
    stage: Annotated[str, typer.Option(help="Pipeline stage.")] = DEFAULT_STAGE,
    deal_size: Annotated[int, typer.Option("--deal-size", min=0, help="Deal value.")] = 0,
    currency: Annotated[str, typer.Option(help="3-letter currency code.")] = DEFAULT_CURRENCY,
    notes: Annotated[str, typer.Option(help="Free-text notes.")] = "",
    as_json: JsonOpt = False,
) -> None:
    """Add an account (a new prospect, say); an existing id is refused."""
    with crm() as db:
        added = db.add(
            new_customer(
                customer_id,
                name=name,
                contact=contact,
                email=email,
                stage=stage,
                deal_size=deal_size,
                currency=currency,
                notes=notes,
            )
        )
    emit(
        dataclasses.asdict(added),
        as_json,
        lambda c: out.print(f"added {c['id']}: {c['name']}", highlight=False, markup=False),
    )


def _table(rows: list[dict[str, Any]]) -> None:
    table = Table("id", "name", "contact", "stage", "deal")
    for c in rows:
        cells = (
            c["id"],
            c["name"],
            c["contact"],
            c["stage"],
            f"{c['deal_size']:,} {c['currency']}",
        )
        table.add_row(*map(escape, cells))
    out.print(table)


@app.command("list")
def list_cmd(as_json: JsonOpt = False) -> None:
    """Every account in the CRM (the demo accounts are seeded on first use)."""
    with crm() as db:
        rows = [dataclasses.asdict(c) for c in db.customers()]
    emit(rows, as_json, _table)


@app.command("show")
def show_cmd(
    customer_id: Annotated[str, typer.Argument(metavar="ID")], as_json: JsonOpt = False
) -> None:
    """One account with every field."""
    with crm() as db:
        found: Customer = db.customer(customer_id)
    emit(dataclasses.asdict(found), as_json, _show)
