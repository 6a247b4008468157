"""Two turns of one session launched at once run one after the other (``session_lock``).

Real SQLite checkpointer, real embedded Qdrant store (hash embeddings), the real graph;
the chat model is scripted and sleeps, so without the lock the second turn would start
from a checkpoint the first has not finished writing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from memagent.core.settings import Settings
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.nodes.prompt_assembly import without_briefing

FIRST = "Keep every proposal under 500 words."
SECOND = "Our budget is $120,000 for the rollout."


class SlowEcho(GenericFakeChatModel):
    """Answers ``re: <the user's message>`` after yielding to the event loop."""

    delay_s: float = 0.2

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        await asyncio.sleep(self.delay_s)  # the other turn runs here without the lock
        prompt = without_briefing(messages)  # the user's words, not the recalled notes
        asked = next(m for m in reversed(prompt) if isinstance(m, HumanMessage))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(f"re: {asked.text}"))])


async def test_concurrent_turns_on_one_session_are_serialised(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path, embedder="hash", extractor="rules", rewriter="rules", recall="hybrid"
    )
    model = SlowEcho(messages=iter(()))
    async with aopen_agent(
        settings, chat_model_factory=lambda settings=None, *, small=False: model
    ) as agent:
        first, second = await asyncio.gather(
            arun_turn(agent, FIRST, user_id="alice", customer_id="acme", session="race"),
            arun_turn(agent, SECOND, user_id="alice", customer_id="acme", session="race"),
        )
        assert first.reply == f"re: {FIRST}" and second.reply == f"re: {SECOND}"
        assert sorted([first.turn, second.turn]) == [1, 2]
        state = (await agent.graph.aget_state({"configurable": {"thread_id": "race"}})).values

    pairs = [(m.type, str(m.text)) for m in state["messages"]]
    assert len(pairs) == 4, pairs
    # Each human message is followed by its own reply: no interleaving.
    for (kind, text), (reply_kind, reply) in zip(pairs[::2], pairs[1::2], strict=True):
        assert (kind, reply_kind) == ("human", "ai") and reply == f"re: {text}", pairs
    assert {text for kind, text in pairs if kind == "human"} == {FIRST, SECOND}
    assert state["turn"] == 2
    # Working memory holds both turns' slots: the second turn did not overwrite the first.
    constraints = state["working"]["constraints"]
    assert {"length_limit", "budget"} <= set(constraints), constraints
    assert state["working"]["version"] == 2


def test_sync_agent_serialises_turns_from_two_threads(tmp_path: Path) -> None:
    """``open_agent`` runs every turn on its private loop, so the same lock applies."""
    from concurrent.futures import ThreadPoolExecutor

    from memagent.graph.agent import open_agent, run_turn

    settings = Settings(home=tmp_path, embedder="hash", extractor="rules", rewriter="rules")
    model = SlowEcho(messages=iter(()))
    with (
        open_agent(settings, chat_model_factory=lambda settings=None, *, small=False: model) as a,
        ThreadPoolExecutor(2) as pool,
    ):
        futures = [
            pool.submit(run_turn, a, text, user_id="alice", customer_id="acme", session="t")
            for text in (FIRST, SECOND)
        ]
        results = [f.result(timeout=120) for f in futures]
        state = a.call(a.agent.graph.aget_state({"configurable": {"thread_id": "t"}})).values
    assert sorted(r.turn for r in results) == [1, 2]
    assert [m.type for m in state["messages"]] == ["human", "ai", "human", "ai"]
    assert {"length_limit", "budget"} <= set(state["working"]["constraints"])
