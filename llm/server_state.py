"""The local server's state shared between processes: the state file of each running
server (pid, port, model, clients), the lock around it, and the process checks.

Split out of ``memagent.llm.server``, which re-exports every public name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import time
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

import httpx

from memagent.core.settings import Settings
from memagent.llm.model import LLMUnavailableError, exclusive_file_lock

STARTUP_TIMEOUT_S = 180.0

Owner = Literal["auto", "serve"]
Role = Literal["chat", "background"]


@dataclass
class ServerState:
    """What other processes need to reuse a running server."""

    pid: int
    port: int
    model: str
    owner: Owner = "auto"
    n_ctx: int = 0
    clients: list[int] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def state_dir(settings: Settings) -> Path:
    return settings.home / "llm"


def state_file(directory: Path, model: Path, role: Role = "chat") -> Path:
    """One state file per served model file and role."""
    key = hashlib.sha256(str(model).encode()).hexdigest()[:12]
    return directory / (f"server-{key}.json" if role == "chat" else f"server-{key}-{role}.json")


def role_file(directory: Path, suffix: str, role: Role = "chat") -> Path:
    """``server.<suffix>`` for the chat server, ``server-<role>.<suffix>`` for another role."""
    stem = "server" if role == "chat" else f"server-{role}"
    return directory / f"{stem}.{suffix}"


def log_file(directory: Path, role: Role = "chat") -> Path:
    return role_file(directory, "log", role)


def read_state(path: Path) -> ServerState | None:
    try:
        return ServerState(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def write_state(path: Path, state: ServerState) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(state)))
    os.replace(tmp, path)


def server_lock(
    directory: Path, timeout: float = STARTUP_TIMEOUT_S + 30, role: Role = "chat"
) -> AbstractContextManager[None]:
    """Exclusive lock over one role's state file: held while checking, starting or
    stopping that server (one per role, so leaving the chat server never waits while the
    background one starts)."""
    path = role_file(directory, "lock", role)
    return exclusive_file_lock(
        path,
        timeout=timeout,
        poll_s=0.1,
        on_timeout=lambda: LLMUnavailableError(f"timed out waiting for the LLM server lock {path}"),
    )


def pid_alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _is_server_process(pid: int, port: int) -> bool:
    """Guards kill() against a recycled pid: the command line must be our server's."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return pid_alive(pid)  # no /proc (macOS): trust the pid
    return b"llama_cpp.server" in cmd and str(port).encode() in cmd


def serving(base_url: str, timeout: float = 2.0) -> bool:
    try:
        return httpx.get(f"{base_url}/models", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def reusable(state: ServerState | None, model: Path, n_ctx: int) -> bool:
    """A running server for the same file, with at least the context window we need."""
    return (
        state is not None
        and state.model == str(model)
        and state.n_ctx >= n_ctx
        and pid_alive(state.pid)
    )


def live_clients(state: ServerState) -> list[int]:
    return [pid for pid in state.clients if pid_alive(pid)]


def release(state: ServerState, me: int, *, stop_owner: bool = False) -> bool:
    """Drop ``me`` from the clients; True when the server should now be stopped."""
    clients = live_clients(state)
    if me in clients:
        clients.remove(me)  # once: one process may hold several handles
    state.clients = clients
    if state.owner == "serve":
        return stop_owner
    return not state.clients


def terminate(pid: int, port: int, grace: float = 10.0) -> None:
    if not _is_server_process(pid, port):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if pid_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
