"""``memagent service status|start|stop|run``: this home's service by hand.

Nobody needs these to use memagent (the first command that needs the service starts
it, and it stops after ``MEMAGENT_SERVICE_IDLE_S`` idle seconds); they are for
looking at it, stopping it now, and running it in the foreground to debug.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Annotated, Any

import typer
from rich.console import Console

from memagent.graph.cli_backend import fail, request
from memagent.graph.settings import get_settings

app = typer.Typer(no_args_is_help=True, help="The local service that serves this home.")
out = Console()
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _client() -> Any:
    from memagent.graph.service.client import ServiceClient

    return ServiceClient(get_settings())


def _show(status: dict[str, Any] | None, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"running": status is not None, **(status or {})}))
    elif status is None:
        out.print("not running (the next command that needs it starts it)")
    else:
        out.print(
            f"running: pid {status['pid']}, up {status['uptime_s']:.0f} s, stops after "
            f"{status['idle_stop_s']:.0f} s idle; {status['turns']} turn(s) running\n"
            f"home {status['home']}\nsocket {status['socket']}\nlog {status['log']}",
            highlight=False,
            markup=False,
        )


@app.command("status")
def status(as_json: JsonOpt = False) -> None:
    """Whether the service runs, its pid, uptime and files."""
    _show(_client().status(), as_json)


@app.command("start")
def start(as_json: JsonOpt = False) -> None:
    """Start the service now (with this terminal's settings) if it is not running."""
    request("ping")
    _show(_client().status(), as_json)


@app.command("stop")
def stop(as_json: JsonOpt = False) -> None:
    """Stop the service after its running turns; the next command starts a new one."""
    data = _client().stop()
    if as_json:
        typer.echo(json.dumps({"stopped": data is not None}))
    else:
        out.print("stopped" if data is not None else "not running")


@app.command("run")
def run() -> None:
    """Run the service in the foreground (logs here; Ctrl-C stops it)."""
    from memagent.core.log_redaction import memagent_logger
    from memagent.graph.service.server import AlreadyRunningError, serve

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    service_log = memagent_logger("memagent.service")
    service_log.setLevel(logging.INFO)
    service_log.addHandler(handler)
    service_log.propagate = False
    try:
        serve(get_settings(), foreground=True)
    except AlreadyRunningError as exc:
        fail(f"{exc}; stop it first with `memagent service stop`", 1)
