"""``memagent memories ...``, ``memagent forget`` and ``memagent maintain``.

``app`` is the ``memories`` sub-app; ``forget_cmd`` and ``maintain_cmd`` are
top-level commands (``app.command("forget")(forget_cmd)`` in the main CLI).

Every command is scoped by ``--user`` (and ``--customer`` where it applies) and
has ``--json``. The work runs where the store is (the per-home service, or this
process with ``MEMAGENT_SERVICE=off``: ``memagent.graph.service.ops``); this module
parses options and renders. ``add`` goes through the same write path as extraction,
so a manual memory is redacted, checked for instructions, deduplicated and versioned
exactly like an extracted one. Errors end in one line on stderr and a non-zero exit
code (2 for an unknown or ambiguous id, a bad scope or bad input). Ids are taken as any
unique prefix, so the shortened ids of the tables work. Reading works on a read-only
home; a write there fails naming the file in the way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memagent.graph.cli_backend import fail, request
from memagent.memory.id_prefix import abbreviate
from memagent.memory.records import RecordType

app = typer.Typer(no_args_is_help=True, help="Long-term memories: list, search, audit, edit.")

out = Console()
err = Console(stderr=True)

User = Annotated[str, typer.Option("--user", "-u", help="Salesperson id.")]
DEFAULT_USER = "demo-user"
"""The user ``ask`` and ``chat`` speak as when no ``--user`` is given: the memories
commands default to the same one, so a newcomer's first ``memories list`` shows what
their first ``ask`` stored."""
Customer = Annotated[str, typer.Option("--customer", "-c", help="Customer account id.")]
OptCustomer = Annotated[str | None, typer.Option("--customer", "-c", help="Customer account id.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def emit(data: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, default=str))
    else:
        render(data)


def _table(rows: list[dict[str, Any]]) -> None:
    reasons = any(r.get("reason") for r in rows)
    table = Table("id", "customer", "status", "key", "v", "content", *(["reason"] * reasons))
    short = abbreviate([r["id"] for r in rows])
    for r in rows:
        cells = (short[r["id"]], r["customer_id"], r["status"], r["key"], r["version"] or "")
        extra = [r.get("reason") or ""] if reasons else []
        table.add_row(*(escape(str(c)) for c in (*cells, r["content"], *extra)))
    out.print(table)


def _record(r: dict[str, Any]) -> None:
    for k, v in r.items():
        out.print(f"[bold]{k}[/]: {escape(str(v))}", highlight=False)


@app.command("list")
def list_cmd(
    user: User = DEFAULT_USER,
    customer: OptCustomer = None,
    status: Annotated[
        str, typer.Option(help="active|deprecated|archived|pending|quarantined|all")
    ] = "active",
    as_json: JsonOpt = False,
) -> None:
    """Memories of a user (one customer or all), with their status and version;
    ``--status quarantined`` shows what the injection screen kept out of recall, and why."""
    if status not in ("active", "deprecated", "archived", "pending", "quarantined", "all"):
        fail(f"unknown status {status!r}", 2)
    rows = request("memories.list", {"user": user, "customer": customer, "status": status})
    emit(rows, as_json, _table)


@app.command("search")
def search_cmd(
    query: str,
    customer: Customer,
    user: User = DEFAULT_USER,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
    as_json: JsonOpt = False,
) -> None:
    """Active memories most relevant to QUERY."""
    args = {"user": user, "customer": customer, "query": query, "limit": limit}
    emit(request("memories.search", args), as_json, _table)


@app.command("show")
def show_cmd(
    memory_id: str, customer: Customer, user: User = DEFAULT_USER, as_json: JsonOpt = False
) -> None:
    """One memory with its provenance (session, messages, time, origin); MEMORY_ID may be
    any unique prefix of the id."""
    row = request("memories.show", {"user": user, "customer": customer, "id": memory_id})
    emit(row, as_json, _record)


@app.command("history")
def history_cmd(
    memory_id: str, customer: Customer, user: User = DEFAULT_USER, as_json: JsonOpt = False
) -> None:
    """Every version of the memory's key, oldest first, with what superseded what."""
    rows = request("memories.history", {"user": user, "customer": customer, "id": memory_id})
    emit(rows, as_json, _table)


@app.command("add")
def add_cmd(
    text: str,
    customer: Customer,
    user: User = DEFAULT_USER,
    type_: Annotated[RecordType | None, typer.Option("--type", help="Record type.")] = None,
    importance: Annotated[float | None, typer.Option(min=0.0, max=1.0)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Add a memory through the same write path as extraction."""
    from memagent.graph.validation import InvalidMessageError, validate_memory_text

    try:
        validate_memory_text(text)
    except InvalidMessageError as exc:
        fail(str(exc), 2)
    args = {"user": user, "customer": customer, "text": text, "type": type_,
            "importance": importance}  # fmt: skip
    data = request("memories.add", args)

    def render(d: dict[str, Any]) -> None:
        if d["stored"]:
            text = escape(f"{d['action']}: {d['content']}")
            out.print(f"{text} [dim]({d['id']})[/]", highlight=False)
        elif d["action"] == "quarantined":
            out.print(
                f"quarantined as {d['id']} (kept out of recall; `memagent memories release "
                f"{d['id'][:14]}` to keep it): {d['reason']}",
                highlight=False,
                markup=False,
            )
        else:
            out.print(f"not stored ({d['action']}): {d['reason']}", highlight=False, markup=False)

    emit(data, as_json, render)
    if data["action"] in ("rejected", "quarantined"):
        raise typer.Exit(1)


@app.command("release")
def release_cmd(
    memory_id: str, customer: Customer, user: User = DEFAULT_USER, as_json: JsonOpt = False
) -> None:
    """Release a quarantined memory into recall (you vouch that it is a fact, not an
    instruction). MEMORY_ID is the id ``memories list --status quarantined`` shows, or any
    unique prefix of it."""
    rep = request("memories.release", {"user": user, "customer": customer, "id": memory_id})

    def render(d: dict[str, Any]) -> None:
        out.print(
            f"released {d['released']} into recall as {d['id']}: {d['content']}",
            highlight=False,
            markup=False,
        )

    emit(rep, as_json, render)


@app.command("delete")
def delete_cmd(
    memory_id: str,
    customer: Customer,
    user: User = DEFAULT_USER,
    all_versions: Annotated[
        bool, typer.Option("--all-versions", help="Delete the whole history.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete one memory (or every version of it) and what was derived from it: its line
    in the customer's profile, the exchange it came from in the episodes, and the
    working-memory slots, summary lines and recalled copies in the sessions' latest
    state. MEMORY_ID may be any unique prefix of the id. The conversation itself stays
    in its session (see forget)."""
    args = {"user": user, "customer": customer, "id": memory_id, "all_versions": all_versions}
    rep = request("memories.delete", args)
    emit(rep, as_json, _render_delete)


def _render_delete(d: dict[str, Any]) -> None:
    out.print(
        f"deleted {len(d['deleted'])} record(s); profile {d['profile']}, "
        f"{d['episode_turns']} transcript turn(s) and {d.get('episodes') or 0} episode(s) "
        f"removed, {d['sessions'] or 0} session(s) scrubbed",
        highlight=False,
    )


@app.command("export")
def export_cmd(
    user: User = DEFAULT_USER,
    customer: OptCustomer = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to a file.")] = None,
    as_json: JsonOpt = True,
) -> None:
    """Everything of a user (or one customer) as JSON: facts, episodes, profiles."""
    data = request("memories.export", {"user": user, "customer": customer})
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}")
    else:
        typer.echo(text)


# -- forget and maintain -----------------------------------------------------------


def forget_cmd(
    user: User,
    customer: OptCustomer = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Remove records, episodes, profile, queued jobs and sessions of a user or customer."""
    from memagent.memory.namespaces import InvalidScopeError, namespace

    scope = f"customer {customer!r} of user {user!r}" if customer else f"user {user!r}"
    try:
        namespace(user, customer)  # a bad id is an error before the question
    except InvalidScopeError as exc:
        fail(str(exc), 2)
    try:
        confirmed = yes or as_json or typer.confirm(f"Forget everything of {scope}?")
    except typer.Abort:  # no terminal to answer on (or Ctrl-C)
        confirmed = False
    if not confirmed:
        fail("not confirmed, nothing was forgotten (--yes skips the question)", 1)
    rep = request("forget", {"user": user, "customer": customer})
    emit(rep, as_json, _render_forget)


def _render_forget(d: dict[str, Any]) -> None:
    removed = ", ".join(f"{n} {kind}" for kind, n in d["removed"].items() if n) or "no records"
    scope = f"customer {d['customer_id']!r} of user {d['user_id']!r}"
    scope = scope if d["customer_id"] else f"user {d['user_id']!r}"
    out.print(
        f"forgot {scope}: {removed}; {d['jobs'] or 0} job(s), {d['sessions'] or 0} session(s)",
        highlight=False,
        markup=False,
    )
    if d["remaining"]:
        err.print(f"[yellow]warning:[/] {d['remaining']} item(s) remain", highlight=False)


def maintain_cmd(
    user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user.")] = None,
    customer: OptCustomer = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report, change nothing.")] = False,
    half_life_days: Annotated[float, typer.Option(min=0.1)] = 30.0,
    retention_days: Annotated[float, typer.Option(min=0.0)] = 180.0,
    as_json: JsonOpt = False,
) -> None:
    """Archive decayed memories, purge old versions, expire unconfirmed ones."""
    if customer and not user:
        fail("--customer needs --user", 2)
    args = {"user": user, "customer": customer, "dry_run": dry_run,
            "half_life_days": half_life_days, "retention_days": retention_days}  # fmt: skip
    rep = request("maintain", args)

    def render(d: dict[str, Any]) -> None:
        verb = "would " if d["dry_run"] else ""
        out.print(
            f"{d['scopes']} scope(s): {verb}archive {len(d['archived'])}, {verb}purge "
            f"{len(d['purged'])}, {verb}expire {len(d['expired_pending'])} pending; "
            f"{d['protected']} protected, {d['kept']} kept; {verb}refresh "
            f"{len(d['profiles'])} profile(s)"
        )
        for e in d["archived"] + d["purged"] + d["expired_pending"]:
            out.print(
                f"  {e['customer_id']} {e['id'][:12]} {e['content']}", highlight=False, markup=False
            )

    emit(rep, as_json, render)
