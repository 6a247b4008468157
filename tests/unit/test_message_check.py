"""A run a LangGraph client (Studio) sends with a message the CLI would refuse fails at
once, and the message is kept nowhere: not in the thread, not in the next turn's
extraction job, not in the next prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from graph_fakes import factory, memory_store, scripted
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from memagent.core.context import Context
from memagent.core.types import Turn
from memagent.graph.builder import build_graph
from memagent.graph.validation import InvalidMessageError
from memagent.nodes.async_extract import make_async_extract
from memagent.nodes.query_rewrite import make_rewriter
from memagent.nodes.recall import make_recall_node

CTX = Context(user_id="alice", customer_id="acme")
LONG = "SECRETCODE budget 9k. " * 2000  # 44,000 characters: over the 32,000 limit


class Jobs:
    """A job sink that records what each submit would hand the extractor."""

    def __init__(self) -> None:
        self.turns: list[Sequence[Turn]] = []

    def submit(self, *, turns: Sequence[Turn], **kwargs: Any) -> None:
        self.turns.append(list(turns))


def compiled(model: Any, jobs: Jobs) -> Any:
    builder = build_graph(
        rewriter=make_rewriter("rules", small_model=lambda: model),
        recall=make_recall_node("hybrid"),
        extractor=make_async_extract(jobs),
        tools=[],
        chat_model_factory=factory(model),
    )
    return builder.compile(checkpointer=InMemorySaver(), store=memory_store())


@pytest.mark.parametrize(
    "bad",
    [[LONG], ["   "], ["Budget is 5k.", LONG]],
    ids=["over-long", "blank", "valid-then-over-long"],
)
async def test_a_rejected_message_is_kept_nowhere(bad: list[str]) -> None:
    """Session 13: the rejected run failed, but its message stayed in the thread, so the
    next turn's extraction job took it in with that turn's message (the user messages
    since the last reply are one turn)."""
    model, jobs = scripted("Noted."), Jobs()
    graph = compiled(model, jobs)
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(InvalidMessageError, match="empty|the limit is 32000"):
        await graph.ainvoke({"messages": [HumanMessage(t) for t in bad]}, config, context=CTX)
    assert not jobs.turns and not model.seen
    kept = [str(m.text) for m in (await graph.aget_state(config)).values.get("messages", [])]
    assert kept == [t for t in bad if t.strip() and len(t) <= 32_000]

    out = await graph.ainvoke(
        {"messages": [HumanMessage("Deadline is Friday.")]}, config, context=CTX
    )
    assert isinstance(out["messages"][-1], AIMessage)
    texts = [t.content for turns in jobs.turns for t in turns]
    assert "Deadline is Friday." in texts
    assert not any("SECRETCODE" in t for t in texts)
    assert not any("SECRETCODE" in str(m.text) for m in model.seen[-1])
    assert not any("SECRETCODE" in str(m.text) for m in out["messages"])


async def test_a_valid_message_after_an_unanswered_one_still_joins_it() -> None:
    """Only rejected messages are removed: an unanswered valid one is still this turn's."""
    model, jobs = scripted("Noted."), Jobs()
    graph = compiled(model, jobs)
    config = {"configurable": {"thread_id": "t"}}
    await graph.ainvoke({"messages": [HumanMessage("Budget is 5k.")]}, config, context=CTX)
    await graph.ainvoke({"messages": [HumanMessage("Deadline is Friday.")]}, config, context=CTX)
    assert [t.content for t in jobs.turns[-1] if t.role == "user"] == ["Deadline is Friday."]
