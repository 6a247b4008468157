"""The CLI's one way to run a request: through the service, or in this process.

``open_backend(settings)`` picks the per-home service (the default) or the in-process
mode (``MEMAGENT_SERVICE=off``, for tests and debugging, and for a read-only home,
where nothing can be written and so nothing can collide). Both run the same ``ops``
and raise the same errors: ``OpError`` (one line, an exit code, whether a turn's
message is kept) and ``Interrupted`` (Ctrl-C: the running turn is cancelled).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from memagent.graph.service.client import ServiceClient
from memagent.graph.service.errors import Interrupted, OpError

if TYPE_CHECKING:
    from memagent.graph.service.resources import Resources
    from memagent.graph.settings import Settings

OnEvent = Callable[[dict[str, Any]], None]


class Backend(Protocol):
    def call(self, op: str, args: dict[str, Any] | None = None,
             on_event: OnEvent | None = None) -> Any: ...  # fmt: skip

    def close(self) -> None: ...


class ServiceBackend:
    """Requests to this home's service (started on demand)."""

    def __init__(self, settings: Settings) -> None:
        self.client = ServiceClient(settings)

    def call(self, op: str, args: dict[str, Any] | None = None,
             on_event: OnEvent | None = None) -> Any:  # fmt: skip
        return self.client.request(op, args, on_event)

    def close(self) -> None:
        pass


class InProcessBackend:
    """The same requests run here, on a private event loop thread, with resources opened
    on first use and closed by ``close``. Ctrl-C cancels the running request."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._cm: contextlib.AbstractAsyncContextManager[Resources] | None = None
        self._res: Resources | None = None

    def _run(self, coro: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _resources(self) -> Resources:
        if self._res is None:
            from memagent.graph.service.resources import Resources

            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="memagent-inprocess", daemon=True
            )
            self._thread.start()
            self._cm = Resources.open(self.settings)
            self._res = self._run(self._cm.__aenter__())
        return self._res

    def call(self, op: str, args: dict[str, Any] | None = None,
             on_event: OnEvent | None = None) -> Any:  # fmt: skip
        from memagent.graph.service import ops
        from memagent.graph.service.errors import describe

        try:
            res = self._resources()
        except KeyboardInterrupt:
            raise Interrupted(saved=False) from None
        except Exception as exc:
            message, code = describe(exc)
            raise OpError(message, code) from exc
        saved = False
        finished = threading.Event()

        def emit(event: dict[str, Any]) -> None:
            nonlocal saved
            saved = saved or event.get("t") == "saved"
            if on_event is not None:
                on_event(event)

        async def guarded() -> Any:
            try:
                return await ops.run(res, op, args or {}, emit)
            finally:
                finished.set()

        assert self._loop is not None
        future = asyncio.run_coroutine_threadsafe(guarded(), self._loop)
        try:
            return future.result()
        except KeyboardInterrupt:
            future.cancel()
            finished.wait(30)  # the turn unwinds: its checkpointed message stays
            raise Interrupted(saved=saved) from None
        except OpError:
            raise
        except Exception as exc:
            message, code = describe(exc)
            raise OpError(message, code) from exc

    def close(self) -> None:
        if self._loop is None:
            return
        try:
            if self._cm is not None:
                self._run(self._cm.__aexit__(None, None, None))
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=10)
            self._loop.close()
            self._loop = self._res = self._cm = None


def in_process(settings: Settings) -> bool:
    """``MEMAGENT_SERVICE=off``, or a home this user cannot write."""
    if settings.service == "off":
        return True
    home = settings.home.expanduser()
    return home.exists() and not os.access(home, os.W_OK)


def open_backend(settings: Settings) -> Backend:
    return InProcessBackend(settings) if in_process(settings) else ServiceBackend(settings)
