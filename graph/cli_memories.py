"""``memagent memories ...``, ``memagent forget`` and ``memagent maintain``.

``app`` is the ``memories`` sub-app; ``forget_cmd`` and ``maintain_cmd`` are
top-level commands (``app.command("forget")(forget_cmd)`` in the main CLI).

Every command is scoped by ``--user`` (and ``--customer`` where it applies) and
has ``--json``. ``add`` goes through the same write path as extraction, so a
manual memory is redacted, checked for instructions, deduplicated and versioned
exactly like an extracted one. Errors end in one line on stderr and a non-zero
exit code (2 for an unknown or ambiguous id, a bad scope or bad input).

Commands that only read (list, search, show, history, export, ``maintain --dry-run``)
open the store read-only, so they work on a read-only home. Ids are taken as any
unique prefix, so the shortened ids of the tables work. The logic of each command is
a ``memory_ops`` function over the store it is given; this module opens resources and
renders.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from langgraph.store.base import BaseStore
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memagent.graph.cli_errors import fail, one_line_errors
from memagent.graph.settings import Settings, get_settings
from memagent.nodes.extractors import candidate_from_text
from memagent.stores import memory_ops
from memagent.stores.forgetting import DecayPolicy, maintain
from memagent.stores.profile import compact_profile
from memagent.stores.records import RecordType
from memagent.stores.write_path import WriteConfig, write_memory

app = typer.Typer(no_args_is_help=True, help="Long-term memories: list, search, audit, edit.")

out = Console()
err = Console(stderr=True)

User = Annotated[str, typer.Option("--user", "-u", help="Salesperson id.")]
Customer = Annotated[str, typer.Option("--customer", "-c", help="Customer account id.")]
OptCustomer = Annotated[str | None, typer.Option("--customer", "-c", help="Customer account id.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]

MAX_ADD_CHARS = 4000
"""Longest text ``memories add`` takes (what the write path condenses into a record)."""

StoreOpener = Callable[..., contextlib.AbstractContextManager[BaseStore]]
"""``opener(settings, read_only=...)``: a context manager yielding the store."""


def _default_opener(
    settings: Settings, *, read_only: bool = False
) -> contextlib.AbstractContextManager[BaseStore]:
    from memagent.stores import open_store

    return open_store(settings.resolved_store_location(), settings=settings, read_only=read_only)


STORE_OPENER: StoreOpener = _default_opener
"""How commands open the store; tests swap in an in-memory store."""


@contextlib.contextmanager
def opened(*, read_only: bool = False) -> Iterator[BaseStore]:
    """The store (read-only for commands that only read), with every error a user can
    meet turned into one line and an exit code."""
    with one_line_errors(), STORE_OPENER(get_settings(), read_only=read_only) as store:
        yield store


def emit(data: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, default=str))
    else:
        render(data)


def _table(rows: list[dict[str, Any]]) -> None:
    table = Table("id", "customer", "status", "key", "v", "content")
    short = memory_ops.abbreviate([r["id"] for r in rows])
    for r in rows:
        cells = (short[r["id"]], r["customer_id"], r["status"], r["key"], r["version"])
        table.add_row(*(escape(str(c)) for c in (*cells, r["content"])))
    out.print(table)


def _record(r: dict[str, Any]) -> None:
    for k, v in r.items():
        out.print(f"[bold]{k}[/]: {escape(str(v))}", highlight=False)


@app.command("list")
def list_cmd(
    user: User,
    customer: OptCustomer = None,
    status: Annotated[str, typer.Option(help="active|deprecated|archived|pending|all")] = "active",
    as_json: JsonOpt = False,
) -> None:
    """Memories of a user (one customer or all), with their status and version."""
    if status not in ("active", "deprecated", "archived", "pending", "all"):
        fail(f"unknown status {status!r}", 2)
    with opened(read_only=True) as store:
        rows = memory_ops.list_memories(
            store, user, customer, status=None if status == "all" else status
        )
    emit(rows, as_json, _table)


@app.command("search")
def search_cmd(
    query: str,
    user: User,
    customer: Customer,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
    as_json: JsonOpt = False,
) -> None:
    """Active memories most relevant to QUERY."""
    with opened(read_only=True) as store:
        rows = memory_ops.search_memories(store, user, customer, query, limit=limit)
    emit(rows, as_json, _table)


@app.command("show")
def show_cmd(memory_id: str, user: User, customer: Customer, as_json: JsonOpt = False) -> None:
    """One memory with its provenance (session, messages, time, origin); MEMORY_ID may be
    any unique prefix of the id."""
    with opened(read_only=True) as store:
        row = memory_ops.show_memory(store, user, customer, memory_id)
    emit(row, as_json, _record)


@app.command("history")
def history_cmd(memory_id: str, user: User, customer: Customer, as_json: JsonOpt = False) -> None:
    """Every version of the memory's key, oldest first, with what superseded what."""
    with opened(read_only=True) as store:
        rows = memory_ops.history(store, user, customer, memory_id)
    emit(rows, as_json, _table)


@app.command("add")
def add_cmd(
    text: str,
    user: User,
    customer: Customer,
    type_: Annotated[RecordType | None, typer.Option("--type", help="Record type.")] = None,
    importance: Annotated[float | None, typer.Option(min=0.0, max=1.0)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Add a memory through the same write path as extraction."""
    if not text.strip():
        fail("the memory text is empty", 2)
    if len(text) > MAX_ADD_CHARS:
        fail(f"the memory text has {len(text)} characters; the limit is {MAX_ADD_CHARS}", 2)
    from memagent.stores.jobs import JobQueue

    with one_line_errors():
        cand = candidate_from_text(text)
        updates = {k: v for k, v in (("type", type_), ("importance", importance)) if v is not None}
        cand = cand.model_copy(update=updates)
        settings = get_settings()
        jobs = JobQueue.for_settings(settings)  # its lock serialises the write with workers
        config = WriteConfig.for_settings(settings)
    with opened() as store:
        res = write_memory(
            store, user, customer, cand, origin="manual", lock=jobs.lock, config=config
        )
        if res.action in ("created", "versioned"):  # as the worker does after extraction
            compact_profile(store, user, customer)
    data = {"stored": res.stored, "content": res.content, "reason": res.reason, "id": res.id,
            "action": res.action}  # fmt: skip

    def render(d: dict[str, Any]) -> None:
        if d["stored"]:
            text = escape(f"{d['action']}: {d['content']}")
            out.print(f"{text} [dim]({d['id']})[/]", highlight=False)
        else:
            out.print(f"not stored ({d['action']}): {d['reason']}", highlight=False, markup=False)

    emit(data, as_json, render)
    if res.action == "rejected":
        raise typer.Exit(1)


@app.command("delete")
def delete_cmd(
    memory_id: str,
    user: User,
    customer: Customer,
    all_versions: Annotated[
        bool, typer.Option("--all-versions", help="Delete the whole history.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete one memory (or every version of it) and what was derived from it: its lines
    in the customer's profile, the episode turns it came from, the working-memory slots,
    summary lines and recalled copies in the sessions' latest state. MEMORY_ID may be any
    unique prefix of the id. The conversation itself stays in its session (see forget)."""
    settings = get_settings()

    def scrub(sources: memory_ops.SessionSources, texts: list[str]) -> int:
        from memagent.graph.session_scrub import scrub_deleted_memory

        return asyncio.run(scrub_deleted_memory(user, customer, sources, texts, settings=settings))

    with opened() as store:
        rep = memory_ops.delete_memory(
            store, user, customer, memory_id, all_versions=all_versions, scrub_sessions=scrub
        )
    emit(rep, as_json, _render_delete)


def _render_delete(d: dict[str, Any]) -> None:
    out.print(
        f"deleted {len(d['deleted'])} record(s); profile {d['profile']}, "
        f"{d['episode_turns']} episode turn(s) removed, {d['sessions'] or 0} session(s) scrubbed",
        highlight=False,
    )


@app.command("export")
def export_cmd(
    user: User,
    customer: OptCustomer = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to a file.")] = None,
    as_json: JsonOpt = True,
) -> None:
    """Everything of a user (or one customer) as JSON: facts, episodes, profiles."""
    with opened(read_only=True) as store:
        data = memory_ops.export(store, user, customer)
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}")
    else:
        typer.echo(text)


# -- forget and maintain -----------------------------------------------------------


def _delete_sessions_hook(settings: Settings) -> Callable[[str, str | None], int] | None:
    """``memagent.graph.agent.delete_sessions(user, customer, settings=...)`` when it exists."""
    try:
        from memagent.graph import agent
    except ImportError:
        return None
    fn = getattr(agent, "delete_sessions", None)
    if fn is None:
        return None

    def hook(user_id: str, customer_id: str | None) -> int:
        res = fn(user_id, customer_id, settings=settings)
        if inspect.isawaitable(res):
            res = asyncio.run(res)  # type: ignore[arg-type]
        return int(res)

    return hook


def forget_cmd(
    user: User,
    customer: OptCustomer = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Remove records, episodes, profile, queued jobs and sessions of a user or customer."""
    scope = f"customer {customer!r} of user {user!r}" if customer else f"user {user!r}"
    with one_line_errors():
        from memagent.stores.namespaces import namespace

        namespace(user, customer)  # a bad id is an error before the question
    try:
        confirmed = yes or as_json or typer.confirm(f"Forget everything of {scope}?")
    except typer.Abort:  # no terminal to answer on (or Ctrl-C)
        confirmed = False
    if not confirmed:
        fail("not confirmed, nothing was forgotten (--yes skips the question)", 1)
    from memagent.stores.jobs import JobQueue

    with opened() as store:
        settings = get_settings()
        rep = memory_ops.forget(
            store,
            user,
            customer,
            jobs=JobQueue.for_settings(settings),
            delete_sessions=_delete_sessions_hook(settings),
        )
    emit(rep, as_json, _render_forget)


def _render_forget(d: dict[str, Any]) -> None:
    removed = ", ".join(f"{n} {kind}" for kind, n in d["removed"].items() if n) or "no records"
    scope = f"customer {d['customer_id']!r} of user {d['user_id']!r}"
    scope = scope if d["customer_id"] else f"user {d['user_id']!r}"
    out.print(
        f"forgot {scope}: {removed}; {d['jobs'] or 0} job(s), {d['sessions'] or 0} session(s)",
        highlight=False,
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
    policy = DecayPolicy(half_life_days=half_life_days, retention_days=retention_days)
    with opened(read_only=dry_run) as store:
        rep = maintain(store, user, customer, policy=policy, dry_run=dry_run).to_dict()

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
