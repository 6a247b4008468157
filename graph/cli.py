"""The ``memagent`` command line: chat, ask, sessions, doctor, graph, worker, llm serve.

Every failure a user can cause or meet (unknown customer, empty or oversized message,
a dead LLM endpoint, a session of someone else) ends with one line on stderr and a
non-zero exit, never a traceback. A user message is checkpointed before the model is
called, so after an LLM failure ``memagent ask --retry --session S`` finishes the turn.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
import shutil
import sys
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memagent.core.errors import exception_chain
from memagent.graph import cli_customers, cli_jobs, cli_memories
from memagent.graph.settings import get_settings, load_settings

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
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
app.command("forget")(cli_memories.forget_cmd)
app.command("maintain")(cli_memories.maintain_cmd)


def print_json(data: Any) -> None:
    """Plain JSON on stdout: no colour, no wrapping, whatever the terminal."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


_chain = exception_chain


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
    return any(type(e).__name__ in names or isinstance(e, ConnectionError) for e in _chain(exc))


def unavailable_reason(exc: BaseException) -> str:
    """The adapter's own words when it raised (they name the endpoint or the missing
    model), else a generic line naming the configured endpoint."""
    from memagent.llm.adapter import LLMUnavailableError

    for e in _chain(exc):
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
    return f"{type(exc).__name__}: {exc}", 1


def run_async(make: Callable[[], Any], retry: str | None = None) -> Any:
    """Run a coroutine; any error becomes one line on stderr and an exit code."""
    try:
        return asyncio.run(make())
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except Exception as exc:
        message, code = explain(exc, retry)
        fail(message, code)


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
    settings = load_settings()  # once per command: the environment as it is now
    from memagent.core.redact import REDACTION_KEY_FILE
    from memagent.graph.tracing import install_log_redaction

    install_log_redaction(settings.home / REDACTION_KEY_FILE)


def check_scope(
    user: str, customer: str, message: str | None = None, session: str | None = None
) -> None:
    """Reject bad input before anything heavy (store, worker, model) is opened."""
    from memagent.graph.agent import validate_message, validate_session
    from memagent.memory.crm import Crm

    try:
        if message is not None:
            validate_message(message)
        validate_session(session)
        Crm(get_settings().crm_path).check_scope(user, customer)
    except Exception as exc:
        text, code = explain(exc)
        fail(text, code)


@app.command()
def ask(
    message: Annotated[str | None, typer.Argument(help="The message (omit with --retry).")] = None,
    user: User = "demo-user",
    customer: Customer = "acme",
    session: SessionOpt = None,
    as_json: JsonOpt = False,
    retry: Annotated[
        bool, typer.Option("--retry", help="Finish the session's failed turn.")
    ] = False,
) -> None:
    """One turn, non-interactive."""
    from memagent.graph.agent import aopen_agent, arun_turn

    if retry and session is None:
        fail("--retry needs --session", 2)
    if not retry and message is None:
        fail("a message is required", 2)
    check_scope(user, customer, message, session)
    session = uuid.uuid4().hex[:12] if session is None else session

    async def turn() -> Any:
        async with aopen_agent() as agent:
            return await arun_turn(
                agent,
                None if retry else message,
                user_id=user,
                customer_id=customer,
                session=session,
            )

    retry_with = shlex.join(
        ["memagent", "ask", "--retry", "--session", session, "--user", user, "--customer", customer]
    )
    result = run_async(turn, retry_with)
    if as_json:
        print_json(result.to_json())
        return
    out.print(result.reply, highlight=False)
    err.print(
        f"[dim]session {result.session} · trace {result.trace_id} · "
        f"{len(result.recalled)} memories · {result.prompt_tokens} prompt tokens[/]"
    )


def print_trace(trace: dict[str, Any]) -> None:
    if not trace:
        out.print("[dim]no recall yet[/]")
        return
    out.print(
        f"mode {trace.get('mode')} · queries {trace.get('queries')} · "
        f"{trace.get('candidates', 0)} candidates · {trace.get('elapsed_ms')} ms"
        + (" · [red]degraded[/]" if trace.get("degraded") else ""),
        highlight=False,
    )
    table = Table("score", "rel", "rec", "imp", "conf", "origin", "content")
    for item in trace.get("items", []):
        table.add_row(
            *(
                f"{item[k]:.2f}"
                for k in ("score", "relevance", "recency", "importance", "confidence")
            ),
            item["origin"],
            item["content"],
        )
    out.print(table)


@app.command()
def chat(user: User = "demo-user", customer: Customer = "acme", session: SessionOpt = None) -> None:
    """Interactive chat; /why shows the last recall, /memories, /new, /retry, /quit."""
    from memagent.graph.agent import aopen_agent, arun_turn
    from memagent.memory.namespaces import namespace

    check_scope(user, customer, session=session)

    async def loop() -> None:
        nonlocal session
        session = uuid.uuid4().hex[:12] if session is None else session
        last_trace: dict[str, Any] = {}
        async with aopen_agent() as agent:
            known = agent.crm.check_scope(user, customer) is not None
            note = "" if known else " (not in the CRM: memagent customers add)"
            scope = escape(f"session {session} · {user} about {customer}{note}")
            out.print(f"[dim]{scope} · /quit to leave[/]", highlight=False)
            while True:
                try:
                    line = await asyncio.to_thread(out.input, "[bold cyan]you>[/] ")
                except EOFError:
                    return
                text = line.strip()
                if text in ("/quit", "/exit"):
                    return
                if text == "/why":
                    print_trace(last_trace)
                    continue
                if text == "/new":
                    session, last_trace = uuid.uuid4().hex[:12], {}
                    out.print(f"[dim]new session {session}[/]")
                    continue
                if text == "/memories":
                    items = agent.store.search(namespace(user, customer, "facts"), limit=50)
                    for item in items:
                        out.print(f"- [{item.value.get('type')}] {item.value.get('content')}")
                    if not items:
                        out.print("[dim]no memories yet[/]")
                    continue
                if not text:
                    continue
                out.print("[bold green]assistant>[/] ", end="")
                try:
                    result = await arun_turn(
                        agent,
                        None if text == "/retry" else text,
                        user_id=user,
                        customer_id=customer,
                        session=session,
                        on_token=lambda t: out.print(t, end="", highlight=False),
                    )
                except Exception as exc:
                    message, _ = explain(exc, "/retry")
                    err.print(f"\n[red]error:[/] {message}")
                    continue
                out.print()
                last_trace = result.recall_trace

    run_async(loop)


@sessions_app.command("list")
def sessions_list(
    user: Annotated[str | None, typer.Option("--user", "-u")] = None,
    customer: Annotated[str | None, typer.Option("--customer", "-c")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Sessions with their user, customer and number of turns."""
    from memagent.graph.agent import list_sessions

    rows = [
        r
        for r in run_async(list_sessions)
        if (user is None or r["user_id"] == user)
        and (customer is None or r["customer_id"] == customer)
    ]
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
    from memagent.graph.agent import session_state

    state = run_async(lambda: session_state(session))
    if state is None:
        fail(f"no session {session!r}", 2)
    messages = [
        {
            "role": m.type,
            "content": str(m.text),
            "tool_calls": [c["name"] for c in getattr(m, "tool_calls", [])],
        }
        for m in state.get("messages", [])
    ]
    if as_json:
        print_json(
            {"session": session, "messages": messages, "recall_trace": state.get("recall_trace")}
        )
        return
    for m in messages:
        extra = f" [dim](tools: {', '.join(m['tool_calls'])})[/]" if m["tool_calls"] else ""
        out.print(f"[bold]{m['role']}>[/] {m['content']}{extra}", highlight=False)
    print_trace(state.get("recall_trace", {}))


@llm_app.command("serve")
def llm_serve() -> None:
    """Run the local llama.cpp OpenAI-compatible server in the foreground."""
    from memagent.llm.server import serve_foreground

    try:
        code = serve_foreground(get_settings())
    except KeyboardInterrupt:
        code = 0
    except Exception as exc:
        fail(f"{type(exc).__name__}: {exc}")
    if code:
        raise typer.Exit(code)


@app.command()
def worker() -> None:
    """Run the extraction worker in the foreground (for MEMAGENT_WORKER=external)."""
    from memagent.graph.jobs import JobQueue
    from memagent.graph.worker import Worker

    settings = get_settings()
    try:
        runner = Worker.for_settings(settings, queue=JobQueue.for_settings(settings))
        err.print(f"[dim]worker draining {settings.jobs_path}; Ctrl-C to stop[/]")
        runner.run_forever()
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        fail(f"{type(exc).__name__}: {exc}")


@app.command("graph")
def draw_graph(
    out_file: Annotated[Path | None, typer.Option("--out", help=".mmd/.md text or .png")] = None,
) -> None:
    """The agent graph as Mermaid text (PNG only with pygraphviz; never a web service)."""
    from memagent.graph.builder import graph

    drawable = graph().get_graph()
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
    """Check settings, store, LLM endpoint and disk."""
    from memagent.graph.agent import check_store

    settings = get_settings()
    problems = 0
    table = Table("check", "status", "detail")
    table.add_row("home", "ok", str(settings.home))
    table.add_row(
        "nodes",
        "ok",
        f"rewriter={settings.rewriter} recall={settings.recall} "
        f"extractor={settings.extractor} worker={settings.worker}",
    )
    try:
        detail = run_async(check_store)
        table.add_row("store", "ok", detail)
    except typer.Exit:
        problems += 1
        table.add_row("store", "[red]fail[/]", settings.resolved_store_location())
    try:
        from memagent.llm.adapter import check_llm

        ok, detail = check_llm(settings)
    except Exception as exc:
        ok, detail = False, explain(exc)[0]
    problems += not ok
    table.add_row("llm", "ok" if ok else "[red]fail[/]", detail)
    settings.home.mkdir(parents=True, exist_ok=True)
    free_gb = shutil.disk_usage(settings.home).free / 1e9
    low = free_gb < 1.0
    problems += low
    table.add_row("disk", "[red]low[/]" if low else "ok", f"{free_gb:.1f} GB free")
    out.print(table)
    if problems:
        raise typer.Exit(1)


EVALS_APP = "memagent.evals.evaluation"
"""The ``eval`` sub-app's module: loaded by name when ``memagent eval`` runs, so the
composition root never imports the evaluation layer above it."""


@app.command(
    "eval",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def eval_cmd(ctx: typer.Context) -> None:
    """Evaluation harnesses: retrieval (LoCoMo), extraction, sessions (memagent eval --help)."""
    import importlib

    sub = typer.main.get_command(importlib.import_module(EVALS_APP).app)
    prog = f"{ctx.find_root().info_name or 'memagent'} eval"
    sub.main(args=list(ctx.args), prog_name=prog, obj=get_settings())


def main() -> None:
    """Console entry point (``memagent``)."""
    app()
