"""The embedded default LLM: llama.cpp's OpenAI-compatible server on 127.0.0.1.

The model file it serves (the bundled weights, assembled once per machine, or
``MEMAGENT_GGUF_PATH``) comes from ``memagent.llm.model``.

One server per model file is shared by all memagent processes of a home: a state
file records its pid and port, a lock file keeps two processes from starting two
servers, and the last process using an on-demand server stops it ("last one out
turns off the light"). A server started by ``memagent llm serve`` belongs to that
command and is only stopped by it.

Two roles: the ``chat`` server answers the replies; with ``prefix_reuse`` on, the
``background`` server (same model file, its own process and state file) takes the other
model calls (tool routing, summary, extraction, rewriting). llama.cpp keeps one
evaluated prompt per server and reuses its longest common prefix with the next request;
a background call on the chat server would evict the chat's prefix and make the next
turn re-read the whole conversation. The weights are memory-mapped, so the second
process shares them with the first (it costs its KV cache, not a second model).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from memagent.core.log_redaction import memagent_logger
from memagent.core.settings import Settings
from memagent.llm.model import (
    MODEL_FILENAME,
    PIP_HINT,
    LLMUnavailableError,
    ModelAssemblyError,
    assemble_model,
    is_verified,
    model_path,
    part_paths,
)
from memagent.llm.server_state import (
    STARTUP_TIMEOUT_S,
    Owner,
    Role,
    ServerState,
    free_port,
    live_clients,
    log_file,
    pid_alive,
    read_state,
    release,
    reusable,
    server_lock,
    serving,
    state_dir,
    state_file,
    terminate,
    write_state,
)

__all__ = [  # the model-file names are re-exported: callers know them from here
    "MODEL_FILENAME", "PIP_HINT", "LLMUnavailableError", "STARTUP_TIMEOUT_S", "LocalServer",
    "ModelAssemblyError", "Owner", "Role", "ServerState", "aensure_local_server", "assemble_model",
    "close_local_servers", "ensure_local_server", "free_port", "is_verified", "live_clients",
    "log_file", "model_path", "part_paths", "pid_alive", "PRESTART_FAILED", "Probe",
    "prestart_local_server", "probe_messages", "read_state", "release", "reusable",
    "serve_foreground", "server_command", "server_lock", "serving", "shutdown_local_servers",
    "startup_error", "state_dir", "state_file", "terminate", "wait_ready", "warm_local_servers",
    "write_state",
]  # fmt: skip

logger = memagent_logger(__name__)

# --- the server process -------------------------------------------------------------------


def server_command(settings: Settings, model: Path, port: int) -> list[str]:
    """No ``--chat_format``: the GGUF's own chat template (Qwen's, with tool rendering)
    is used, and it formats tool calls and ``<tool_response>`` turns as Qwen was trained."""
    threads = str(settings.llm_threads)
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model), "--model_alias", settings.model,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(settings.context_window),
        "--n_threads", threads, "--n_threads_batch", threads,
    ]  # fmt: skip


def _tail(path: Path, lines: int = 12) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return ""


def _last_words(log: Path) -> str:
    """The server's last log line (llama.cpp's reason), or a note that it said nothing."""
    lines = [line.strip() for line in _tail(log).splitlines() if line.strip()]
    return lines[-1][:300] if lines else "the server log is empty"


def startup_error(what: str, log: Path) -> LLMUnavailableError:
    """First line: what happened and the server's own reason; then the log's tail."""
    tail = _tail(log)
    return LLMUnavailableError(
        f"{what}: {_last_words(log)} (log {log})" + (f"\n{tail}" if tail else "")
    )


def probe_messages() -> list[dict[str, str]]:
    """The default start-up probe: a bare one-token request (the background server gets the
    tool router's prompt instead, from its caller)."""
    return [{"role": "user", "content": "hi"}]


def wait_ready(
    proc: subprocess.Popen[bytes],
    base_url: str,
    log: Path,
    timeout: float,
    probe: list[dict[str, str]] | None = None,
) -> None:
    """Poll until the model answers, then generate one token for ``probe`` (default: "hi").

    The one-token probe catches builds that load fine but crash on the first
    batch (e.g. a llama.cpp compiled with AMX on a VM that faults on AMX).
    """
    deadline = time.monotonic() + timeout
    while not serving(base_url, timeout=1.0):
        if proc.poll() is not None:
            raise startup_error(
                f"local LLM server exited with code {proc.returncode} during startup", log
            )
        if time.monotonic() > deadline:
            raise startup_error(f"local LLM server not ready after {timeout:.0f}s", log)
        time.sleep(0.25)
    try:
        httpx.post(
            f"{base_url}/chat/completions",
            json={"messages": probe or probe_messages(), "max_tokens": 1},
            timeout=max(deadline - time.monotonic(), 10.0),
        ).raise_for_status()
    except httpx.HTTPError as e:
        time.sleep(0.2)
        raise startup_error(
            f"local LLM server failed its first generation ({e.__class__.__name__}, exit "
            f"code {proc.poll()})",
            log,
        ) from None


class LocalServer:
    """Context manager: a running llama.cpp server for ``settings``, started or reused.

    ``owner="serve"`` marks a server that only ``memagent llm serve`` may stop.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        owner: Owner = "auto",
        role: Role = "chat",
        startup_timeout: float = STARTUP_TIMEOUT_S,
        probe: list[dict[str, str]] | None = None,
    ) -> None:
        self.settings = settings
        self.probe = probe or probe_messages()
        """The start-up probe's messages (``probe_messages``; the service gives the
        background server the tool router's system prompt)."""
        self.owner: Owner = owner
        self.role: Role = role
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.state: ServerState | None = None
        self.reused = False
        self._dir = state_dir(self.settings)
        self._file: Path | None = None

    @property
    def base_url(self) -> str:
        if self.state is None:
            raise LLMUnavailableError("local LLM server is not running")
        return self.state.base_url

    def alive(self) -> bool:
        if self.state is None:
            return False
        if self.proc is not None:
            return self.proc.poll() is None
        return pid_alive(self.state.pid)

    def __enter__(self) -> LocalServer:
        model = model_path(self.settings)
        self._file = state_file(self._dir, model, self.role)
        with server_lock(self._dir, role=self.role):
            state = read_state(self._file)
            if (
                state is not None
                and reusable(state, model, self.settings.context_window)
                and serving(state.base_url)
            ):
                state.clients = [*live_clients(state), os.getpid()]
                write_state(self._file, state)
                self.state, self.reused = state, True
                return self
            self._start(model)
        return self

    def _start(self, model: Path) -> None:
        assert self._file is not None
        port = (self.settings.llm_port if self.role == "chat" else None) or free_port()
        log = log_file(self._dir, self.role)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                server_command(self.settings, model, port),
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=self.owner == "auto",
            )  # fmt: skip
        state = ServerState(
            self.proc.pid, port, str(model), self.owner, self.settings.context_window
        )
        with _servers_lock:
            _starting.add(self.proc)
            if threading.current_thread() in _cancelled:  # the host left meanwhile
                self.proc.terminate()
        try:
            wait_ready(self.proc, state.base_url, log, self.startup_timeout, self.probe)
        except BaseException:
            self._kill_child()
            raise
        finally:
            with _servers_lock:
                _starting.discard(self.proc)
        state.clients = [] if self.owner == "serve" else [os.getpid()]
        write_state(self._file, state)
        self.state = state

    def _kill_child(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Leave the server; stop it when nobody else uses it (or when we serve it)."""
        if self.state is None or self._file is None:
            return
        with server_lock(self._dir, role=self.role):
            current = read_state(self._file)
            mine = current is not None and current.pid == self.state.pid
            state = current if current is not None and mine else self.state
            stop = release(state, os.getpid(), stop_owner=self.owner == "serve")
            if stop:
                if self.proc is not None:
                    self._kill_child()
                else:
                    terminate(state.pid, state.port)
                if mine:
                    self._file.unlink(missing_ok=True)
            elif mine:
                write_state(self._file, state)
        self.state = None


# --- process-wide access ----------------------------------------------------------------

ServerKey = tuple[Path, Path | None, Path, int, Role]
_servers: dict[ServerKey, LocalServer] = {}
_servers_lock = threading.Lock()
"""Guards ``_servers`` and ``_start_locks``; never held while a server starts."""
_starting: set[subprocess.Popen[bytes]] = set()
"""Servers this process spawned that are not ready yet: stopped with the others, so a host
leaving while a pre-start is under way (Studio closed early) leaves no orphan."""
_prestarts: set[threading.Thread] = set()
"""Pre-start threads still running."""
_cancelled: set[threading.Thread] = set()
"""Pre-start threads whose host is shutting down: they start nothing more."""
_start_locks: dict[ServerKey, threading.Lock] = {}
"""One per server: a turn asking for the running chat server does not wait while the
background server starts (Studio's pre-start starts one after the other)."""


def close_local_servers() -> None:
    """Leave every local server this process uses (stopping those nobody else uses).

    Registered with atexit; a host that ends without running atexit (``langgraph dev``
    re-raises SIGTERM after its graceful shutdown) calls it on its own way out.
    """
    with _servers_lock:
        for server in _servers.values():
            with contextlib.suppress(Exception):
                server.close()
        _servers.clear()
        for proc in _starting:  # its start fails and says so; nobody else uses it yet
            with contextlib.suppress(Exception):
                proc.terminate()


def shutdown_local_servers() -> None:
    """``close_local_servers`` on the way out (atexit, Studio's lifespan): a pre-start still
    running starts nothing more (a later turn's start is not refused: a lifespan may end
    and another begin in one process, as in tests and notebooks)."""
    with _servers_lock:
        _cancelled.update(_prestarts)
    close_local_servers()


def _exit_on_sigterm() -> None:
    """A plain SIGTERM skips atexit and would orphan the server; as SystemExit it doesn't.

    Only when nobody else handles SIGTERM, and only from the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def _server_key(settings: Settings, role: Role) -> ServerKey:
    return (
        state_dir(settings),
        settings.gguf_path,
        settings.model_dir,
        settings.context_window,
        role,
    )


def ensure_local_server(
    settings: Settings, role: Role = "chat", probe: list[dict[str, str]] | None = None
) -> str:
    """Base URL of a local server for ``settings`` (started on first use, reused after;
    ``probe``: its start-up request, see ``LocalServer``).

    Blocking: the first call may assemble the model and waits for the server's health
    check; async code calls ``aensure_local_server``. Stopped at interpreter exit unless
    another process still uses it.
    """
    key = _server_key(settings, role)
    with _servers_lock:
        if not _start_locks:
            atexit.register(shutdown_local_servers)
            _exit_on_sigterm()
        start_lock = _start_locks.setdefault(key, threading.Lock())
    with start_lock:
        server = _servers.get(key)
        if server is not None and server.alive():
            return server.base_url
        if server is not None:
            server.close()
        server = LocalServer(settings, role=role, probe=probe).__enter__()
        with _servers_lock:
            _servers[key] = server
        return server.base_url


PRESTART_FAILED = "could not start the local model ahead of the first turn: %s"
"""The warning of a failed pre-start (Studio's thread, the service's ``llm.warm``): only
logged, the first turn starts the model again and reports what went wrong."""

Probe = Callable[[], list[dict[str, str]]]
"""Builds a start-up probe when a server is about to start (not before: building the tool
router's prompt opens the CRM)."""


def warm_local_servers(settings: Settings, background_probe: Probe | None = None) -> None:
    """Start (or find) the chat server, then, with ``prefix_reuse`` on and a
    ``background_probe`` given, the background server with the probe it builds (the tool
    router's system prompt): the first turn that needs a tool then waits for neither.
    Blocking."""
    ensure_local_server(settings)
    if background_probe is not None and settings.prefix_reuse:
        ensure_local_server(settings, "background", background_probe())


def prestart_local_server(
    settings: Settings, background_probe: Probe | None = None
) -> threading.Thread | None:
    """``warm_local_servers`` on a thread, returning at once (None when there is nothing
    to start: ``MEMAGENT_BASE_URL`` set or ``MEMAGENT_LLM_PRESTART`` off), so the model
    loads, and evaluates its fixed prompts, while the user is still typing: Studio calls it
    when it loads the graph. A failure is logged; the first turn tries again and reports
    it. A daemon thread: leaving does not wait for a start, ``shutdown_local_servers``
    stops the server it is starting and refuses new ones."""
    if settings.base_url is not None or not settings.llm_prestart:
        return None
    _exit_on_sigterm()

    def start() -> None:
        try:
            warm_local_servers(settings, background_probe)
        except Exception as exc:
            logger.warning(PRESTART_FAILED, exc)
        finally:
            with _servers_lock:
                _prestarts.discard(threading.current_thread())
                _cancelled.discard(threading.current_thread())

    thread = threading.Thread(target=start, name="memagent-llm-prestart", daemon=True)
    with _servers_lock:
        _prestarts.add(thread)
    thread.start()
    return thread


async def aensure_local_server(settings: Settings, role: Role = "chat") -> str:
    """``ensure_local_server`` off the event loop (model assembly, server spawn and its
    health wait all block), so a server such as ``langgraph dev`` keeps serving meanwhile."""
    _exit_on_sigterm()  # needs the main thread, which the worker thread is not
    return await asyncio.to_thread(ensure_local_server, settings, role)


def serve_foreground(settings: Settings, *, echo: Callable[[str], object] = print) -> int:
    """``memagent llm serve``: run the local server until Ctrl-C; returns an exit code."""
    server = LocalServer(settings, owner="serve")
    _exit_on_sigterm()  # `kill`, `docker stop`: leave through the with-block, stopping it
    t0 = time.monotonic()
    with server:
        what = "reusing the running" if server.reused else "serving"
        echo(f"{what} local LLM at {server.base_url} ({time.monotonic() - t0:.1f}s); Ctrl-C stops")
        try:
            while server.alive():
                time.sleep(0.5)
        except (KeyboardInterrupt, SystemExit):
            echo("stopping")
            return 0
    echo("local LLM server exited")
    return 1
