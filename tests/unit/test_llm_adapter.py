"""The LLM adapter without a model: payload rewriting, structured output and tool routing
against a recording HTTP stub, and the local-server state/lock logic with a fake server
process (the model file itself: test_llm_model.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest
from fake_openai import FakeOpenAI
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from memagent.core.settings import Settings
from memagent.llm import server as llm_server
from memagent.llm.adapter import (
    LLMOutputError,
    LLMUnavailableError,
    achoose_tool,
    adapt_payload,
    astructured,
    chat_model,
    inline_refs,
    response_format,
    router_schema,
    tool_specs,
)
from memagent.llm.server import (
    LocalServer,
    ServerState,
    read_state,
    release,
    reusable,
    server_lock,
    state_file,
    write_state,
)

# --- a recording OpenAI-compatible stub ---------------------------------------------------


class Stub:
    """Answers chat completions with scripted contents and records every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[str] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                content = stub.replies.pop(0) if stub.replies else "ok"
                data = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "m"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def stub() -> Iterator[Stub]:
    s = Stub()
    yield s
    s.server.shutdown()
    s.server.server_close()


def local_model(stub: Stub, tmp_path: Path, **overrides: Any) -> Any:
    """A model in local (llama.cpp) mode whose 'local server' is the stub."""
    model = chat_model(Settings(home=tmp_path), max_retries=0, **overrides)
    model._resolve_base_url = lambda: stub.url
    model._aresolve_base_url = None  # async calls resolve through the sync one, in a thread
    return model


class Fact(BaseModel):
    kind: Literal["budget", "person"]
    value: str = Field(max_length=40)


class Facts(BaseModel):
    facts: list[Fact] = Field(max_length=3)


# --- payload ------------------------------------------------------------------------------


def test_adapt_payload_rewrites_the_three_quirks() -> None:
    payload = {
        "max_completion_tokens": 64,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
        ],
        "response_format": response_format(Facts),
    }
    out = adapt_payload(payload)
    assert out["max_tokens"] == 64 and "max_completion_tokens" not in out
    assert out["messages"][1]["content"] == ""
    assert "response_format" not in out
    fmt = out["extra_body"]["response_format"]
    assert fmt["type"] == "json_object"
    items = fmt["schema"]["properties"]["facts"]
    assert items["maxItems"] == 3
    assert items["items"]["properties"]["kind"]["enum"] == ["budget", "person"]
    assert items["items"]["properties"]["value"]["maxLength"] == 40


def test_adapt_payload_drops_text_format_and_keeps_plain_json_object() -> None:
    assert "extra_body" not in adapt_payload({"response_format": {"type": "text"}})
    out = adapt_payload({"response_format": {"type": "json_object"}})
    assert out["extra_body"]["response_format"] == {"type": "json_object"}


def test_inline_refs_resolves_defs() -> None:
    schema = inline_refs(Facts.model_json_schema())
    assert "$defs" not in json.dumps(schema) and "$ref" not in json.dumps(schema)
    assert schema["properties"]["facts"]["items"]["required"] == ["kind", "value"]


def test_building_a_local_model_starts_nothing(tmp_path: Path) -> None:
    model = chat_model(Settings(home=tmp_path))
    assert model.compat == "llamacpp"
    assert not (tmp_path / "llm").exists() and not (tmp_path / "models").exists()


def test_remote_endpoint_is_openai_compatible_mode(tmp_path: Path) -> None:
    model = chat_model(Settings(home=tmp_path, base_url="http://example.invalid/v1"))
    assert model.compat == "openai" and model._resolve_base_url is None
    payload = model._get_request_payload([HumanMessage("hi")])
    assert payload["max_completion_tokens"] == Settings().reply_tokens


def test_each_model_has_http_clients_of_its_own(tmp_path: Path) -> None:
    # langchain-openai shares one cached async client per base URL and float timeout; it is
    # bound to the event loop that first used it, so a model built for a later loop (a new
    # asyncio.run, a notebook cell, the next test) failed with "Event loop is closed"
    s = Settings(home=tmp_path, base_url="http://127.0.0.1:9/v1")
    a, b = chat_model(s), chat_model(s)
    assert a.root_async_client._client is not b.root_async_client._client
    assert a.root_client._client is not b.root_client._client


def test_small_model_name(tmp_path: Path) -> None:
    s = Settings(home=tmp_path, small_model="tiny")
    assert chat_model(s, small=True).model_name == "tiny"
    assert chat_model(s).model_name == s.model


def test_request_on_the_wire(stub: Stub, tmp_path: Path) -> None:
    model = local_model(stub, tmp_path, max_tokens=33)
    history = [
        HumanMessage("look up acme"),
        AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "acme"}, "id": "c1"}]),
        ToolMessage("acme: stage demo", tool_call_id="c1"),
    ]
    assert model.invoke(history).text == "ok"
    body = stub.requests[0]
    assert body["max_tokens"] == 33 and "max_completion_tokens" not in body
    assert body["messages"][1]["content"] == ""
    assert body["messages"][2]["role"] == "tool"


async def test_async_calls_start_the_local_server_off_the_event_loop(
    fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``langgraph dev`` a blocking call on the event loop fails the run (its
    detector is BlockBuster). Starting the local server blocks: the model assembly
    creates directories and copies a gigabyte, the spawn waits for a health check."""
    blockbuster = pytest.importorskip("blockbuster")
    on: list[str] = []

    def start_server(settings: Settings, role: str = "chat") -> str:  # what the first call does
        on.append(threading.current_thread().name)
        (settings.model_dir / "sub").mkdir(parents=True, exist_ok=True)
        time.sleep(0.05)
        return fake_llm.url

    monkeypatch.setattr(llm_server, "ensure_local_server", start_server)
    monkeypatch.setattr(llm_server, "_exit_on_sigterm", lambda: on.append("sigterm"))
    model = chat_model(Settings(home=tmp_path, model_dir=tmp_path / "models"), max_retries=0)
    detector = blockbuster.BlockBuster()
    for name in ("os.mkdir", "time.sleep", "socket.socket.connect"):
        detector.functions[name].activate()
    try:
        assert (await model.ainvoke("hi")).text == "FAKE reply to: hi"
        streamed = "".join([str(c.text) async for c in model.astream("hi")])
        assert streamed.strip() == "FAKE reply to: hi"
    finally:
        detector.deactivate()
    assert len(on) == 4 and on[0] == "sigterm" and on[2] == "sigterm"
    assert threading.main_thread().name not in on


# --- structured ---------------------------------------------------------------------------

GOOD = '{"facts": [{"kind": "budget", "value": "50k USD"}]}'


async def test_structured_sends_schema_and_validates(stub: Stub, tmp_path: Path) -> None:
    stub.replies = [GOOD]
    out = await astructured(local_model(stub, tmp_path), [HumanMessage("extract")], Facts)
    assert out == Facts(facts=[Fact(kind="budget", value="50k USD")])
    fmt = stub.requests[0]["response_format"]
    assert fmt["type"] == "json_object" and fmt["schema"]["properties"]["facts"]["maxItems"] == 3


async def test_structured_retries_once_on_invalid_output(stub: Stub, tmp_path: Path) -> None:
    stub.replies = ['{"facts": [{"kind": "price", "value": "x"}]}', GOOD]
    out = await astructured(local_model(stub, tmp_path), [HumanMessage("extract")], Facts)
    assert out.facts[0].kind == "budget"
    assert len(stub.requests) == 2
    retry = stub.requests[1]["messages"]
    assert retry[-2]["role"] == "assistant" and "price" in retry[-2]["content"]
    assert "not valid" in retry[-1]["content"] and "facts.0.kind" in retry[-1]["content"]


async def test_structured_gives_up_after_one_retry(stub: Stub, tmp_path: Path) -> None:
    stub.replies = ["not json", '{"facts": "nope"}']
    with pytest.raises(LLMOutputError, match="not a valid Facts"):
        await astructured(local_model(stub, tmp_path), [HumanMessage("extract")], Facts)
    assert len(stub.requests) == 2


def test_dead_endpoint_is_llm_unavailable(tmp_path: Path) -> None:
    port = llm_server.free_port()  # nothing listens there
    model = chat_model(Settings(home=tmp_path, base_url=f"http://127.0.0.1:{port}/v1"),
                       max_retries=0)  # fmt: skip
    with pytest.raises(LLMUnavailableError, match="unreachable"):
        model.invoke("hi")


# --- tool routing -------------------------------------------------------------------------


@tool
def lookup_customer(name: str) -> str:
    """Look up a customer account by name."""
    return name


@tool
def log_commitment(customer: str, what: str, due: str) -> str:
    """Log a commitment or follow-up with a due date (YYYY-MM-DD)."""
    return what


TOOLS = [lookup_customer, log_commitment]


def test_router_schema_ties_names_to_args() -> None:
    schema = router_schema(tool_specs(TOOLS))
    names = [b["properties"]["tool"]["const"] for b in schema["anyOf"]]
    assert names == ["lookup_customer", "log_commitment", "none"]
    assert schema["anyOf"][1]["properties"]["args"]["required"] == ["customer", "what", "due"]


async def test_choose_tool_returns_a_validated_call(stub: Stub, tmp_path: Path) -> None:
    stub.replies = ['{"tool": "lookup_customer", "args": {"name": "Acme"}}']
    history = [SystemMessage("sys"), HumanMessage("hello"), AIMessage("hi"),
               HumanMessage("What do we know about Acme?")]  # fmt: skip
    call = await achoose_tool(local_model(stub, tmp_path), history, TOOLS)
    assert call is not None
    assert call["name"] == "lookup_customer" and call["args"] == {"name": "Acme"}
    assert call["id"]
    body = stub.requests[0]
    assert body["temperature"] == 0
    assert "anyOf" in body["response_format"]["schema"]
    prompt = body["messages"][1]["content"]
    assert "Latest request: What do we know about Acme?" in prompt and "human: hello" in prompt
    assert "sys" not in prompt


async def test_choose_tool_none_means_no_call(stub: Stub, tmp_path: Path) -> None:
    stub.replies = ['{"tool": "none", "args": {}}']
    assert await achoose_tool(local_model(stub, tmp_path), "thanks!", TOOLS) is None


async def test_choose_tool_retries_when_args_do_not_fit_the_tool(
    stub: Stub, tmp_path: Path
) -> None:
    stub.replies = [
        '{"tool": "log_commitment", "args": {"customer": "Acme"}}',
        '{"tool": "log_commitment", "args": {"customer": "Acme", "what": "send deck", '
        '"due": "2026-12-01"}}',
    ]
    call = await achoose_tool(local_model(stub, tmp_path), "remind me to send Acme the deck", TOOLS)
    assert call is not None and call["args"]["due"] == "2026-12-01"
    stub.replies = ['{"tool": "delete_everything", "args": {}}'] * 2
    with pytest.raises(LLMOutputError):
        await achoose_tool(local_model(stub, tmp_path), "x", TOOLS)


# --- server state and lock ----------------------------------------------------------------


@pytest.fixture
def other_process() -> Iterator[int]:
    """A live pid that is not ours, standing in for another memagent process."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def test_release_last_one_out_stops_auto_servers(other_process: int) -> None:
    me = os.getpid()
    dead = 2**22 + 12345
    assert release(ServerState(1, 1, "m", clients=[me, dead]), me)
    assert not release(ServerState(1, 1, "m", clients=[me, other_process]), me)
    twice = ServerState(1, 1, "m", clients=[me, me])
    assert not release(twice, me) and twice.clients == [me]
    assert release(twice, me)
    served = ServerState(1, 1, "m", owner="serve", clients=[me])
    assert not release(served, me)
    assert release(served, me, stop_owner=True)


def test_reusable_needs_same_model_enough_context_and_a_live_pid(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    live = ServerState(os.getpid(), 1, str(model), n_ctx=4096)
    assert reusable(live, model, 4096)
    assert not reusable(live, model, 8192)
    assert not reusable(live, tmp_path / "other.gguf", 4096)
    assert not reusable(ServerState(2**22 + 12345, 1, str(model), n_ctx=4096), model, 4096)


def test_state_file_roundtrip_and_lock_is_exclusive(tmp_path: Path) -> None:
    path = state_file(tmp_path, tmp_path / "m.gguf")
    write_state(path, ServerState(7, 8, "m", clients=[1]))
    assert read_state(path) == ServerState(7, 8, "m", clients=[1])
    path.write_text("{broken")
    assert read_state(path) is None
    with (
        server_lock(tmp_path),
        pytest.raises(LLMUnavailableError, match="lock"),
        server_lock(tmp_path, timeout=0.3),
    ):
        pass


FAKE_SERVER = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port = int(sys.argv[sys.argv.index("--port") + 1])
mode = sys.argv[-1]
if mode == "crash":
    print("boom: cannot load model", file=sys.stderr, flush=True)
    sys.exit(3)
class H(BaseHTTPRequestHandler):
    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self._send(200, {"data": [{"id": "m"}]})
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if mode == "nogen":
            self._send(500, {"error": "segfault-ish"})
        else:
            self._send(200, {"choices": [{"message": {"role": "assistant", "content": "k"}}]})
    def log_message(self, *a):
        pass
HTTPServer(("127.0.0.1", port), H).serve_forever()
"""


FAKE_MODE = {"value": "ok"}


@pytest.fixture
def fake_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings whose 'llama.cpp server' is a tiny stub process (FAKE_MODE: ok|crash|nogen)."""
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"GGUF")
    settings = Settings(home=tmp_path / "home", gguf_path=gguf, context_window=2048)
    FAKE_MODE["value"] = "ok"

    def command(s: Settings, model: Path, port: int) -> list[str]:
        return [sys.executable, "-c", FAKE_SERVER, "llama_cpp.server", "--port", str(port),
                FAKE_MODE["value"]]  # fmt: skip

    monkeypatch.setattr(llm_server, "server_command", command)
    yield settings
    llm_server.close_local_servers()


def test_local_server_starts_reuses_and_last_one_out_stops(
    fake_server: Settings, other_process: int
) -> None:
    first = LocalServer(fake_server).__enter__()
    assert not first.reused and first.alive()
    state_path = next((fake_server.home / "llm").glob("server-*.json"))
    state = read_state(state_path)
    assert state is not None and state.clients == [os.getpid()] and state.n_ctx == 2048
    # Another memagent process joins.
    state.clients.append(other_process)
    write_state(state_path, state)
    with LocalServer(fake_server) as second:
        assert second.reused and second.base_url == first.base_url
    first.close()
    assert llm_server.pid_alive(state.pid), "still used by the other process"
    # The other process is gone: the next user to leave stops the server.
    os.kill(other_process, 9)
    with LocalServer(fake_server) as third:
        assert third.reused and third.state is not None and third.state.pid == state.pid
    assert not llm_server.pid_alive(state.pid)
    assert not state_path.exists()


def test_ensure_local_server_is_cached_per_process(fake_server: Settings) -> None:
    url = llm_server.ensure_local_server(fake_server)
    assert llm_server.ensure_local_server(fake_server) == url
    state = read_state(next((fake_server.home / "llm").glob("server-*.json")))
    assert state is not None and state.base_url == url
    llm_server.close_local_servers()
    assert not llm_server.pid_alive(state.pid)


def test_small_model_calls_have_their_own_server(fake_server: Settings) -> None:
    """With prefix reuse on, routing/summary/extraction calls (the small model) go to the
    background server, so they never evict the chat's evaluated prompt prefix; off, one
    server answers both."""
    chat = chat_model(fake_server)
    small = chat_model(fake_server, small=True)
    chat._endpoint()
    small._endpoint()
    assert chat.openai_api_base != small.openai_api_base
    files = sorted((fake_server.home / "llm").glob("server-*.json"))
    states = [read_state(p) for p in files]
    assert [p.name.endswith("-background.json") for p in files] == [True, False]
    pids = {s.pid for s in states if s is not None}
    assert len(pids) == 2 and all(llm_server.pid_alive(p) for p in pids)
    assert (fake_server.home / "llm" / "server-background.log").exists()
    shared = chat_model(fake_server.model_copy(update={"prefix_reuse": False}), small=True)
    shared._endpoint()
    assert shared.openai_api_base == chat.openai_api_base
    llm_server.close_local_servers()
    assert not any(llm_server.pid_alive(p) for p in pids)


@pytest.mark.parametrize(("mode", "message"), [("crash", "boom: cannot load model"),
                                               ("nogen", "failed its first generation")])  # fmt: skip
def test_startup_failures_say_why(fake_server: Settings, mode: str, message: str) -> None:
    FAKE_MODE["value"] = mode
    with pytest.raises(LLMUnavailableError, match=message):
        LocalServer(fake_server, startup_timeout=20).__enter__()
    assert not list((fake_server.home / "llm").glob("server-*.json"))


def test_a_server_that_dies_at_startup_gives_its_reason_in_the_first_line(
    fake_server: Settings,
) -> None:
    """The CLI shows only an error's first line: the server's own reason must be on it
    (it used to end in 'log …:' with the excerpt on the lines nobody saw)."""
    FAKE_MODE["value"] = "crash"
    with pytest.raises(LLMUnavailableError) as err:
        LocalServer(fake_server, startup_timeout=20).__enter__()
    first = str(err.value).splitlines()[0]
    assert "exited with code 3 during startup: boom: cannot load model" in first
    assert str(fake_server.home / "llm" / "server.log") in first


CLIENT = r"""
import signal, sys
from pathlib import Path
from memagent.llm import server as llm_server
from memagent.core.settings import Settings
fake, home, gguf = sys.argv[1:4]
llm_server.server_command = lambda s, m, port: [
    sys.executable, "-c", fake, "llama_cpp.server", "--port", str(port), "ok"]
llm_server.ensure_local_server(Settings(home=Path(home), gguf_path=Path(gguf)))
print("ready", flush=True)
signal.pause()  # until the test's SIGTERM: never leaves on its own (a sleep did, under load)
"""


ASYNC_CLIENT = CLIENT.replace(
    "llm_server.ensure_local_server(Settings(home=Path(home), gguf_path=Path(gguf)))",
    "import asyncio\n"
    "asyncio.run(llm_server.aensure_local_server(Settings(home=Path(home), gguf_path=Path(gguf))))",
)


@pytest.mark.parametrize("client", [CLIENT, ASYNC_CLIENT], ids=["sync", "async"])
def test_sigterm_to_the_process_still_stops_its_server(tmp_path: Path, client: str) -> None:
    """A killed CLI must not leave an orphan llama.cpp server behind, also when the
    server was started from a worker thread (async callers resolve it off the loop)."""
    assert client.count("ensure_local_server(") == 1
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"GGUF")
    home = tmp_path / "home"
    proc = subprocess.Popen(
        [sys.executable, "-c", client, FAKE_SERVER, str(home), str(gguf)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    state = read_state(next((home / "llm").glob("server-*.json")))
    assert state is not None and llm_server.pid_alive(state.pid)
    proc.terminate()
    assert proc.wait() == 128 + 15  # the process's own end, however long a loaded machine takes
    assert not llm_server.pid_alive(state.pid)
    assert not list((home / "llm").glob("server-*.json"))
