"""A broad question right after the note that gave the facts ("What do you know about
Brightwave?" in the same session, as a newcomer tries Studio or chat): the account's
pinned facts travel with the question even though the note is still in view, so the
small model reads them next to the question instead of leaning on its own first reply.

Through the agent's turn, outbox and worker with a scripted model that records prompts."""

from __future__ import annotations

from pathlib import Path

from graph_fakes import factory, memory_store, scripted
from langchain_core.messages import HumanMessage

from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker
from memagent.nodes.briefing import briefing_lines

NOTE = "Hi, new prospect: Brightwave Robotics. Their CFO Mei Tan decides, budget is 800k USD, they need SAML SSO."
ASK = "What do you know about Brightwave Robotics?"


async def test_a_broad_question_in_the_same_session_carries_the_key_facts(tmp_path: Path) -> None:
    model = scripted("Noted.")
    settings = Settings(home=tmp_path, embedder="hash", extractor="rules", rewriter="rules",
                        worker="external")  # fmt: skip
    async with aopen_agent(settings, chat_model_factory=factory(model),
                           store=memory_store()) as agent:  # fmt: skip
        for text in (NOTE, ASK):
            await arun_turn(agent, text, user_id="rep1", customer_id="brightwave-robotics",
                            session="s1")  # fmt: skip
            assert agent.queue is not None
            Worker.for_settings(settings, queue=agent.queue, store=agent.store).drain()
    last = [m for m in model.seen[-1] if isinstance(m, HumanMessage)][-1]
    text = str(last.content)
    assert text.rstrip().endswith(ASK)
    assert "800k" in text and "SAML SSO" in text, text


def test_pinned_facts_are_listed_even_when_a_message_in_view_said_them() -> None:
    items = [
        {"content": "budget is 800k USD", "type": "fact", "origin": "overview",
         "slot": "customer:budget"},
        {"content": "they need SAML SSO", "type": "fact", "origin": "search"},
    ]  # fmt: skip
    lines = briefing_lines(items, max_tokens=400, said=[NOTE])
    assert len(lines) == 1 and "800k" in lines[0], lines
