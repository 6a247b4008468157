"""The client side: reach this home's service, starting it when nobody runs it.

Exactly one service per home, however many terminals start one at once: a client
takes ``spawn.lock`` before it starts a service, and the service itself holds
``service.lock`` for its whole life (a second one waits for it, or leaves when the
socket already answers). Stdlib only (plus the settings model): a client never
imports LangGraph, Qdrant or the embedder.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memagent.graph.home_in_use import in_use
from memagent.graph.service import protocol
from memagent.graph.service.errors import Interrupted, OpError, ServiceUnavailableError
from memagent.graph.service.paths import RuntimeDirError, ServicePaths

if TYPE_CHECKING:
    from memagent.graph.settings import Settings

Event = dict[str, Any]
OnEvent = Callable[[Event], None]

START_TIMEOUT_S = 120.0
"""How long a client waits for a service it started to answer (store opening included)."""
STOP_TIMEOUT_S = 180.0
"""How long ``stop`` waits for a service to finish its running turns and close."""


LOG_KEEP_BYTES = 1_000_000
"""A service log past this size is moved to ``service.log.1`` when a service starts."""


def log_tail(path: Path, since: int = 0) -> str:
    """The last line the service logged after offset ``since`` (why it did not start)."""
    with contextlib.suppress(OSError), path.open("rb") as f:
        f.seek(since)
        lines = [ln.strip() for ln in f.read().decode(errors="replace").splitlines()]
        lines = [ln for ln in lines if ln]
        last = lines[-1] if lines else ""
        return last.split(" memagent.service: ", 1)[-1]  # drop the time and level
    return ""


def _rotate(log: Path) -> None:
    with contextlib.suppress(OSError):
        if log.stat().st_size > LOG_KEEP_BYTES:
            os.replace(log, log.with_name(log.name + ".1"))


def connect(paths: ServicePaths) -> socket.socket | None:
    """A connection to the running service, or None when none answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(paths.socket))
    except OSError:  # no socket file, or a stale one (ECONNREFUSED)
        sock.close()
        return None
    return sock


def lock_is_held(path: Path) -> bool:
    """True while a service process holds its lifetime lock."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@contextlib.contextmanager
def file_lock(path: Path, timeout_s: float) -> Iterator[None]:
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ServiceUnavailableError(f"timed out waiting for {path}") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)


def spawn(settings: Settings, paths: ServicePaths) -> subprocess.Popen[bytes]:
    """Start the service for ``settings`` detached from this terminal (its own session,
    so Ctrl-C here does not reach it), with the client's settings in its environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMAGENT_")}
    env.update(protocol.settings_env(settings))
    _rotate(paths.log)
    with paths.log.open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "memagent.graph.service"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            cwd=paths.dir, env=env, start_new_session=True,
        )  # fmt: skip


def ensure_running(settings: Settings, paths: ServicePaths) -> socket.socket:
    """A connection to the service, started first if nobody runs it."""
    sock = connect(paths)
    if sock is not None:
        return sock
    with file_lock(paths.spawn_lock, START_TIMEOUT_S):
        sock = connect(paths)
        if sock is not None:
            return sock
        busy = in_use(settings)
        if busy is not None:  # Studio or a worker holds the store: a service cannot start
            raise ServiceUnavailableError(busy)
        since = paths.log.stat().st_size if paths.log.exists() else 0
        proc = spawn(settings, paths)
        since = min(since, paths.log.stat().st_size)  # rotated: read the new file whole
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            sock = connect(paths)
            if sock is not None:
                return sock
            if proc.poll() not in (None, 0):
                tail = log_tail(paths.log, since)
                raise ServiceUnavailableError(
                    f"the memagent service did not start: {tail or f'exit {proc.returncode}'}"
                    f" (log: {paths.log})"
                )
            time.sleep(0.05)
    raise ServiceUnavailableError(
        f"the memagent service did not answer within {START_TIMEOUT_S:.0f} s (log: {paths.log})"
    )


class ServiceClient:
    """Sends requests to this home's service (``request``), starting it on demand."""

    def __init__(self, settings: Settings) -> None:
        self.settings = protocol.for_service(settings)
        try:
            self.paths = ServicePaths.for_home(self.settings.home)
        except (OSError, RuntimeDirError) as exc:
            raise ServiceUnavailableError(
                f"no private runtime directory for the service: {exc}"
            ) from None
        self.fingerprint = protocol.fingerprint(self.settings)

    def request(self, op: str, args: dict[str, Any] | None = None, on_event: OnEvent | None = None,
                *, start: bool = True) -> Any:  # fmt: skip
        """Run ``op`` in the service; ``on_event`` gets every event before the last.

        Raises ``OpError`` (the service's one-line message and exit code),
        ``Interrupted`` on Ctrl-C (the service cancels the request), or
        ``ServiceUnavailableError``. A service running with other settings is restarted
        with ours when it is idle, and refused with a clear line when it is busy.
        """
        try:
            return self._request(op, args, on_event, start)
        except KeyboardInterrupt:  # while starting the service: nothing was sent
            raise Interrupted(saved=False) from None

    def _request(self, op: str, args: dict[str, Any] | None, on_event: OnEvent | None,
                 start: bool) -> Any:  # fmt: skip
        for attempt in range(2):
            sock = ensure_running(self.settings, self.paths) if start else connect(self.paths)
            if sock is None:
                raise ServiceUnavailableError("the memagent service is not running", 1)
            final = self._exchange(sock, op, args or {}, on_event)
            if final["t"] == "ok":
                return final.get("data")
            if final["t"] == "error":
                raise OpError(
                    final["message"], int(final.get("code", 1)), saved=final.get("saved", False)
                )
            fields = ", ".join(final.get("fields", []))
            if final.get("foreground"):
                raise OpError(
                    f"the memagent service for this home runs in the foreground with other "
                    f"settings ({fields}); stop it to use these",
                    1,
                )
            if final.get("busy") or attempt or not self._stop_if_idle():
                raise OpError(
                    f"the memagent service for this home runs with other settings ({fields}) "
                    "and is busy; wait for it, or stop it with `memagent service stop`",
                    1,
                )
            if on_event is not None:
                on_event({"t": "note", "text": f"restarted the memagent service with this "
                                               f"command's settings ({fields})"})  # fmt: skip
        raise AssertionError("unreachable")

    def _exchange(self, sock: socket.socket, op: str, args: dict[str, Any],
                  on_event: OnEvent | None) -> Event:  # fmt: skip
        saved = False
        with sock, sock.makefile("rb") as reader:
            try:
                sock.sendall(protocol.encode({
                    "v": protocol.VERSION, "op": op, "args": args, "settings": self.fingerprint,
                }))  # fmt: skip
                while True:
                    line = reader.readline(protocol.MAX_LINE)
                    if not line:
                        raise ServiceUnavailableError(
                            "the memagent service stopped during the request"
                            + (": your message is saved" if saved else "")
                            + f" (log: {self.paths.log})",
                            1,
                            saved=saved,
                        )
                    event = protocol.decode(line)
                    if event.get("t") in protocol.FINAL:
                        return event
                    saved = saved or event.get("t") == "saved"
                    if on_event is not None:
                        on_event(event)
            except KeyboardInterrupt:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                raise Interrupted(saved=saved) from None

    def _stop_if_idle(self) -> bool:
        """Ask the service to stop if it is idle; True once it stopped listening."""
        try:
            data = self.request("service.stop", {"if_idle": True}, start=False)
        except OpError:
            return connect(self.paths) is None
        return bool(data and data.get("stopping"))

    def status(self) -> dict[str, Any] | None:
        """The running service's status, or None when none runs (starts nothing)."""
        try:
            return dict(self.request("service.status", start=False))
        except ServiceUnavailableError:
            return None

    def stop(self, *, timeout_s: float = STOP_TIMEOUT_S) -> dict[str, Any] | None:
        """Stop the service (after its running turns) and wait until it has exited."""
        try:
            data = dict(self.request("service.stop", start=False))
        except ServiceUnavailableError:
            return None
        deadline = time.monotonic() + timeout_s
        while lock_is_held(self.paths.lock) and time.monotonic() < deadline:
            time.sleep(0.05)
        return data

    def start(self) -> dict[str, Any]:
        ensure_running(self.settings, self.paths).close()
        return dict(self.request("service.status"))
