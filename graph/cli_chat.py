"""``memagent chat``: the interactive loop, a client of the per-home service.

Slash commands are answered here and never reach the model or the session; anything
else is a turn. Replies stream token by token. Ctrl-C during a reply cancels that turn
only (its message stays in the session, ``/retry`` finishes it); Ctrl-C or Ctrl-D at
the prompt leaves the chat.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memagent.graph.service.backend import Backend
from memagent.graph.service.errors import Interrupted, OpError

out = Console()
err = Console(stderr=True)

HELP = """\
/why        why the last reply recalled what it did
/memories   what is remembered about this customer
/retry      finish a turn whose reply failed or was cancelled
/new        start a new session
/help       this list
/quit       leave (also /exit, Ctrl-D, Ctrl-C at the prompt)
Ctrl-C during a reply cancels it; your message is kept and /retry finishes it.
Start a message with // to send it with one leading slash."""

KEPT = "your message is saved: /retry finishes the turn (a new message is answered with it)"
TAKEN_NOTES = {
    "resumed": "answering your earlier unanswered message",
    "joined": "answering this together with your earlier unanswered message",
}


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


class Chat:
    """One chat: a user, a customer, the current session and the last recall trace."""

    def __init__(self, backend: Backend, user: str, customer: str, session: str | None, *,
                 known: bool = True) -> None:  # fmt: skip
        self.backend = backend
        self.user = user
        self.customer = customer
        self.session = uuid.uuid4().hex[:12] if session is None else session
        self.known = known
        self.last_trace: dict[str, Any] = {}

    def run(self) -> None:
        note = "" if self.known else " (not in the CRM: memagent customers add)"
        scope = escape(f"session {self.session} · {self.user} about {self.customer}{note}")
        out.print(f"[dim]{scope} · /help for commands, /quit to leave[/]", highlight=False)
        self.warm()
        while True:
            try:
                line = out.input("[bold cyan]you>[/] ")
            except (EOFError, KeyboardInterrupt):
                out.print()
                return
            text = line.strip()
            if not text:
                continue
            if text.startswith("//"):
                self.turn(text[1:])
            elif text.startswith("/"):
                if not self.command(text):
                    return
            else:
                self.turn(text)

    def warm(self) -> None:
        """Have the local model start loading now, while the user types the first
        message (best effort: the first turn starts it anyway and reports a failure)."""
        with contextlib.suppress(OpError, Interrupted):
            self.backend.call("llm.warm")

    def command(self, text: str) -> bool:
        """Answer a slash command here; False to leave the chat."""
        name = text.split()[0].lower()
        if name in ("/quit", "/exit"):
            return False
        if name == "/help":
            out.print(HELP, highlight=False, markup=False)
        elif name == "/why":
            print_trace(self.last_trace)
        elif name == "/new":
            self.session, self.last_trace = uuid.uuid4().hex[:12], {}
            out.print(f"[dim]new session {escape(self.session)}[/]")
        elif name == "/memories":
            self.memories()
        elif name == "/retry":
            self.turn(None)
        else:
            err.print(
                f"unknown command {escape(name)}; /help lists the commands "
                "(start with // to send a message beginning with /)",
                highlight=False,
            )
        return True

    def memories(self) -> None:
        try:
            rows = self.backend.call(
                "memories.list", {"user": self.user, "customer": self.customer}
            )
        except OpError as exc:
            err.print(f"[red]error:[/] {escape(exc.message)}", highlight=False)
            return
        except Interrupted:
            out.print()
            return
        for r in rows:
            out.print(f"- [{r.get('type')}] {r.get('content')}", highlight=False, markup=False)
        if not rows:
            out.print("[dim]no memories yet[/]")

    def turn(self, message: str | None) -> None:
        streamed = False

        def on_event(event: dict[str, Any]) -> None:
            nonlocal streamed
            kind = event.get("t")
            if kind == "note":
                err.print(f"[dim]{escape(str(event.get('text', '')))}[/]", highlight=False)
            elif kind == "saved" and event.get("taken") in TAKEN_NOTES:
                err.print(f"[dim]({TAKEN_NOTES[event['taken']]})[/]", highlight=False)
            elif kind == "token":
                if not streamed:
                    out.print("[bold green]assistant>[/] ", end="")
                    streamed = True
                out.print(event.get("text", ""), end="", highlight=False, markup=False)

        args = {"message": message, "user": self.user, "customer": self.customer,
                "session": self.session}  # fmt: skip
        try:
            data = self.backend.call("turn", args, on_event)
        except Interrupted as exc:
            out.print()
            kept = KEPT if exc.saved else "before your message was saved"
            err.print(f"[yellow]cancelled[/]: {kept}", highlight=False)
            return
        except OpError as exc:
            if streamed:
                out.print()
            hint = f"; {KEPT}" if exc.saved else ""
            err.print(f"[red]error:[/] {escape(exc.message)}{hint}", highlight=False)
            return
        if not streamed:
            out.print("[bold green]assistant>[/] ", end="")
            out.print(str(data.get("reply", "")), end="", highlight=False, markup=False)
        out.print()
        self.last_trace = data.get("recall_trace") or {}
