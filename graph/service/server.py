"""The service process: owns one home's agent and serves its clients on a Unix socket.

Lifetime: started by the first client that needs it (or ``memagent service start|run``),
it holds ``service.lock`` from before it opens anything until after it closed
everything, so there is exactly one per home. It stops on ``memagent service stop``,
SIGTERM/SIGINT, or after ``MEMAGENT_SERVICE_IDLE_S`` seconds with no request in
flight, no turn running and no extraction job running or due. Stopping closes the
socket first (a new client starts a new service, which waits for this one to finish),
lets running requests finish, then closes the agent: the worker stops after its job,
unfinished jobs stay in the durable queue.

Requests: one per connection (``protocol``). A turn runs as a task; when its client
goes away (Ctrl-C) the task is cancelled: the message the turn already checkpointed
stays, the reply that was being generated is dropped, ``--retry`` finishes it.
Turns of one session queue up on the agent's session lock, in arrival order.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import socket
import time
from typing import Any

from memagent.core.log_redaction import memagent_logger
from memagent.graph.service import ops, protocol
from memagent.graph.service.client import connect
from memagent.graph.service.errors import describe
from memagent.graph.service.paths import ServicePaths
from memagent.graph.service.resources import Resources
from memagent.graph.settings import Settings

log = memagent_logger("memagent.service")

LOCK_WAIT_S = 110.0
"""How long a new service waits for a stopping one to release the home (a little less
than a client waits for it: the client then reports why)."""


class AlreadyRunningError(RuntimeError):
    """Another service serves this home."""


def take_lock(paths: ServicePaths, wait_s: float = LOCK_WAIT_S) -> int:
    """The home's lifetime lock (an open fd; closing it releases the lock).

    Waits while an old service finishes stopping; gives up at once when a running one
    already answers on the socket."""
    fd = os.open(paths.lock, os.O_CREAT | os.O_RDWR, 0o600)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            live = connect(paths)
            if live is not None or time.monotonic() > deadline:
                if live is not None:
                    live.close()
                os.close(fd)
                raise AlreadyRunningError(
                    f"a memagent service already serves this home ({paths.dir})"
                ) from None
            time.sleep(0.05)


def _listen_socket(paths: ServicePaths) -> socket.socket:
    """The listening socket, 0600 from the start (we hold the lock: a leftover file is stale)."""
    with contextlib.suppress(FileNotFoundError):
        paths.socket.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(paths.socket))
    finally:
        os.umask(old)
    os.chmod(paths.socket, 0o600)
    sock.listen(64)
    sock.setblocking(False)
    return sock


class Service:
    """One home's service; ``await Service(settings, paths).run()`` until it stops."""

    def __init__(
        self, settings: Settings, paths: ServicePaths, *, foreground: bool = False
    ) -> None:
        self.settings = settings
        self.paths = paths
        self.foreground = foreground
        self.fingerprint = protocol.fingerprint(settings)
        self.active = 0
        self.turns = 0
        self.last_activity = time.monotonic()
        self.started_at = time.time()
        self._stopping: asyncio.Event | None = None
        self._server: asyncio.AbstractServer | None = None
        self._res: Resources | None = None
        self._handlers: set[asyncio.Task[Any]] = set()

    # -- lifetime -----------------------------------------------------------------------

    async def run(self) -> None:
        self._stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.request_stop, f"signal {sig.name}")
        async with Resources.open(self.settings, eager=True) as res:
            self._res = res
            self._server = await asyncio.start_unix_server(
                self._handle, sock=_listen_socket(self.paths), limit=protocol.MAX_LINE
            )
            log.info(
                "memagent service pid %d serving %s on %s (idle stop after %.0f s)",
                os.getpid(), self.settings.home, self.paths.socket, self.settings.service_idle_s,
            )  # fmt: skip
            watchdog = asyncio.create_task(self._watch_idle())
            try:
                await self._stopping.wait()
            finally:
                watchdog.cancel()
                await self._drain_handlers()
        log.info("memagent service pid %d stopped", os.getpid())

    def request_stop(self, reason: str = "stop") -> None:
        """Stop listening now (new clients start a new service); finish what runs."""
        if self._stopping is None or self._stopping.is_set():
            return
        log.info("stopping: %s", reason)
        if self._server is not None:
            self._server.close()
        with contextlib.suppress(FileNotFoundError):
            self.paths.socket.unlink()
        self._stopping.set()

    async def _drain_handlers(self) -> None:
        grace = self.settings.llm_timeout + 30
        if self._handlers:
            _, pending = await asyncio.wait(set(self._handlers), timeout=grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def _busy(self, *, besides: int = 0) -> bool:
        """Requests other than ``besides`` in flight, or extraction work running or due."""
        if self.active > besides:
            return True
        assert self._res is not None
        try:
            return await asyncio.to_thread(self._res.jobs_busy)
        except Exception:  # an unreadable queue must not keep the service up forever
            return False

    async def _watch_idle(self) -> None:
        idle_s = self.settings.service_idle_s
        tick = min(1.0, idle_s / 4)
        while True:
            await asyncio.sleep(tick)
            if self.active or await self._busy():
                self.last_activity = time.monotonic()
                continue
            if time.monotonic() - self.last_activity >= idle_s:
                self.request_stop(f"idle for {idle_s:.0f} s")
                return

    # -- requests -----------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection, one request. Control requests (status, stop) are not activity:
        looking at an idle service does not keep it up."""
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        counted = False
        try:
            line = await reader.readline()
            if not line:
                return
            request = protocol.decode(line)
            counted = not str(request.get("op", "")).startswith("service.")
            if counted:
                self.active += 1
                self.last_activity = time.monotonic()
            final = await self._answer(request, reader, writer)
            if final is not None:
                writer.write(protocol.encode(final))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception:
            log.exception("request failed")
        finally:
            if counted:
                self.active -= 1
                self.last_activity = time.monotonic()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            if task is not None:
                self._handlers.discard(task)

    async def _answer(self, request: dict[str, Any], reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> dict[str, Any] | None:  # fmt: skip
        name = str(request.get("op", ""))
        args = request.get("args") or {}
        if name.startswith("service."):
            return await self._control(name, args)
        differ = protocol.differing(self.fingerprint, request.get("settings") or {})
        if differ:
            # A service run by hand in a terminal is never restarted by a client.
            busy = self.foreground or await self._busy(besides=1)
            return {"t": "mismatch", "fields": differ, "busy": busy, "foreground": self.foreground}
        assert self._res is not None

        def emit(event: dict[str, Any]) -> None:
            if not writer.is_closing():
                writer.write(protocol.encode(event))

        work = asyncio.ensure_future(ops.run(self._res, name, args, emit))
        if name == "turn":
            self.turns += 1
            gone = asyncio.ensure_future(reader.read(1))  # b"" when the client hangs up
            try:
                await asyncio.wait({work, gone}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                gone.cancel()
                self.turns -= 1
            if not work.done():
                log.info("client left: cancelling its turn on session %r", args.get("session"))
                work.cancel()
                await asyncio.gather(work, return_exceptions=True)
                return None
        try:
            return {"t": "ok", "data": await work}
        except Exception as exc:
            message, code = describe(exc)
            if code == 1:
                log.warning("%s failed: %r", name, exc, exc_info=exc)
            return {"t": "error", "message": message, "code": code,
                    "saved": bool(getattr(exc, "saved", False))}  # fmt: skip

    async def _control(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "service.status":
            return {"t": "ok", "data": self.status()}
        if name == "service.stop":
            if args.get("if_idle") and await self._busy():
                return {"t": "ok", "data": {"stopping": False, **self.status()}}
            self.request_stop(str(args.get("reason") or "memagent service stop"))
            return {"t": "ok", "data": {"stopping": True, **self.status()}}
        return {"t": "error", "message": f"unknown request {name!r}", "code": 2}

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "home": str(self.settings.home),
            "socket": str(self.paths.socket),
            "log": str(self.paths.log),
            "uptime_s": round(time.time() - self.started_at, 1),
            "idle_stop_s": self.settings.service_idle_s,
            "requests": self.active,
            "turns": self.turns,
            "foreground": self.foreground,
        }


def serve(settings: Settings, *, foreground: bool = False) -> int:
    """Run the service for ``settings`` in this process until it stops; an exit code.

    A detached service that finds another one serving the home leaves quietly (its
    client connects to that one); ``foreground`` raises ``AlreadyRunningError``."""
    paths = ServicePaths.for_home(settings.home)
    try:
        fd = take_lock(paths, wait_s=0.0 if foreground else LOCK_WAIT_S)
    except AlreadyRunningError as exc:
        if foreground:
            raise
        log.info("%s", exc)
        return 0
    try:
        asyncio.run(Service(settings, paths, foreground=foreground).run())
    except Exception as exc:
        if foreground:
            raise
        # The last line of the log is what the client that started us shows.
        log.debug("startup failed", exc_info=exc)
        log.error("memagent service cannot serve %s: %s: %s", settings.home,
                  type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")  # fmt: skip
        return 1
    finally:
        os.close(fd)
    return 0
