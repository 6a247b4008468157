"""LangGraph Studio's server (`langgraph dev`) on the project's own store and checkpointer.

Starts the dev server from the repo's langgraph.json on a free port with the
in-memory runtime's file persistence off, drives it with langgraph_sdk, and checks
that the threads landed in memagent's SQLite checkpointer and the memories in
memagent's store (not the runtime's in-memory defaults).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fake_openai import FakeOpenAI

pytestmark = pytest.mark.slow
langgraph_sdk = pytest.importorskip("langgraph_sdk")
ROOT = Path(__file__).resolve().parents[2]
USER, CUSTOMER = "rep-studio", "initech"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def dev_server(tmp_path: Path, fake_llm: FakeOpenAI) -> Iterator[tuple[str, Path]]:
    exe = Path(sys.executable).with_name("langgraph")
    if not exe.exists():
        pytest.fail("langgraph-cli[inmem] is a dev dependency and must be installed")
    port = _free_port()
    env = {
        **os.environ,
        "MEMAGENT_HOME": str(tmp_path / "home"),
        "MEMAGENT_BASE_URL": fake_llm.url,
        "MEMAGENT_EMBEDDER": "hash",
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGGRAPH_DISABLE_FILE_PERSISTENCE": "true",
    }
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [
            str(exe),
            "dev",
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
            "--no-browser",
            "--no-reload",
            "--config",
            str(ROOT / "langgraph.json"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(
                    "langgraph dev exited:\n" + (tmp_path / "server.log").read_text()[-4000:]
                )
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1)
        else:
            pytest.fail(
                "langgraph dev did not start:\n" + (tmp_path / "server.log").read_text()[-4000:]
            )
        yield url, tmp_path / "home"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


async def _drive(url: str) -> dict:
    client = langgraph_sdk.get_client(url=url)
    assistants = await client.assistants.search(graph_id="sales_agent")
    assert assistants, "sales_agent is not served"
    assistant = await client.assistants.create(
        graph_id="sales_agent", context={"user_id": USER, "customer_id": CUSTOMER}
    )
    thread = await client.threads.create()
    for text in ("Our budget is $3 million for 200 seats.", "Who signs off on it?"):
        await client.runs.wait(
            thread["thread_id"],
            assistant["assistant_id"],
            input={"messages": [{"role": "user", "content": text}]},
        )
    state = await client.threads.get_state(thread["thread_id"])
    history = await client.threads.get_history(thread["thread_id"])
    items: list = []
    for _ in range(60):  # the in-process worker drains the extraction jobs
        found = await client.store.search_items(("memagent", USER, CUSTOMER, "facts"), limit=20)
        items = found["items"]
        if items:
            break
        await asyncio.sleep(1)
    return {"thread": thread, "state": state, "history": history, "items": items}


def test_studio_runs_on_project_store_and_checkpointer(dev_server: tuple[str, Path]) -> None:
    url, home = dev_server
    out = asyncio.run(_drive(url))
    values = out["state"]["values"]
    humans = [m for m in values["messages"] if m["type"] == "human"]
    assert len(humans) == 2
    assert "recall_trace" in values and "working" in values and "summary" in values
    assert len(out["history"]) >= 2
    assert any(
        "3 million" in i["value"]["content"] or "$3" in i["value"]["content"] for i in out["items"]
    ), out["items"]
    # The thread is in memagent's SQLite checkpointer file, not the runtime's memory.
    with sqlite3.connect(home / "sessions.sqlite") as db:
        (n,) = db.execute(
            "select count(*) from checkpoints where thread_id = ?", (out["thread"]["thread_id"],)
        ).fetchone()
    assert n > 0
    # And the memories are in memagent's embedded Qdrant store directory.
    assert (home / "store").is_dir() and any((home / "store").iterdir())
