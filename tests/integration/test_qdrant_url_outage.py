"""The agent on a Qdrant URL whose server is down (a refused port on 127.0.0.1): it opens,
replies with recall marked degraded, and the turn's extraction job waits in the outbox
instead of being dead-lettered. Real SQLite checkpointer and outbox, real qdrant-client,
the real rules extractor and worker; only the chat model is scripted."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from graph_fakes import ScriptedChatModel
from langchain_core.messages import AIMessage

from memagent.core.settings import Settings
from memagent.graph.agent import aopen_agent, arun_turn


def _refused_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


async def test_replies_go_on_and_jobs_wait_while_the_qdrant_server_is_down(
    tmp_path: Path,
) -> None:
    settings = Settings(
        home=tmp_path, embedder="hash", qdrant_url=_refused_url(), qdrant_retries=2,
        qdrant_timeout_s=1, extract_max_attempts=2, poison_model=False,
    )  # fmt: skip
    model = ScriptedChatModel(messages=iter([AIMessage("Noted: 3 million."), AIMessage("Ok.")]))
    started = time.monotonic()
    async with aopen_agent(
        settings, chat_model_factory=lambda s=None, *, small=False: model, start_worker=False
    ) as agent:
        opened = time.monotonic()
        result = await arun_turn(
            agent, "Our budget is $3 million for 200 seats.", user_id="u1", customer_id="c1"
        )
        replied = time.monotonic()
        assert result.reply == "Noted: 3 million."
        assert "recall" in result.degraded
        assert agent.queue is not None
        from memagent.graph.worker import Worker

        worker = Worker.for_settings(settings, queue=agent.queue, outage_delay_s=0.0)
        try:
            for _ in range(4):  # more rounds than extract_max_attempts
                report = worker.drain(max_jobs=1)
                assert report.released == 1 and report.failed == 0, report
        finally:
            worker.close()
        (job,) = agent.queue.jobs()
        assert job.status == "pending" and job.attempts == 0
        assert "unreachable" in (job.last_error or "")
    print(f"\nQdrant down: open {opened - started:.2f} s, turn {replied - opened:.2f} s")
