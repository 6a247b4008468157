"""Studio (``langgraph dev``) and the CLI on one MEMAGENT_HOME: the embedded store takes
one process at a time, so the second one fails; it fails at once, naming the process
that holds the home and what to do.

Session 13: a CLI command on a home Studio held spawned the service, which died on the
store lock ~10 s later, and the command printed the engine's words ("open in another
process; ... shared=True ...") without saying which process or how to get the home back.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memagent.graph.agent import store_factory
from memagent.graph.service import client as client_module
from memagent.graph.service.client import ServiceClient
from memagent.graph.service.errors import ServiceUnavailableError
from memagent.graph.settings import Settings
from memagent.stores.engine_edge import StoreLockedError
from memagent.stores.lock_owner import Holder, holder_of

HOLD = (
    "import fcntl, os, sys, time;"
    "fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR);"
    "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(120)"
)


@contextmanager
def holding(lock: Path, *command: str) -> Iterator[subprocess.Popen[str]]:
    """A process holding ``lock``'s flock whose command line ends in ``command``."""
    lock.parent.mkdir(parents=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), *command], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def studio(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """A process whose command line reads as ``langgraph dev`` holding the home's store
    lock, as Studio's server holds it while it serves."""
    with holding(tmp_path / "home" / "store" / "LOCK", "langgraph", "dev") as proc:
        yield proc


def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", embedder="hash", service="auto")


def test_the_holder_of_a_lock_is_named(tmp_path: Path, studio: subprocess.Popen[str]) -> None:
    holder = holder_of(tmp_path / "home" / "store" / "LOCK")
    assert holder is not None and holder.pid == studio.pid
    assert holder.kind == "studio" and holder.command.endswith("langgraph dev")
    assert holder.describe().startswith(f"pid {studio.pid} (`")
    assert holder_of(tmp_path / "nothing") is None


def test_kinds() -> None:
    assert Holder(1, "/v/bin/python /v/bin/langgraph dev --port 8123").kind == "studio"
    assert Holder(1, "/v/bin/python -m memagent.graph.service").kind == "service"
    assert Holder(1, "/v/bin/python /v/bin/memagent worker").kind == "worker"
    assert Holder(1, "vim notes.txt").kind == "other"


def test_the_cli_fails_at_once_naming_studio(
    tmp_path: Path, studio: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI names the holder instead of starting a service that cannot open the store
    (before: a service was spawned, died on the lock, and the error came ~10 s later).
    Checked by what happens (no service spawned), not by a clock."""
    spawned: list[object] = []
    real_spawn = client_module.spawn

    def recording_spawn(*args: object, **kwargs: object) -> object:
        spawned.append(args)
        return real_spawn(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(client_module, "spawn", recording_spawn)
    client = ServiceClient(settings(tmp_path))
    with pytest.raises(ServiceUnavailableError) as caught:
        client.request("ping")
    assert spawned == []  # no service start that cannot succeed
    message = caught.value.message
    assert "LangGraph Studio (`langgraph dev`)" in message and f"kill {studio.pid}" in message
    assert str(tmp_path / "home") in message and "MEMAGENT_STORE_SHARED=true" in message
    assert not client.paths.socket.exists()
    assert client.status() is None


async def test_studio_is_told_to_stop_the_service(tmp_path: Path) -> None:
    """The other way round: the home's service holds the store when Studio (or any
    opener of the store) starts."""
    lock = tmp_path / "home" / "store" / "LOCK"
    with (
        holding(lock, "-m", "memagent.graph.service"),
        pytest.raises(StoreLockedError, match="run `memagent service stop` first"),
    ):
        async with store_factory(settings(tmp_path)):
            pass
