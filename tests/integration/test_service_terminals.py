"""Several terminals on one home at once, through the default path: the per-home service.

Real ``memagent`` processes (chat, ask, memories, maintain, sessions, jobs, doctor,
service) on one ``MEMAGENT_HOME``, with the real embedded Qdrant store, SQLite
checkpointer and job queue owned by the service they start; the model is the fake
OpenAI-compatible server (slow on purpose where turns must overlap). Checks: no lock
errors, no lost message or reply, turns of one session in order, Ctrl-C cancelling
one turn and not the chat, slash commands kept out of the session, a failed ask run
again not duplicating its message, one service per home, idle stop.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from terminals import ChatTerminal, run

pytestmark = pytest.mark.slow


@pytest.fixture
def env(tmp_path: Path, fake_llm: FakeOpenAI) -> Iterator[dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMAGENT_")}
    env = {
        **base,
        "MEMAGENT_HOME": str(tmp_path / "home"),
        "MEMAGENT_BASE_URL": fake_llm.url,
        "MEMAGENT_EMBEDDER": "hash",
        "MEMAGENT_LLM_TIMEOUT": "30",
        "MEMAGENT_SERVICE_IDLE_S": "120",
    }
    yield env
    run(env, "service", "stop", timeout=200)


def ok(res: Any) -> Any:
    assert res.returncode == 0, f"exit {res.returncode}\n{res.stdout}\n{res.stderr}"
    assert "Traceback" not in res.stderr and "locked" not in res.stderr.lower(), res.stderr
    return res


def shown(env: dict[str, str], session: str) -> list[tuple[str, str]]:
    data = json.loads(ok(run(env, "sessions", "show", session, "--json")).stdout)
    return [(m["role"], m["content"].strip()) for m in data["messages"]]


def status(env: dict[str, str]) -> dict[str, Any]:
    return dict(json.loads(ok(run(env, "service", "status", "--json")).stdout))


def test_terminals_work_at_once_on_one_home(env: dict[str, str], fake_llm: FakeOpenAI) -> None:
    fake_llm.token_delay_s = 0.05  # a reply takes ~0.5 s: the two asks below overlap
    chat = ChatTerminal(env, "--user", "alice", "--customer", "acme", "--session", "c1")
    try:
        seen = chat.wait_for("you>")
        chat.send("Our budget is 3 million dollars.")  # a note: acknowledged, no model call
        seen = chat.wait_for("Noted for acme:", after=seen)
        seen = chat.wait_for("3 million", after=seen)
        asked = [str([m for m in r["messages"] if m["role"] == "user"][-1]["content"])
                 for r in fake_llm.replies()]  # fmt: skip
        assert not any("Our budget is 3 million" in c for c in asked), asked  # no model call
        seen = chat.wait_for("you>", after=seen)  # the chat sits idle at its prompt
        commands = [
            ("memories", "list", "--user", "alice", "--json"),
            ("maintain", "--json"),
            ("ask", "Hello from bob", "--user", "bob", "--customer", "globex", "--json"),
            ("ask", "First question A", "--user", "carol", "--session", "shared", "--json"),
            ("ask", "Second question B", "--user", "carol", "--session", "shared", "--json"),
            ("sessions", "list", "--json"),
            ("jobs", "status", "--json"),
            ("doctor",),
        ]
        with ThreadPoolExecutor(len(commands)) as pool:
            results = list(pool.map(lambda args: run(env, *args), commands))
        for res in results:
            ok(res)
        replies = [json.loads(r.stdout)["reply"] for r in results[2:5]]
        assert replies[0].startswith("FAKE reply to: Hello from bob"), replies
        # Both turns of the shared session and both replies, each reply after its message.
        pairs = shown(env, "shared")
        assert len(pairs) == 4, pairs
        for (role, text), (reply_role, reply) in zip(pairs[::2], pairs[1::2], strict=True):
            assert (role, reply_role) == ("human", "ai") and reply == f"FAKE reply to: {text}"
        assert {text for role, text in pairs if role == "human"} == {
            "First question A",
            "Second question B",
        }
        chat.send("And the timeline?")
        seen = chat.wait_for("FAKE reply to: And the timeline?", after=seen)
        chat.send("/quit")
        assert chat.close() == 0, chat.output
    finally:
        chat.close()
    assert [role for role, _ in shown(env, "c1")] == ["human", "ai", "human", "ai"]
    assert status(env)["running"]


def test_one_service_per_home_when_many_start_at_once(env: dict[str, str]) -> None:
    args = ("memories", "list", "--user", "u", "--json")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: run(env, *args), range(4)))
    for res in results:
        assert json.loads(ok(res).stdout) == []
    state = status(env)
    log = Path(state["log"]).read_text()
    assert log.count("serving") == 1, log
    sock, folder = Path(state["socket"]), Path(state["socket"]).parent
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not str(sock).startswith(env["MEMAGENT_HOME"])


def test_service_stops_when_idle_and_by_command(env: dict[str, str]) -> None:
    idle = {**env, "MEMAGENT_SERVICE_IDLE_S": "1"}
    ok(run(idle, "memories", "list", "--user", "u"))
    deadline = time.monotonic() + 60
    while status(idle)["running"] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not status(idle)["running"], "the idle service did not stop"
    started = json.loads(ok(run(env, "service", "start", "--json")).stdout)
    assert started["running"] and started["pid"] > 0
    assert json.loads(ok(run(env, "service", "stop", "--json")).stdout) == {"stopped": True}
    assert not status(env)["running"]
    assert json.loads(ok(run(env, "memories", "list", "--user", "u", "--json")).stdout) == []


def test_a_home_deleted_and_made_again_gets_a_new_service(env: dict[str, str]) -> None:
    """`rm -rf` of the home while its service idles: the next command must not be served
    by the old service, which holds the deleted store and would write where nobody reads."""
    added = run(env, "memories", "add", "Budget is 40k EUR", "--customer", "c", "--json")
    assert json.loads(ok(added).stdout)["stored"]
    first = status(env)["pid"]
    shutil.rmtree(env["MEMAGENT_HOME"])
    assert json.loads(ok(run(env, "memories", "list", "--customer", "c", "--json")).stdout) == []
    ok(run(env, "memories", "add", "Budget is 55k EUR", "--customer", "c", "--json"))
    assert status(env)["pid"] != first
    (row,) = json.loads(ok(run(env, "memories", "list", "--customer", "c", "--json")).stdout)
    assert row["content"] == "Budget is 55k EUR"
    assert list(Path(env["MEMAGENT_HOME"]).iterdir()), "the new service wrote nothing to the home"


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_ctrl_c_cancels_the_reply_not_the_chat(
    env: dict[str, str], fake_llm: FakeOpenAI, mode: str
) -> None:
    env = {**env, "MEMAGENT_SERVICE": mode}
    fake_llm.token_delay_s = 0.4
    chat = ChatTerminal(env, "--user", "alice", "--customer", "acme", "--session", "k1")
    try:
        seen = chat.wait_for("you>")
        chat.send("Tell me about the rollout plan")
        seen = chat.wait_for("assistant>", after=seen)  # the reply is streaming
        chat.interrupt()
        seen = chat.wait_for("cancelled: your message is saved", after=seen)
        seen = chat.wait_for("you>", after=seen)
        assert chat.proc.poll() is None, chat.output  # the chat goes on
        fake_llm.token_delay_s = 0.0
        chat.send("/retry")
        seen = chat.wait_for("FAKE reply to: Tell me about the rollout plan", after=seen)
        chat.send("/quit")
        assert chat.close() == 0, chat.output
    finally:
        chat.close()
    assert shown(env, "k1") == [
        ("human", "Tell me about the rollout plan"),
        ("ai", "FAKE reply to: Tell me about the rollout plan"),
    ]


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_slash_commands_never_reach_the_model_or_the_session(
    env: dict[str, str], fake_llm: FakeOpenAI, mode: str
) -> None:
    env = {**env, "MEMAGENT_SERVICE": mode}
    chat = ChatTerminal(env, "--user", "alice", "--customer", "acme", "--session", "h1")
    try:
        chat.send("/help")
        seen = chat.wait_for("/retry")
        chat.send("/frobnicate now")
        seen = chat.wait_for("unknown command /frobnicate", after=seen)
        chat.send("/quit")
        assert chat.close() == 0, chat.output
    finally:
        chat.close()
    assert fake_llm.replies() == []
    missing = run(env, "sessions", "show", "h1")
    assert missing.returncode == 2 and "no session" in missing.stderr


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_a_failed_ask_run_again_keeps_one_message(
    env: dict[str, str], fake_llm: FakeOpenAI, mode: str
) -> None:
    env = {**env, "MEMAGENT_SERVICE": mode}
    dead = {**env, "MEMAGENT_BASE_URL": "http://127.0.0.1:9/v1", "MEMAGENT_LLM_TIMEOUT": "5"}
    scope = ("--user", "alice", "--customer", "acme", "--session", "d1")
    for _ in range(3):
        res = run(dead, "ask", "hello", *scope)
        assert res.returncode == 3, res.stderr
        assert "your message is saved" in res.stderr and "--retry" in res.stderr, res.stderr
    assert shown(dead, "d1") == [("human", "hello")]
    out = json.loads(ok(run(env, "ask", "--retry", *scope, "--json")).stdout)
    assert out["reply"].startswith("FAKE reply to: hello") and out["turn"] == 1
    assert shown(env, "d1") == [("human", "hello"), ("ai", "FAKE reply to: hello")]
    again = run(env, "ask", "--retry", *scope)
    assert again.returncode == 2 and "nothing to retry" in again.stderr, again.stderr


def test_a_busy_service_with_other_settings_is_named_not_restarted(
    env: dict[str, str], fake_llm: FakeOpenAI
) -> None:
    fake_llm.token_delay_s = 0.3
    ok(run(env, "service", "start"))
    with ThreadPoolExecutor(1) as pool:
        # A question, so the (slow) model answers it: a note is acknowledged at once.
        slow = pool.submit(run, env, "ask", "A slow question for the model?", "--session", "b1")
        deadline = time.monotonic() + 30
        while not status(env).get("turns") and time.monotonic() < deadline:
            time.sleep(0.05)
        other = run({**env, "MEMAGENT_TEMPERATURE": "0.9"}, "memories", "list", "--user", "u")
        assert other.returncode == 1 and "other settings (temperature)" in other.stderr
        assert "Traceback" not in other.stderr
        ok(slow.result())
    fake_llm.token_delay_s = 0.0
    # Idle now: the service restarts with the new settings, and says so.
    res = ok(run({**env, "MEMAGENT_TEMPERATURE": "0.9"}, "memories", "list", "--user", "u"))
    assert "restarted the memagent service" in res.stderr


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_ctrl_c_on_ask_says_how_to_finish_the_turn(
    env: dict[str, str], fake_llm: FakeOpenAI, mode: str
) -> None:
    import signal
    import subprocess

    from terminals import MEMAGENT

    env = {**env, "MEMAGENT_SERVICE": mode}
    fake_llm.token_delay_s = 0.4
    scope = ["--user", "alice", "--customer", "acme", "--session", "i1"]
    proc = subprocess.Popen(
        [MEMAGENT, "ask", "What is the plan for the pilot?", *scope],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not fake_llm.replies() and time.monotonic() < deadline:
        time.sleep(0.05)  # the model has the prompt: the message is checkpointed
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted: your message is saved" in stderr and "--retry" in stderr, stderr
    assert "Traceback" not in stderr
    fake_llm.token_delay_s = 0.0
    out = json.loads(ok(run(env, "ask", "--retry", *scope, "--json")).stdout)
    assert out["reply"].startswith("FAKE reply to: What is the plan for the pilot?")
    assert [role for role, _ in shown(env, "i1")] == ["human", "ai"]


def test_in_process_terminals_on_a_shared_store_lose_no_reply(
    env: dict[str, str], fake_llm: FakeOpenAI
) -> None:
    """Outside the service (``MEMAGENT_SERVICE=off``) two processes can share the embedded
    store (``MEMAGENT_STORE_SHARED``): their turns of one session still take turns."""
    env = {**env, "MEMAGENT_SERVICE": "off", "MEMAGENT_STORE_SHARED": "true"}
    fake_llm.token_delay_s = 0.1
    asks = [("ask", text, "--session", "sh", "--json") for text in ("Question A", "Question B")]
    with ThreadPoolExecutor(2) as pool:
        for res in pool.map(lambda args: run(env, *args), asks):
            ok(res)
    pairs = shown(env, "sh")
    assert len(pairs) == 4, pairs
    for (role, text), (reply_role, reply) in zip(pairs[::2], pairs[1::2], strict=True):
        assert (role, reply_role) == ("human", "ai") and reply == f"FAKE reply to: {text}"
