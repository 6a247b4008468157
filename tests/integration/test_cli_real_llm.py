"""The embedded default end to end: `memagent ask --json` on the real local LLM.

Each `ask` is its own process, like a user's: a client of the home's service, which
the first one starts and which starts the local llama.cpp server, runs the turn
through the compiled graph with the SQLite checkpointer and the embedded Qdrant
store, and stays up for the next one. Between the sessions `memagent jobs drain`
applies the extraction jobs, so the budget stated in session 1 must come back in
session 2's recall. Each test stops its home's service (and with it the model).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.llm, pytest.mark.slow]

pytest.importorskip("llama_cpp.server", reason="install the [llm] extra for the local LLM")


@pytest.fixture(autouse=True)
def stop_service(tmp_path: Path) -> Iterator[None]:
    yield
    _memagent(tmp_path, "service", "stop", timeout=300)


def _memagent(home: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MEMAGENT_HOME": str(home),
        "MEMAGENT_REPLY_TOKENS": "48",
        "MEMAGENT_CONTEXT_WINDOW": "4096",
        "MEMAGENT_SERVICE": "auto",  # the default path, whatever the suite's default
    }
    env.pop("MEMAGENT_BASE_URL", None)
    exe = Path(sys.executable).with_name("memagent")
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def _ask(home: Path, message: str, *extra: str) -> dict:
    res = _memagent(
        home, "ask", message, "--user", "rep-1", "--customer", "globex", "--json", *extra
    )
    assert res.returncode == 0, (
        f"exit {res.returncode}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
    )
    return json.loads(res.stdout)


def test_ask_json_on_real_local_llm(tmp_path: Path) -> None:
    first = _ask(
        tmp_path, "Our budget for the CRM rollout is $3 million, for 200 seats.", "--session", "s1"
    )
    assert first["reply"].strip(), first
    assert first["session"] == "s1"
    assert first["prompt_tokens"] > 0
    assert first["trace_id"]

    drained = _memagent(tmp_path, "jobs", "drain")
    assert drained.returncode == 0, drained.stderr

    second = _ask(tmp_path, "Remind me, what budget did we agree on last time?", "--session", "s2")
    assert second["reply"].strip(), second
    recalled = " ".join(item["content"] for item in second["recalled"])
    assert "3" in recalled and "million" in recalled.lower(), second["recalled"]
    # The session-1 thread is untouched by session 2 and still resumable.
    again = _ask(tmp_path, "Thanks.", "--session", "s1")
    assert again["session"] == "s1"


def test_dead_endpoint_is_a_clear_error(tmp_path: Path) -> None:
    env_home = tmp_path
    res = subprocess.run(
        [
            str(Path(sys.executable).with_name("memagent")),
            "ask",
            "hello",
            "--user",
            "rep-1",
            "--customer",
            "globex",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "MEMAGENT_HOME": str(env_home),
            "MEMAGENT_BASE_URL": "http://127.0.0.1:9/v1",
            "MEMAGENT_LLM_TIMEOUT": "5",
        },
    )
    assert res.returncode != 0
    assert "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip(), "a dead endpoint must say so on stderr"


def test_chat_streams_the_reply_on_real_local_llm(tmp_path: Path) -> None:
    """`memagent chat`'s path: a turn through the home's service (started on demand), the
    reply arriving as several token events that add up to the stored reply."""
    from memagent.core.settings import Settings
    from memagent.graph.service.backend import ServiceBackend

    settings = Settings(home=tmp_path, base_url=None, reply_tokens=48, context_window=4096)
    events: list[dict] = []
    args = {"message": "Say hello to the Globex team in two sentences.", "user": "rep-1",
            "customer": "globex", "session": "c1"}  # fmt: skip
    data = ServiceBackend(settings).call("turn", args, events.append)
    tokens = [str(e["text"]) for e in events if e.get("t") == "token"]
    assert len(tokens) >= 2, events
    assert "".join(tokens).strip() == str(data["reply"]).strip()
