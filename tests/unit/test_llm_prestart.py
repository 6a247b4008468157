"""The local model starts before the first turn needs it, with the assistant's fixed
system rules already evaluated.

llama.cpp reuses the longest evaluated prefix of the previous request. The system prompt
puts its fixed rules first and the run's ids and date after them, and the chat server's
start-up probe evaluates those rules: the first turn, and every new customer's after it,
then evaluates only what follows them. Studio's graph and ``memagent chat`` start the
server while the user types (``MEMAGENT_LLM_PRESTART``, on by default; tests/conftest.py
turns it off for the rest of the suite).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memagent.core.settings import Settings
from memagent.graph import builder
from memagent.graph.cli_chat import Chat
from memagent.graph.service.backend import InProcessBackend
from memagent.graph.service.errors import OpError
from memagent.llm import server as llm_server
from memagent.llm.server import LocalServer, prestart_local_server

RECORDING_SERVER = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port = int(sys.argv[sys.argv.index("--port") + 1])
record = sys.argv[-1]
class H(BaseHTTPRequestHandler):
    def _send(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self._send({"data": [{"id": "m"}]})
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with open(record, "ab") as f:
            f.write(body + b"\n")
        self._send({"choices": [{"message": {"role": "assistant", "content": "k"}}]})
    def log_message(self, *a):
        pass
HTTPServer(("127.0.0.1", port), H).serve_forever()
"""


@pytest.fixture
def stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Settings, Path]]:
    """Settings whose 'llama.cpp server' is a stub process that records every request,
    and the file it records them in (one JSON body per line, all roles together)."""
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"GGUF")
    record = tmp_path / "requests.jsonl"
    settings = Settings(home=tmp_path / "home", gguf_path=gguf, context_window=2048,
                        llm_prestart=True)  # fmt: skip

    def command(s: Settings, model: Path, port: int) -> list[str]:
        return [sys.executable, "-c", RECORDING_SERVER, "--port", str(port), str(record)]

    monkeypatch.setattr(llm_server, "server_command", command)
    yield settings, record
    llm_server.close_local_servers()


def requests(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


def test_the_background_servers_start_up_probe_is_the_one_it_is_given(
    stub: tuple[Settings, Path],
) -> None:
    settings, record = stub
    LocalServer(settings).__enter__().close()
    (chat,) = requests(record)
    assert chat["messages"] == [{"role": "user", "content": "hi"}] and chat["max_tokens"] == 1
    probe = [{"role": "system", "content": "You route tools."}, {"role": "user", "content": "hi"}]
    LocalServer(settings, role="background", probe=probe).__enter__().close()
    assert requests(record)[1]["messages"] == probe


def test_prestart_starts_the_server_that_the_first_turn_then_reuses(
    stub: tuple[Settings, Path],
) -> None:
    settings, record = stub
    thread = prestart_local_server(settings)
    assert thread is not None and thread.daemon  # leaving never waits for a start
    thread.join(timeout=60)
    assert not thread.is_alive()
    state = next((settings.home / "llm").glob("server-*.json"))
    url = json.loads(state.read_text())["port"]
    assert llm_server.ensure_local_server(settings).endswith(f":{url}/v1")
    assert len(requests(record)) == 1, "the first turn started a second server"


def test_prestart_starts_nothing_when_off_or_with_a_remote_endpoint(
    stub: tuple[Settings, Path],
) -> None:
    settings, record = stub
    assert prestart_local_server(settings.model_copy(update={"llm_prestart": False})) is None
    remote = settings.model_copy(update={"base_url": "http://127.0.0.1:9/v1"})
    assert prestart_local_server(remote) is None
    assert not (settings.home / "llm").exists() and not requests(record)


def test_studio_graph_prestarts_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """langgraph.json's factory: the graph is returned at once, the model starts behind,
    the background server with the tool router's prompt as its probe."""
    started: list[tuple[Any, ...]] = []
    monkeypatch.setattr(llm_server, "prestart_local_server", lambda *a: started.append(a))
    builder.studio_graph.cache_clear()
    try:
        builder.graph()
        builder.graph()  # Studio calls it again: still one start
    finally:
        builder.studio_graph.cache_clear()
    assert len(started) == 1
    settings, probe = started[0]
    assert probe() == builder.router_probe(settings)


def test_the_router_probe_is_the_routers_own_system_prompt() -> None:
    """The background server's probe leaves exactly the prefix a routed turn sends."""
    from datetime import date

    from memagent.llm.routing import router_messages, router_probe, tool_specs
    from memagent.memory.crm import Crm
    from memagent.nodes.tools import make_tools

    tools = make_tools(Crm(":memory:"))
    day = date(2026, 12, 4)
    sent = router_messages("Draft a follow-up email to Li Wei", tool_specs(tools), day)
    probe = router_probe(tools, day)
    assert probe[0] == {"role": "system", "content": sent[0].text}
    assert all(spec["name"] in probe[0]["content"] for spec in tool_specs(tools))


def test_chat_asks_for_the_model_before_the_first_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    class Backend:
        def call(self, op: str, args: Any = None, on_event: Any = None) -> Any:
            calls.append(op)
            raise OpError("unknown request 'llm.warm' (a newer or older memagent?)", 2)

        def close(self) -> None:
            pass

    def no_input(*args: Any, **kwargs: Any) -> str:
        raise EOFError

    monkeypatch.setattr("memagent.graph.cli_chat.out.input", no_input)
    Chat(Backend(), "alice", "acme", None).run()  # an older service: no error shown
    assert calls == ["llm.warm"]


@pytest.fixture
def slow_start(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[Any], threading.Event]]:
    """``warm_local_servers`` replaced by one that records its call, blocks until the test
    releases it (a model still loading; 30 s at most), then records "loaded"."""
    started: list[Any] = []
    gate = threading.Event()

    def start(settings: Settings, background_probe: Any = None) -> None:
        started.append(background_probe)
        gate.wait(30)
        started.append("loaded")

    monkeypatch.setattr(llm_server, "warm_local_servers", start)
    yield started, gate
    gate.set()


@pytest.mark.parametrize("prestart", [True, False])
def test_the_warm_request_starts_the_model_without_waiting(
    tmp_path: Path, slow_start: tuple[list[Any], threading.Event], prestart: bool
) -> None:
    started, gate = slow_start
    settings = Settings(home=tmp_path, embedder="hash", llm_prestart=prestart)
    backend = InProcessBackend(settings)
    try:
        assert backend.call("llm.warm") == {}
        assert backend.call("llm.warm") == {}  # still starting: not twice
        time.sleep(0.3)
        assert len(started) == (1 if prestart else 0)  # one start, still loading
        if prestart:
            assert started[0]() == builder.router_probe(settings)
    finally:
        gate.set()
        backend.close()


def test_a_note_does_not_wait_for_the_model_to_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slow_start: tuple[list[Any], threading.Event]
) -> None:
    """The service starts the model when a turn's message is saved, but a note answered
    by rules returns while it is still loading (it used to wait for the whole start)."""
    started, gate = slow_start

    async def no_model(*args: Any) -> str:
        raise AssertionError("a note acknowledged by rules called the model")

    monkeypatch.setattr("memagent.llm.adapter.aensure_local_server", no_model)
    settings = Settings(home=tmp_path, embedder="hash", llm_prestart=False, note_reply="rules")
    backend = InProcessBackend(settings)
    try:
        args = {"message": "Acme's budget is 2 million CNY and Li Wei decides.",
                "user": "alice", "customer": "acme", "session": "s1"}  # fmt: skip
        reply = backend.call("turn", args)["reply"]
        assert "2 million" in reply
        assert started and "loaded" not in started, "the note waited for the model"
    finally:
        gate.set()
        backend.close()


def test_the_running_chat_server_is_handed_out_while_the_background_one_starts(
    stub: tuple[Settings, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Studio's pre-start starts the chat server, then the background one: a turn that
    asks for the chat server meanwhile gets it at once (it used to wait for both)."""
    settings, _ = stub
    release = threading.Event()
    real_wait = llm_server.wait_ready

    def wait_ready(proc: Any, url: str, log: Path, timeout: float, probe: Any = None) -> None:
        real_wait(proc, url, log, timeout, probe)
        if probe != llm_server.probe_messages():
            release.wait(30)  # the background server is still evaluating its probe

    monkeypatch.setattr(llm_server, "wait_ready", wait_ready)
    url = llm_server.ensure_local_server(settings)
    routing = [{"role": "system", "content": "You route tools."}, {"role": "user", "content": "hi"}]
    background = threading.Thread(
        target=llm_server.ensure_local_server, args=(settings, "background", routing)
    )
    background.start()
    try:
        deadline = time.monotonic() + 30
        while not list((settings.home / "llm").glob("server-background.log")):
            assert time.monotonic() < deadline, "the background server never started"
            time.sleep(0.05)
        assert llm_server.ensure_local_server(settings) == url
        assert background.is_alive(), "the chat server was handed out only after both started"
    finally:
        release.set()
        background.join(30)


def test_leaving_while_a_server_starts_stops_it(
    stub: tuple[Settings, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Studio closed while the pre-start is still loading the model: the server being
    started is stopped with the others, not orphaned in its own session."""
    settings, _ = stub
    release = threading.Event()
    real_wait = llm_server.wait_ready

    def wait_ready(proc: Any, url: str, log: Path, timeout: float, probe: Any = None) -> None:
        release.wait(30)  # still loading
        real_wait(proc, url, log, timeout, probe)

    monkeypatch.setattr(llm_server, "wait_ready", wait_ready)
    failures: list[Exception] = []

    def start() -> None:
        try:
            llm_server.ensure_local_server(settings)
        except Exception as exc:
            failures.append(exc)

    starting = threading.Thread(target=start)
    starting.start()
    deadline = time.monotonic() + 30
    while not llm_server._starting:
        assert time.monotonic() < deadline, "the server was never spawned"
        time.sleep(0.05)
    (proc,) = list(llm_server._starting)
    llm_server.close_local_servers()
    assert proc.wait(timeout=30) is not None
    release.set()
    starting.join(30)
    assert failures and isinstance(failures[0], llm_server.LLMUnavailableError)
    assert not list((settings.home / "llm").glob("server-*.json"))


def test_a_prestart_starts_nothing_once_its_host_is_shutting_down(
    stub: tuple[Settings, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Studio shuts down just as the pre-start spawns a server: that server is stopped and
    no state file is left; a later start on another thread (a new lifespan in the same
    process) still works."""
    settings, record = stub
    real_free_port = llm_server.free_port

    def shutdown_meanwhile() -> int:
        if threading.current_thread().name == "memagent-llm-prestart":
            llm_server.shutdown_local_servers()
        return real_free_port()

    monkeypatch.setattr(llm_server, "free_port", shutdown_meanwhile)
    monkeypatch.setattr(llm_server, "_exit_on_sigterm", lambda: None)
    settings = settings.model_copy(update={"llm_port": None})
    thread = prestart_local_server(settings)
    assert thread is not None
    thread.join(60)
    assert not thread.is_alive() and not llm_server._starting
    assert not list((settings.home / "llm").glob("server-*.json"))
    assert not llm_server._prestarts and not llm_server._cancelled
    llm_server.ensure_local_server(settings)  # not a pre-start: not refused
    assert list((settings.home / "llm").glob("server-*.json"))
