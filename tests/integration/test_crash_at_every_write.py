"""A process killed at any checkpoint write of a turn loses nothing and repeats nothing.

A child process runs turn 1 of a session, then turn 2, and dies (``os._exit``, as a
SIGKILL would leave it) at its N-th checkpointer write, for every N a turn makes. This
process then does what ``bench/scale_agent.py`` does after a crash: it sends again every
message the checkpoint does not show answered, then turn 3. The session must hold each
user message once, each with its own reply, and the extraction jobs must cover all three.

Two windows failed before: a node's writes saved but not yet folded into a checkpoint
hide the unfinished run from ``StateSnapshot.next`` (the message was appended a second
time), and a reply saved that way was dropped by the next message (the CI's
``test_scale_out`` flake: "user turns 4 (want 3)", "a message without its own reply").
Real LangGraph, SQLite checkpointer and outbox; echo chat model, hash embeddings.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from offline_env import offline_env

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parents[2] / "bench"
SESSION = "s000"

CHILD = """
import asyncio, os, sys
sys.path.insert(0, {bench!r})
from scale_agent import Echo, message
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.settings import load_settings

CRASH_AT = int(sys.argv[1])

async def main():
    model = Echo(messages=iter(()))
    async with aopen_agent(load_settings(), chat_model_factory=lambda s=None, *, small=False: model,
                           start_worker=False) as agent:
        saver, seen = agent.graph.checkpointer, {{"n": 0, "armed": False}}
        for name in ("aput", "aput_writes"):
            def wrap(orig):
                async def write(*args, **kwargs):
                    if seen["armed"]:
                        seen["n"] += 1
                        if seen["n"] == CRASH_AT:
                            os._exit(9)
                    return await orig(*args, **kwargs)
                return write
            setattr(saver, name, wrap(getattr(saver, name)))
        await arun_turn(agent, message("s000", 1), user_id="u-s000", customer_id="acme",
                        session="s000")
        seen["armed"] = True
        await arun_turn(agent, message("s000", 2), user_id="u-s000", customer_id="acme",
                        session="s000")
        print(seen["n"])

asyncio.run(main())
"""


def _child(home: Path, crash_at: int) -> subprocess.CompletedProcess[str]:
    code = CHILD.format(bench=str(BENCH))
    return subprocess.run(
        [sys.executable, "-c", code, str(crash_at)],
        env=offline_env(home), capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _writes_per_turn(tmp_path: Path) -> int:
    done = _child(tmp_path / "count", 0)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


async def _resume_and_check(home: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    sys.path.insert(0, str(BENCH))
    from scale_agent import Echo, message

    from memagent.graph.agent import aopen_agent, arun_turn
    from memagent.graph.jobs import open_queue
    from memagent.graph.settings import load_settings

    for key, value in offline_env(home).items():
        monkeypatch.setenv(key, value)
    settings = load_settings()
    model = Echo(messages=iter(()))
    config: Any = {"configurable": {"thread_id": SESSION}}
    async with aopen_agent(
        settings, chat_model_factory=lambda s=None, *, small=False: model, start_worker=False
    ) as agent:
        snap = await agent.graph.aget_state(config)
        msgs = list((snap.values or {}).get("messages", []))
        answered = {
            str(m.text)
            for m, nxt in zip(msgs, msgs[1:], strict=False)
            if isinstance(m, HumanMessage) and isinstance(nxt, AIMessage)
        }
        for turn in (1, 2, 3):
            if message(SESSION, turn) not in answered:
                await arun_turn(
                    agent, message(SESSION, turn), user_id="u-s000", customer_id="acme",
                    session=SESSION,
                )  # fmt: skip
        final = list((await agent.graph.aget_state(config)).values["messages"])
    problems = []
    pairs = [(m.type, str(m.text)) for m in final]
    want = []
    for turn in (1, 2, 3):
        said = message(SESSION, turn)
        want += [("human", said), ("ai", f"re: {said}")]
    if pairs != want:
        problems.append(f"messages {pairs}")
    queue = open_queue(settings)
    try:
        queued = {i for job in queue.jobs(limit=100) for i in job.message_ids}
    finally:
        queue.close()
    humans = [m.id for m in final if isinstance(m, HumanMessage)]
    if missing := [i for i in humans if i not in queued]:
        problems.append(f"user messages never queued for extraction: {missing}")
    return problems


def test_a_turn_killed_at_any_checkpoint_write_is_finished_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = _writes_per_turn(tmp_path)
    assert writes >= 8  # checkpoints and task writes of the six nodes; guards the sweep
    failures = {}
    for crash_at in range(1, writes + 1):
        home = tmp_path / f"crash-{crash_at}"
        crashed = _child(home, crash_at)
        # a run that made fewer writes than the counting run (none seen so far) ends
        # normally before the crash point; anything else is a failure of the child itself
        ran_out = crashed.returncode == 0 and int(crashed.stdout.split()[-1]) < crash_at
        assert crashed.returncode == 9 or ran_out, (crash_at, crashed.stderr[-2000:])
        with monkeypatch.context() as patch:
            problems = asyncio.run(_resume_and_check(home, patch))
        if problems:
            failures[crash_at] = problems
    assert failures == {}, failures
