"""One agent process of ``bench/scale_bench.py``: runs its sessions' turns, logs each.

    python bench/scale_agent.py LOG SESSIONS TURNS CONCURRENCY

Settings come from the environment (``MEMAGENT_*``), as for any memagent process. The
chat model is an echo (``re: <message>``), so the LLM is not the bottleneck. A session
resumed after its previous agent was killed skips the turns its checkpoint shows
answered, and re-sends an unanswered one (``arun_turn`` resumes it: no duplicate).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.settings import load_settings

SAID = re.compile(r"\[s\d+\] turn \d+: [^\n]*million dollars\. Is that enough\?")
"""A message of ``message`` in the prompt's copy of it."""


class Echo(GenericFakeChatModel):
    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        await asyncio.sleep(0.01)
        asked = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
        # the prompt's copy of the message may carry the memory briefing: echo the message
        said = SAID.findall(str(asked.text))
        text = said[-1] if said else str(asked.text)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(f"re: {text}"))])


def message(session: str, turn: int) -> str:
    """Turn ``turn`` of ``session``: names its session, states a new budget each turn, and
    asks something, so the (echo) model answers it rather than the note acknowledgement
    (``memagent.nodes.note_ack``): each reply then names the message it answers."""
    return f"[{session}] turn {turn}: our budget is now {turn} million dollars. Is that enough?"


def user_of(session: str) -> str:
    return "u-" + session


async def main(log_path: str, sessions: list[str], turns: int, concurrency: int) -> None:
    settings = load_settings()
    model = Echo(messages=iter(()))
    sem = asyncio.Semaphore(concurrency)
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - flushed per line

    async with aopen_agent(
        settings, chat_model_factory=lambda s=None, *, small=False: model, start_worker=False
    ) as agent:

        async def answered(session: str) -> set[str]:
            snap = await agent.graph.aget_state({"configurable": {"thread_id": session}})
            msgs = list((snap.values or {}).get("messages", []))
            return {
                str(m.text)
                for m, nxt in zip(msgs, msgs[1:], strict=False)
                if isinstance(m, HumanMessage) and isinstance(nxt, AIMessage)
            }

        async def run(session: str) -> None:
            done = await answered(session)
            for i in range(1, turns + 1):
                text = message(session, i)
                if text in done:
                    continue
                async with sem:
                    start = time.time()
                    r = await arun_turn(
                        agent, text, user_id=user_of(session), customer_id="acme", session=session
                    )
                entry = {"session": session, "turn": i, "reply": r.reply, "taken": r.taken,
                         "start": start, "end": time.time()}  # fmt: skip
                log.write(json.dumps(entry) + "\n")
                log.flush()

        await asyncio.gather(*(run(s) for s in sessions))
    log.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4])))
