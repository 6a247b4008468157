"""The bundled 1.5B model on a broad question right after a note (Studio, sessions 8–9).

In Studio, "Hi, Acme's budget is 2 million CNY and Li Wei decides." was sometimes answered
"I'm sorry, but I don't have enough information to provide a specific answer to your
question. …" (sampling: about one time in three here), and then "What do you know about
Acme?" got that same sentence again, word for word, though the stored facts were quoted
next to the question. Here the first turn's reply is set to that sentence (the graph runs
to the llm node, the reply is written as the llm node's, and the turn ends as usual:
extraction job, worker), and the second turn is the real model through ``arun_turn``:
its reply must state the facts, not repeat the first one (``memagent.nodes.reply_repeat``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import START

from memagent.core.context import Context
from memagent.core.settings import Settings
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.builder import LLM
from memagent.graph.worker import Worker

pytestmark = [pytest.mark.llm, pytest.mark.slow]

NOTE = "Hi, Acme's budget is 2 million CNY and Li Wei decides."
REFUSAL = (
    "I'm sorry, but I don't have enough information to provide a specific answer to your "
    "question. Can you please provide me with more context or details about what you would "
    "like to know?"
)
ASK = "What do you know about Acme?"


async def test_a_broad_question_after_a_note_is_not_answered_with_the_previous_reply(
    llm_settings: Settings, tmp_path: Path
) -> None:
    settings = llm_settings.model_copy(
        update={
            "home": tmp_path,
            "worker": "external",
            "extractor": "rules",
            "brief_reply": "model",  # the model answers the broad question (not the brief)
        }
    )
    config: RunnableConfig = {
        "configurable": {"thread_id": "s1"},
        "metadata": {"user_id": "rep1", "customer_id": "acme"},
    }
    context = Context(user_id="rep1", customer_id="acme")
    async with aopen_agent(settings) as agent:
        graph = agent.graph
        await graph.aupdate_state(config, {"messages": [HumanMessage(NOTE)]}, as_node=START)
        await graph.ainvoke(None, config, context=context, interrupt_before=[LLM])
        await graph.aupdate_state(config, {"messages": [AIMessage(REFUSAL)]}, as_node=LLM)
        await graph.ainvoke(None, config, context=context)  # extraction job, end of turn
        assert agent.queue is not None
        Worker.for_settings(settings, queue=agent.queue, store=agent.store).drain()
        tokens: list[str] = []
        result = await arun_turn(agent, ASK, user_id="rep1", customer_id="acme", session="s1",
                                 on_token=tokens.append)  # fmt: skip
    reply = result.reply
    print(f"\nreply to {ASK!r}: {reply!r}")
    assert " ".join(reply.split()).casefold() != " ".join(REFUSAL.split()).casefold(), reply
    assert re.search(r"2\s*million|2,000,000|200\s*万", reply, re.IGNORECASE), reply
    assert "Li Wei" in reply, reply
    assert "".join(tokens).endswith(reply)  # the CLI showed this reply last
