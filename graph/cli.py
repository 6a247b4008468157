"""The ``memagent`` command line: chat, ask, sessions, doctor, graph, worker, llm serve.

Commands that touch the store, sessions or jobs are clients of this home's service
(``memagent.graph.service``; ``MEMAGENT_SERVICE=off`` runs them in this process), so
any number of terminals work on one home at once. Importing this module loads no
LangGraph, Qdrant or embedder: a client command stays cheap to start.

Every failure a user can cause or meet (unknown customer, empty or oversized message,
a dead LLM endpoint, a session of someone else) ends with one line on stderr and a
non-zero exit, never a traceback. A user message is checkpointed before the model is
called, so after an LLM failure ``memagent ask --retry --session S`` finishes the turn.
"""

from __future__ import annotations

import importlib
import json
import logging
import shlex
import shutil
import sys
import uuid
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memagent.core.errors import exception_chain
from memagent.graph import cli_customers, cli_jobs, cli_memories, cli_service
from memagent.graph.cli_backend import fail, open_or_fail, request
from memagent.graph.cli_chat import Chat, print_trace
from memagent.graph.cli_errors import OneLineErrors, describe
from memagent.graph.settings import Settings, get_settings, load_settings_lenient


class LazyGroup(OneLineErrors):
    """Sub-commands whose modules are heavy (``eval``: numpy, LangGraph, datasets) load
    when they are asked for, so the client commands start fast."""

    lazy = {"eval": ("memagent.evals.evaluation", "app")}
    """Loaded by module name, so the composition root never imports the evaluation layer
    above it; the eval group reads the settings itself (``load_settings``)."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.lazy if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attr = self.lazy[cmd_name]
            sub = typer.main.get_group(getattr(importlib.import_module(module), attr))
            sub.name = cmd_name
            self.add_command(sub, cmd_name)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="A sales assistant that remembers, on a local LLM.",
)
sessions_app = typer.Typer(no_args_is_help=True, help="Conversation sessions (threads).")
llm_app = typer.Typer(no_args_is_help=True, help="The local LLM server.")
app.add_typer(sessions_app, name="sessions")
app.add_typer(llm_app, name="llm")

out = Console()
err = Console(stderr=True)

User = Annotated[str, typer.Option("--user", "-u", help="Salesperson id.")]
Customer = Annotated[str, typer.Option("--customer", "-c", help="Customer account id.")]
SessionOpt = Annotated[str | None, typer.Option("--session", "-s", help="Session id.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]

app.add_typer(cli_memories.app, name="memories")
app.add_typer(cli_jobs.app, name="jobs")
app.add_typer(cli_customers.app, name="customers")
app.add_typer(cli_service.app, name="service")
app.command("forget")(cli_memories.forget_cmd)
app.command("maintain")(cli_memories.maintain_cmd)


def print_json(data: Any) -> None:
    """Plain JSON on stdout: no colour, no wrapping, whatever the terminal."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def llm_unavailable(exc: BaseException) -> bool:
    """A dead or unreachable model endpoint, whichever client layer raised it."""
    names = {
        "LLMUnavailableError",
        "APIConnectionError",
        "APITimeoutError",
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
    }
    return any(
        type(e).__name__ in names or isinstance(e, ConnectionError) for e in exception_chain(exc)
    )


def unavailable_reason(exc: BaseException) -> str:
    """The adapter's own words when it raised (they name the endpoint or the missing
    model), else a generic line naming the configured endpoint."""
    from memagent.llm.adapter import LLMUnavailableError

    for e in exception_chain(exc):
        if isinstance(e, LLMUnavailableError) and str(e).strip():
            return str(e).strip().splitlines()[0]
    where = get_settings().base_url or "the local LLM server"
    return f"LLM endpoint unreachable ({where})"


def explain(exc: BaseException, retry: str | None = None) -> tuple[str, int]:
    """One line for the user and an exit code, for any error of a turn."""
    from memagent.graph.agent import InvalidMessageError, SessionScopeError
    from memagent.memory.crm import UnknownScopeError
    from memagent.memory.namespaces import InvalidScopeError

    if isinstance(exc, InvalidMessageError | InvalidScopeError | UnknownScopeError):
        return str(exc), 2
    if isinstance(exc, SessionScopeError):
        return str(exc), 2
    if llm_unavailable(exc):
        hint = f"; your message is saved: retry with `{retry}`" if retry else ""
        return f"{unavailable_reason(exc)}{hint}", 3
    return describe(exc)


@app.callback()
def main_options(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log node timings.")] = False,
) -> None:
    # LangGraph's ToolRuntime is typed for dict state; ours is a dataclass. Harmless, noisy.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    logging.basicConfig(
        level=logging.INFO if verbose else logging.ERROR,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    get_settings.cache_clear()  # once per command: the environment as it is now
    from memagent.core.redact import REDACTION_KEY_FILE
    from memagent.graph.tracing import install_log_redaction

    # Lenient: an invalid setting is reported by the command that reads it (one line
    # naming the variable), or by doctor; ``--help`` works whatever the environment.
    install_log_redaction(load_settings_lenient()[0].home / REDACTION_KEY_FILE)


def check_scope(
    user: str, customer: str, message: str | None = None, session: str | None = None
) -> bool:
    """Reject bad input before the service (or anything heavy) is asked; True when the
    customer has a CRM record. The service checks again: this only saves a round trip."""
    from memagent.graph.validation import InvalidMessageError, validate_message, validate_session
    from memagent.memory.crm import UnknownScopeError, open_crm
    from memagent.memory.namespaces import InvalidScopeError

    known, problem = True, None
    try:
        if message is not None:
            validate_message(message)
        validate_session(session)
        crm = open_crm(get_settings().crm_location)
        try:
            known = crm.check_scope(user, customer) is not None
        finally:
            crm.close()
    except (InvalidMessageError, InvalidScopeError, UnknownScopeError) as exc:
        problem = str(exc)
    except Exception:  # an unreadable CRM: the service reports what it can
        pass
    if problem is not None:
        fail(problem, 2)
    return known


def retry_command(session: str, user: str, customer: str) -> str:
    return shlex.join(
        ["memagent", "ask", "--retry", "--session", session, "--user", user, "--customer", customer]
    )


@app.command()
def ask(
    message: Annotated[str | None, typer.Argument(help="The message (omit with --retry).")] = None,
    user: User = cli_memories.DEFAULT_USER,
    customer: Customer = "acme",
    session: SessionOpt = None,
    as_json: JsonOpt = False,
    retry: Annotated[
        bool, typer.Option("--retry", help="Finish the session's failed turn.")
    ] = False,
) -> None:
    """One turn, non-interactive."""
    if retry and session is None:
        fail("--retry needs --session", 2)
    if not retry and message is None:
        fail("a message is required", 2)
    check_scope(user, customer, None if retry else message, session)
    session = uuid.uuid4().hex[:12] if session is None else session

    def on_event(event: dict[str, Any]) -> None:
        from memagent.graph.cli_chat import TAKEN_NOTES

        if event.get("t") == "saved" and event.get("taken") in TAKEN_NOTES and not retry:
            err.print(f"[dim]({TAKEN_NOTES[event['taken']]})[/]", highlight=False)

    args = {"message": None if retry else message, "user": user, "customer": customer,
            "session": session}  # fmt: skip
    data = request("turn", args, on_event=on_event, retry=retry_command(session, user, customer))
    if as_json:
        print_json({k: v for k, v in data.items() if k not in ("recall_trace", "taken")})
        return
    out.print(data["reply"], highlight=False, markup=False)
    err.print(
        f"[dim]session {data['session']} · trace {data['trace_id']} · "
        f"{len(data['recalled'])} memories · {data['prompt_tokens']} prompt tokens[/]",
        highlight=False,
    )


@app.command()
def chat(
    user: User = cli_memories.DEFAULT_USER, customer: Customer = "acme", session: SessionOpt = None
) -> None:
    """Interactive chat; /help lists /why, /memories, /retry, /new, /quit."""
    known = check_scope(user, customer, session=session)
    b = open_or_fail(get_settings())
    try:
        Chat(b, user, customer, session, known=known).run()
    finally:
        b.close()


@sessions_app.command("list")
def sessions_list(
    user: Annotated[str | None, typer.Option("--user", "-u")] = None,
    customer: Annotated[str | None, typer.Option("--customer", "-c")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Sessions with their user, customer and number of turns."""
    rows = request("sessions.list", {"user": user, "customer": customer})
    if as_json:
        print_json(rows)
        return
    table = Table("session", "user", "customer", "turns", "last message")
    for r in rows:
        table.add_row(r["session"], r["user_id"], r["customer_id"], str(r["turns"]), r["last"])
    out.print(table)


@sessions_app.command("show")
def sessions_show(session: str, as_json: JsonOpt = False) -> None:
    """The messages of one session and its last recall trace."""
    data = request("sessions.show", {"session": session})
    if as_json:
        print_json(data)
        return
    for m in data["messages"]:
        extra = f" [dim](tools: {', '.join(m['tool_calls'])})[/]" if m["tool_calls"] else ""
        out.print(f"[bold]{m['role']}>[/] {m['content']}{extra}", highlight=False)
    print_trace(data.get("recall_trace") or {})


@llm_app.command("serve")
def llm_serve() -> None:
    """Run the local llama.cpp OpenAI-compatible server in the foreground."""
    from memagent.llm.server import serve_foreground

    try:
        code = serve_foreground(get_settings())
    except KeyboardInterrupt:
        code = 0
    except Exception as exc:
        fail(*explain(exc))
    if code:
        raise typer.Exit(code)


@app.command()
def worker() -> None:
    """Run the extraction worker in the foreground (for MEMAGENT_WORKER=external)."""
    from memagent.graph.jobs import open_queue
    from memagent.graph.worker import Worker
    from memagent.stores.pg import redact_url

    settings = get_settings()
    try:
        runner = Worker.for_settings(settings, queue=open_queue(settings))
        dsn = settings.database_dsn
        where = redact_url(dsn) if dsn else str(settings.jobs_path)
        err.print(f"[dim]worker draining {escape(where)}; Ctrl-C to stop[/]")
        runner.run_forever()
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        fail(*explain(exc))


@app.command("graph")
def draw_graph(
    out_file: Annotated[Path | None, typer.Option("--out", help=".mmd/.md text or .png")] = None,
) -> None:
    """The agent graph as Mermaid text (PNG only with pygraphviz; never a web service)."""
    from memagent.graph.builder import build_default_graph

    drawable = build_default_graph(get_settings()).compile(name="memagent").get_graph()
    if out_file is not None and out_file.suffix.lower() == ".png":
        try:
            drawable.draw_png(str(out_file))
        except ImportError:
            fail("PNG output needs pygraphviz; use --out FILE.mmd for Mermaid text")
        err.print(f"wrote {out_file}")
        return
    text = drawable.draw_mermaid()
    if out_file is None:
        out.print(text, highlight=False, markup=False)
    else:
        out_file.write_text(text, encoding="utf-8")
        err.print(f"wrote {out_file}")


@app.command()
def doctor() -> None:
    """Check settings, home, service, store, jobs, LLM endpoint and disk; say what is
    wrong and why."""
    import os

    from memagent.graph.settings import unknown_variables

    settings, problems = load_settings_lenient()
    rows = doctor_rows(settings, problems, unknown_variables(dict(os.environ)))
    table = Table("check", "status", "detail")
    for name, status, detail in rows:
        shown = {"ok": "ok", "warn": "[yellow]warn[/]"}.get(status, f"[red]{status}[/]")
        table.add_row(name, shown, escape(detail))
    out.print(table)
    if any(status not in ("ok", "warn") for _, status, _ in rows):
        raise typer.Exit(1)


def _service_rows(settings: Settings, *, local: bool) -> list[tuple[str, str, str]]:
    """``memagent doctor``'s service, store and jobs rows (through the service unless
    ``local``: then in this process)."""
    from memagent.graph.service.backend import InProcessBackend, open_backend
    from memagent.graph.service.client import ServiceClient
    from memagent.graph.service.errors import Interrupted, OpError

    rows: list[tuple[str, str, str]] = []
    if local:
        rows.append(("service", "ok", "off: commands run in their own process"))
    part = "store"
    try:
        b = InProcessBackend(settings) if local else open_backend(settings)
        try:
            rows.append(("store", "ok", str(b.call("store.check"))))
            part = "jobs"
            counts = b.call("jobs.status", {"limit": 1})["counts"]
            jobs = " ".join(f"{k}={v}" for k, v in counts.items())
            rows.append(("jobs", "warn" if counts.get("dead") else "ok", jobs))
        finally:
            b.close()
    except (OpError, Interrupted) as exc:
        why = exc.message if isinstance(exc, OpError) else "interrupted"
        where = "" if part == "jobs" else f"{settings.resolved_store_location()}: "
        rows.append((part, "fail", f"{where}{why}"))
    if not local:
        status = ServiceClient(settings).status()
        detail = (
            f"pid {status['pid']}, up {status['uptime_s']:.0f} s, stops after "
            f"{status['idle_stop_s']:.0f} s idle"
            if status
            else "not running (starts on demand)"
        )
        rows.append(("service", "ok", detail))
    return rows


def doctor_rows(
    settings: Settings, problems: list[str], unknown: list[str]
) -> list[tuple[str, str, str]]:
    """(check, status, detail) rows of ``memagent doctor``; status ok | warn | fail | low.

    The checks run on ``settings`` (invalid variables replaced by their defaults and
    listed in ``problems``; then in this process, since a service started now would read
    the same invalid environment) and never create anything in the home."""
    from memagent.graph.service.backend import in_process
    from memagent.stores.file_access import unwritable_reason

    rows: list[tuple[str, str, str]] = []
    rows.append(("settings", "fail", "; ".join(problems)) if problems else ("settings", "ok", ""))
    if unknown:
        rows.append(("settings", "warn", f"not a setting, ignored: {', '.join(unknown)}"))
    home = Path(settings.home)
    reason = unwritable_reason(home)
    if reason is None:
        rows.append(("home", "ok", str(home)))
    else:
        rows.append(("home", "fail", f"{reason}: read commands work, chat/ask/add cannot"))
    rows.append(
        (
            "nodes",
            "ok",
            f"rewriter={settings.rewriter} recall={settings.recall} "
            f"extractor={settings.extractor} worker={settings.worker}",
        )
    )
    from memagent.graph.doctor_backends import backend_rows, store_row

    rows += backend_rows(settings)
    rows.append(store_row(settings))
    rows += _service_rows(settings, local=bool(problems) or in_process(settings))
    try:
        from memagent.llm.adapter import check_llm

        ok, detail = check_llm(settings)
    except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
        ok, detail = False, explain(exc)[0]
    rows.append(("llm", "ok" if ok else "fail", detail))
    existing = home
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    free_gb = shutil.disk_usage(existing).free / 1e9
    rows.append(("disk", "low" if free_gb < 1.0 else "ok", f"{free_gb:.1f} GB free"))
    return rows


def main() -> None:
    """Console entry point (``memagent``)."""
    app()
