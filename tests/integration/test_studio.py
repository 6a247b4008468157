"""LangGraph Studio's server (`langgraph dev`) on the project's own store and checkpointer.

Starts the dev server from the repo's langgraph.json on a free port with the
in-memory runtime's file persistence off and its blocking-call detector on (never
``--allow-blocking``), drives it with langgraph_sdk, and checks:

- with a scripted endpoint and hash embeddings (fast): the threads land in memagent's
  SQLite checkpointer and the memories in memagent's store, not the runtime's defaults;
- with the real local LLM from an empty home, as a new Studio user meets it: the first
  turn gets a reply (model, server, store, SQLite and redaction key are all set up
  without blocking the event loop), and the llama.cpp server is stopped with Studio;
- in both, the server log has no logging error and no blocking-call error.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai import FakeOpenAI

pytestmark = pytest.mark.slow
langgraph_sdk = pytest.importorskip("langgraph_sdk")
ROOT = Path(__file__).resolve().parents[2]
USER, CUSTOMER = "rep-studio", "initech"
# What must never appear in langgraph dev's output.
LOG_FAULTS = ("Logging error", "BlockingError", "Blocking call to")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class DevServer:
    url: str
    home: Path
    log: Path
    proc: subprocess.Popen[bytes]

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return int(self.proc.returncode)


def _clean_env(**overrides: str) -> dict[str, str]:
    """The test process's environment without its memagent settings (the outer suite
    points MEMAGENT_HOME at a shared temp dir), plus Studio's offline flags.
    The machine's model location (``MEMAGENT_MODEL_DIR``, ``MEMAGENT_GGUF_PATH``) stays."""
    keep = {"MEMAGENT_MODEL_DIR", "MEMAGENT_GGUF_PATH"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMAGENT_") or k in keep}
    env.pop("LANGGRAPH_ALLOW_BLOCKING", None)
    return {
        **env,
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGGRAPH_DISABLE_FILE_PERSISTENCE": "true",
        **overrides,
    }


@pytest.fixture
def start_dev_server(tmp_path: Path) -> Iterator[Callable[..., DevServer]]:
    exe = Path(sys.executable).with_name("langgraph")
    if not exe.exists():
        pytest.fail("langgraph-cli[inmem] is a dev dependency and must be installed")
    servers: list[DevServer] = []

    def start(**env: str) -> DevServer:
        port = _free_port()
        home = tmp_path / "home"
        assert not home.exists()
        log = tmp_path / "server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(exe), "dev", "--port", str(port), "--host", "127.0.0.1", "--no-browser",
                 "--no-reload", "--config", str(ROOT / "langgraph.json")],
                cwd=tmp_path,
                env=_clean_env(MEMAGENT_HOME=str(home), **env),
                stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        server = DevServer(f"http://127.0.0.1:{port}", home, log, proc)
        servers.append(server)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail("langgraph dev exited:\n" + server.log_text()[-4000:])
            try:
                if httpx.get(f"{server.url}/ok", timeout=2).status_code == 200:
                    return server
            except httpx.HTTPError:
                pass
            time.sleep(1)
        pytest.fail("langgraph dev did not start:\n" + server.log_text()[-4000:])

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


def assert_clean_log(server: DevServer) -> None:
    text = server.log_text()
    found = [fault for fault in LOG_FAULTS if fault in text]
    assert not found, f"langgraph dev logged {found}:\n{text[-6000:]}"


async def _assistant(client: Any) -> dict[str, Any]:
    assistants = await client.assistants.search(graph_id="sales_agent")
    assert assistants, "sales_agent is not served"
    return dict(
        await client.assistants.create(
            graph_id="sales_agent", context={"user_id": USER, "customer_id": CUSTOMER}
        )
    )


async def _turn(client: Any, thread: str, assistant: str, text: str) -> dict[str, Any]:
    """One run to its end; its final status, as Studio shows it."""
    run = await client.runs.create(
        thread, assistant, input={"messages": [{"role": "user", "content": text}]}
    )
    await client.runs.join(thread, run["run_id"])
    return dict(await client.runs.get(thread, run["run_id"]))


async def _drive(url: str) -> dict:
    client = langgraph_sdk.get_client(url=url)
    assistant = await _assistant(client)
    thread = await client.threads.create()
    runs = [
        await _turn(client, thread["thread_id"], assistant["assistant_id"], text)
        for text in (
            "Our budget is $3 million for 200 seats.",
            "Who signs off on it?",
            "Log a commitment: send the SOC2 report by Dec 4",  # a tool: the CRM's SQLite
        )
    ]
    state = await client.threads.get_state(thread["thread_id"])
    history = await client.threads.get_history(thread["thread_id"])
    items: list = []
    for _ in range(60):  # the in-process worker drains the extraction jobs
        found = await client.store.search_items(("memagent", USER, CUSTOMER, "facts"), limit=20)
        items = found["items"]
        if items:
            break
        await asyncio.sleep(1)
    return {"thread": thread, "runs": runs, "state": state, "history": history, "items": items}


def test_studio_runs_on_project_store_and_checkpointer(
    start_dev_server: Callable[..., DevServer], fake_llm: FakeOpenAI
) -> None:
    fake_llm.route = {
        "tool": "log_commitment",
        "args": {"description": "Send the SOC2 report", "due_date": "2026-12-04"},
    }
    server = start_dev_server(MEMAGENT_BASE_URL=fake_llm.url, MEMAGENT_EMBEDDER="hash")
    out = asyncio.run(_drive(server.url))
    assert [r["status"] for r in out["runs"]] == ["success"] * 3, server.log_text()[-4000:]
    values = out["state"]["values"]
    humans = [m for m in values["messages"] if m["type"] == "human"]
    assert len(humans) == 3
    tools = [m for m in values["messages"] if m["type"] == "tool"]
    assert any("Logged commitment" in str(m["content"]) for m in tools), values["messages"]
    assert "recall_trace" in values and "working" in values and "summary" in values
    assert len(out["history"]) >= 2
    assert any(
        "3 million" in i["value"]["content"] or "$3" in i["value"]["content"] for i in out["items"]
    ), out["items"]
    # The thread is in memagent's SQLite checkpointer file, not the runtime's memory.
    with sqlite3.connect(server.home / "sessions.sqlite") as db:
        (n,) = db.execute(
            "select count(*) from checkpoints where thread_id = ?", (out["thread"]["thread_id"],)
        ).fetchone()
    assert n > 0
    # And the memories are in memagent's embedded Qdrant store directory.
    store = server.home / "store"
    assert store.is_dir() and any(store.iterdir())
    assert_clean_log(server)


async def _first_turn(url: str) -> dict[str, Any]:
    client = langgraph_sdk.get_client(url=url, timeout=900)
    assistant = await _assistant(client)
    thread = await client.threads.create()
    run = await _turn(client, thread["thread_id"], assistant["assistant_id"], "Hello! Who are you?")
    state = await client.threads.get_state(thread["thread_id"])
    return {"run": run, "messages": state["values"].get("messages", [])}


@pytest.mark.llm
def test_studio_first_turn_on_a_fresh_home_with_the_local_llm(
    start_dev_server: Callable[..., DevServer],
) -> None:
    pytest.importorskip("llama_cpp.server", reason="install the [llm] extra for the local LLM")
    started = time.monotonic()
    server = start_dev_server(MEMAGENT_CONTEXT_WINDOW="4096", MEMAGENT_REPLY_TOKENS="48")
    out = asyncio.run(_first_turn(server.url))
    elapsed = time.monotonic() - started
    assert out["run"]["status"] == "success", (
        f"run {out['run']['status']}:\n{server.log_text()[-6000:]}"
    )
    replies = [m for m in out["messages"] if m["type"] == "ai" and not m.get("tool_calls")]
    assert replies and str(replies[-1]["content"]).strip(), out["messages"]
    print(f"\nStudio first turn from an empty home: {elapsed:.1f} s (server start included)")
    assert_clean_log(server)
    # The llama.cpp server Studio started on demand leaves with it.
    states = list((server.home / "llm").glob("server-*.json"))
    assert states, "the run did not go through a local llama.cpp server of this home"
    pid = int(json.loads(states[0].read_text())["pid"])
    assert server.stop() in (0, -15, 143)
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(pid), "langgraph dev left its llama.cpp server running"
    assert_clean_log(server)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


async def _wait_runs(client: Any, thread: str, *, timeout_s: float = 90) -> list[dict[str, Any]]:
    """The thread's runs once none is pending or running (and at least one exists)."""
    deadline = time.monotonic() + timeout_s
    runs: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            runs = [dict(r) for r in await client.runs.list(thread, limit=50)]
        except Exception:  # noqa: BLE001  (the thread is created by the first schedule)
            runs = []
        if runs and all(r["status"] not in ("pending", "running") for r in runs):
            return runs
        await asyncio.sleep(0.5)
    raise AssertionError(f"extractor runs did not settle: {runs}")


async def _facts(client: Any) -> list[dict[str, Any]]:
    found = await client.store.search_items(("memagent", USER, CUSTOMER, "facts"), limit=50)
    return [i for i in found["items"] if i["value"].get("status") == "active"]


async def _drive_background(url: str) -> dict[str, Any]:
    from memagent.graph.extraction_server import extractor_thread

    client = langgraph_sdk.get_client(url=url)
    assistant = (await _assistant(client))["assistant_id"]
    thread = (await client.threads.create())["thread_id"]
    # A turn with nothing urgent waits out the debounce; the next, with an amount, is due at
    # once and rolls the pending run back, carrying the first turn with it.
    first = await _turn(client, thread, assistant, "Hi, thanks for taking the call.")
    second = await _turn(client, thread, assistant, "Our budget is $3 million for 200 seats.")
    ext = extractor_thread(thread)
    runs = await _wait_runs(client, ext)
    facts = await _facts(client)
    state = await client.threads.get_state(ext)
    conversation = await client.threads.get_state(thread)
    # Replay the extractor run from its checkpoint before `apply`, as Studio does.
    history = await client.threads.get_history(ext, limit=20)
    at_apply = next(s for s in history if s["next"] == ["apply"])
    replay = await client.runs.create(
        ext, "memory_extractor", input=None, checkpoint_id=at_apply["checkpoint"]["checkpoint_id"]
    )
    await client.runs.join(ext, replay["run_id"])
    replayed = dict(await client.runs.get(ext, replay["run_id"]))
    return {"thread": thread, "turns": [first, second], "runs": runs, "facts": facts,
            "state": state, "conversation": conversation, "replayed": replayed,
            "facts_after_replay": await _facts(client),
            "replay_state": await client.threads.get_state(ext)}  # fmt: skip


def test_extraction_runs_as_a_debounced_background_run_on_the_server(
    start_dev_server: Callable[..., DevServer], fake_llm: FakeOpenAI
) -> None:
    """Under `langgraph dev` the turn's extraction is a `memory_extractor` run on the
    server's queue (not a job in the local outbox): debounced, rolled back by the next
    turn, applied through the write path into memagent's store, and replayable."""
    server = start_dev_server(
        MEMAGENT_BASE_URL=fake_llm.url,
        MEMAGENT_EMBEDDER="hash",
        MEMAGENT_EXTRACT_DEBOUNCE_S="60",
        MEMAGENT_POISON_MODEL="false",
    )
    out = asyncio.run(_drive_background(server.url))
    log = server.log_text()[-6000:]
    assert [t["status"] for t in out["turns"]] == ["success", "success"], log
    # One extractor run: the first turn's (60 s debounce) was rolled back by the second's.
    assert [r["status"] for r in out["runs"]] == ["success"], (out["runs"], log)
    assert out["runs"][0]["metadata"]["conversation_thread"] == out["thread"]
    values = out["state"]["values"]
    said = [
        m["id"] for m in out["conversation"]["values"]["messages"] if m["type"] in ("human", "ai")
    ]
    assert set(said) <= set(values["extracted"]), (said, values["extracted"])
    assert values["result"]["actions"] == {"created": 1}, values["result"]
    contents = [f["value"]["content"] for f in out["facts"]]
    assert len(contents) == 1 and "3 million" in contents[0], contents
    # The local outbox was not used for this conversation.
    with sqlite3.connect(server.home / "jobs.sqlite") as db:
        (n,) = db.execute(
            "select count(*) from jobs where thread_id = ?", (out["thread"],)
        ).fetchone()
    assert n == 0
    # The extractor thread shares the sessions checkpointer but is not a session.
    from memagent.core.settings import Settings
    from memagent.graph.agent import list_sessions, session_state
    from memagent.graph.extraction_server import extractor_thread

    home = Settings(home=server.home, embedder="hash")
    listed = [r["session"] for r in asyncio.run(list_sessions(home))]
    assert listed == [out["thread"]], listed
    assert asyncio.run(session_state(extractor_thread(out["thread"]), home)) is None
    # A replay from the checkpoint before `apply` succeeds and writes nothing twice.
    assert out["replayed"]["status"] == "success", log
    reasons = {w["reason"] for w in out["replay_state"]["values"]["result"]["writes"]}
    assert reasons <= {"already applied (retry)", "already merged (retry)"}, reasons
    assert [f["value"] for f in out["facts_after_replay"]] == [f["value"] for f in out["facts"]]
    assert_clean_log(server)


PROSPECT = "brightwave-robotics"  # not in the CRM: a new prospect (an id keeps the rule)


async def _prospect_turns(url: str) -> dict[str, Any]:
    client = langgraph_sdk.get_client(url=url)
    assistant = await client.assistants.create(
        graph_id="sales_agent", context={"user_id": USER, "customer_id": PROSPECT}
    )
    thread = (await client.threads.create())["thread_id"]
    note = "New prospect: Brightwave Robotics. Their CFO Mei Tan decides, budget is 800k USD."
    first = await _turn(client, thread, assistant["assistant_id"], note)
    for _ in range(60):  # the in-process worker drains the extraction job
        found = await client.store.search_items(("memagent", USER, PROSPECT, "facts"), limit=20)
        if found["items"]:
            break
        await asyncio.sleep(1)
    second = await _turn(
        client, thread, assistant["assistant_id"], "What do you know about Brightwave Robotics?"
    )
    state = await client.threads.get_state(thread)
    return {"runs": [first, second], "values": state["values"], "facts": found["items"]}


@pytest.mark.parametrize("brief_reply", ["default", "model"])
def test_studio_new_prospect_then_what_is_known(
    start_dev_server: Callable[..., DevServer], fake_llm: FakeOpenAI, brief_reply: str
) -> None:
    """A newcomer's first two turns in Studio: a note about a prospect the CRM does not
    know, then a broad question in the same thread. Both runs succeed, the note is
    acknowledged with its facts and no model call (``MEMAGENT_NOTE_REPLY`` unset: rules),
    the facts are stored under the prospect and are beside the question in the prompt.
    ``MEMAGENT_BRIEF_REPLY`` unset (rules): the question is answered with the recalled
    facts and the model is never called; ``model``: the question reaches the model."""
    env = {"MEMAGENT_BRIEF_REPLY": "model"} if brief_reply == "model" else {}
    server = start_dev_server(MEMAGENT_BASE_URL=fake_llm.url, MEMAGENT_EMBEDDER="hash", **env)
    out = asyncio.run(_prospect_turns(server.url))
    assert [r["status"] for r in out["runs"]] == ["success"] * 2, server.log_text()[-4000:]
    replies = [
        m for m in out["values"]["messages"] if m["type"] == "ai" and not m.get("tool_calls")
    ]
    ack = str(replies[0]["content"])
    assert ack.startswith(f"Noted for {PROSPECT}:") and "Mei Tan" in ack and "800k" in ack, ack
    asked_model = [str([m for m in r["messages"] if m["role"] == "user"][-1]["content"])
                   for r in fake_llm.replies()]  # fmt: skip
    if brief_reply == "model":
        assert asked_model, "the question never reached the model"
        assert all("What do you know about Brightwave" in c for c in asked_model), asked_model
    else:
        assert asked_model == [], asked_model
        brief = str(replies[-1]["content"])
        assert brief.startswith(f"What I have on {PROSPECT}:"), brief
        assert "800k" in brief and "Mei Tan" in brief, brief
    assert any("800k" in i["value"]["content"] for i in out["facts"]), out["facts"]
    asked = [m for m in out["values"]["prompt"] if m["type"] == "human"][-1]["content"]
    assert "What do you know about Brightwave Robotics?" in asked
    assert "800k" in asked and "Mei Tan" in asked, asked
    assert_clean_log(server)


async def _rejected_turns(url: str) -> dict[str, Any]:
    client = langgraph_sdk.get_client(url=url)
    assistant = (await _assistant(client))["assistant_id"]
    thread = (await client.threads.create())["thread_id"]
    too_long = await _turn(client, thread, assistant, "SECRETCODE budget 9k. " * 2000)
    after_reject = await client.threads.get_state(thread)
    ok = await _turn(client, thread, assistant, "Our budget is $3 million for 200 seats.")
    bad_id = await client.assistants.create(
        graph_id="sales_agent", context={"user_id": USER, "customer_id": "Brightwave Robotics"}
    )
    bad = await _turn(client, thread, bad_id["assistant_id"], "BADIDNOTE budget is 800k.")
    state = await client.threads.get_state(thread)
    items: list = []
    for _ in range(60):  # the extraction of the valid turn
        items = (await client.store.search_items(("memagent", USER), limit=50))["items"]
        if items:
            break
        await asyncio.sleep(1)
    return {"runs": [too_long, ok, bad], "after_reject": after_reject, "values": state["values"],
            "items": items}  # fmt: skip


def test_studio_rejected_runs_keep_nothing(
    start_dev_server: Callable[..., DevServer], fake_llm: FakeOpenAI
) -> None:
    """A 44,000-character message and a customer id that breaks the rule
    (``Brightwave Robotics``) each fail their run at once, and neither message stays in
    the thread, reaches the model or goes to extraction with the next turn."""
    server = start_dev_server(MEMAGENT_BASE_URL=fake_llm.url, MEMAGENT_EMBEDDER="hash")
    out = asyncio.run(_rejected_turns(server.url))
    assert [r["status"] for r in out["runs"]] == ["error", "success", "error"], out["runs"]
    assert not out["after_reject"]["values"].get("messages")
    texts = [str(m["content"]) for m in out["values"]["messages"]]
    assert texts[0] == "Our budget is $3 million for 200 seats." and len(texts) == 2, texts
    sent = json.dumps(fake_llm.requests)  # replies and extraction calls alike
    assert "SECRETCODE" not in sent and "BADIDNOTE" not in sent
    stored = json.dumps([i["value"] for i in out["items"]], ensure_ascii=False)
    assert "3 million" in stored or "$3" in stored, stored
    assert "SECRETCODE" not in stored and "BADIDNOTE" not in stored
    assert_clean_log(server)
