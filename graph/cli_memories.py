"""``memagent memories ...``, ``memagent forget`` and ``memagent maintain``.

``app`` is the ``memories`` sub-app; ``forget_cmd`` and ``maintain_cmd`` are
top-level commands (``app.command("forget")(forget_cmd)`` in the main CLI).

Every command is scoped by ``--user`` (and ``--customer`` where it applies) and
has ``--json``. ``add`` goes through the same write path as extraction, so a
manual memory is redacted, checked for instructions, deduplicated and versioned
exactly like an extracted one. Errors end in one line on stderr and a non-zero
exit code (2 for an unknown id or a bad scope).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from langgraph.store.base import BaseStore
from rich.console import Console
from rich.table import Table

from memagent.core.settings import Settings
from memagent.graph.settings import get_settings
from memagent.memory import memory_ops
from memagent.memory.extractors import candidate_from_text
from memagent.memory.forgetting import DecayPolicy, maintain
from memagent.memory.namespaces import InvalidScopeError
from memagent.memory.records import RecordType
from memagent.memory.write_path import WriteConfig, write_memory

app = typer.Typer(no_args_is_help=True, help="Long-term memories: list, search, audit, edit.")

out = Console()
err = Console(stderr=True)

User = Annotated[str, typer.Option("--user", "-u", help="Salesperson id.")]
Customer = Annotated[str, typer.Option("--customer", "-c", help="Customer account id.")]
OptCustomer = Annotated[str | None, typer.Option("--customer", "-c", help="Customer account id.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]

StoreOpener = Callable[[Settings], contextlib.AbstractContextManager[BaseStore]]


def _default_opener(settings: Settings) -> contextlib.AbstractContextManager[BaseStore]:
    from memagent.stores import open_store

    return open_store(settings.resolved_store_location(), settings=settings)


STORE_OPENER: StoreOpener = _default_opener
"""How commands open the store; tests swap in an in-memory store."""


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@contextlib.contextmanager
def opened() -> Iterator[BaseStore]:
    """The store, with every error a user can meet turned into one line and an exit code."""
    try:
        with STORE_OPENER(get_settings()) as store:
            yield store
    except typer.Exit:
        raise
    except (InvalidScopeError, memory_ops.MemoryNotFoundError) as exc:
        fail(str(exc), 2)
    except Exception as exc:
        fail(f"{type(exc).__name__}: {exc}")


def emit(data: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, default=str))
    else:
        render(data)


def _table(rows: list[dict[str, Any]]) -> None:
    table = Table("id", "customer", "status", "key", "v", "content")
    for r in rows:
        table.add_row(
            r["id"][:12],
            r["customer_id"],
            str(r["status"]),
            r["key"],
            str(r["version"]),
            r["content"],
        )
    out.print(table)


def _record(r: dict[str, Any]) -> None:
    for k, v in r.items():
        out.print(f"[bold]{k}[/]: {v}", highlight=False)


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
    with opened() as store:
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
    with opened() as store:
        rows = memory_ops.search_memories(store, user, customer, query, limit=limit)
    emit(rows, as_json, _table)


@app.command("show")
def show_cmd(memory_id: str, user: User, customer: Customer, as_json: JsonOpt = False) -> None:
    """One memory with its provenance (session, messages, time, origin)."""
    with opened() as store:
        row = memory_ops.show_memory(store, user, customer, memory_id)
    emit(row, as_json, _record)


@app.command("history")
def history_cmd(memory_id: str, user: User, customer: Customer, as_json: JsonOpt = False) -> None:
    """Every version of the memory's key, oldest first, with what superseded what."""
    with opened() as store:
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
    cand = candidate_from_text(text)
    updates = {k: v for k, v in (("type", type_), ("importance", importance)) if v is not None}
    cand = cand.model_copy(update=updates)
    from memagent.graph.jobs import JobQueue

    settings = get_settings()
    jobs = JobQueue.for_settings(settings)  # its lock serialises the write with workers
    config = WriteConfig.for_settings(settings)
    with opened() as store:
        res = write_memory(
            store, user, customer, cand, origin="manual", lock=jobs.lock, config=config
        )
    data = {"stored": res.stored, "content": res.content, "reason": res.reason, "id": res.id,
            "action": res.action}  # fmt: skip

    def render(d: dict[str, Any]) -> None:
        if d["stored"]:
            out.print(f"{d['action']}: {d['content']} [dim]({d['id']})[/]", highlight=False)
        else:
            out.print(f"not stored ({d['action']}): {d['reason']}", highlight=False)

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
    """Delete one memory (or every version of it)."""
    with opened() as store:
        rep = memory_ops.delete_memory(store, user, customer, memory_id, all_versions=all_versions)
    emit(rep, as_json, lambda d: out.print(f"deleted {len(d['deleted'])} record(s)"))


@app.command("export")
def export_cmd(
    user: User,
    customer: OptCustomer = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to a file.")] = None,
    as_json: JsonOpt = True,
) -> None:
    """Everything of a user (or one customer) as JSON: facts, episodes, profiles."""
    with opened() as store:
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
    if not yes and not as_json and not typer.confirm(f"Forget everything of {scope}?"):
        raise typer.Exit(1)
    settings = get_settings()
    from memagent.graph.jobs import JobQueue

    with opened() as store:
        rep = memory_ops.forget(
            store,
            user,
            customer,
            jobs=JobQueue.for_settings(settings),
            delete_sessions=_delete_sessions_hook(settings),
        )
    emit(rep, as_json, lambda d: out.print_json(json.dumps(d, ensure_ascii=False)))


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
    with opened() as store:
        rep = maintain(store, user, customer, policy=policy, dry_run=dry_run).to_dict()

    def render(d: dict[str, Any]) -> None:
        verb = "would " if d["dry_run"] else ""
        out.print(
            f"{d['scopes']} scope(s): {verb}archive {len(d['archived'])}, {verb}purge "
            f"{len(d['purged'])}, {verb}expire {len(d['expired_pending'])} pending; "
            f"{d['protected']} protected, {d['kept']} kept"
        )
        for e in d["archived"] + d["purged"] + d["expired_pending"]:
            out.print(f"  {e['customer_id']} {e['id'][:12]} {e['content']}", highlight=False)

    emit(rep, as_json, render)
