"""The bundled 1.5B model on a pasted sales note, then a broad question right after it.

Turn 1 of a session is often only a note ("Met with Acme Logistics today. …"): the model
used to refuse it ("I'm sorry, but I can't assist with that"), ask for more, or restate
it with invented values ("a budget of 300 million yuan" for 300万). Its reply must now
acknowledge the note in the note's language, stating no number or scale the note does
not. Then a broad question in a new session, asked at once (the in-process worker has not
been drained): the reply names the note's facts (``memagent.graph.recall_wait``).

Real model at temperature 0, real store and embedder, the agent's own turn, with
``MEMAGENT_NOTE_REPLY=model`` (the default, ``rules``, acknowledges such a note without the
model: ``tests/unit/test_note_ack.py``, ``test_service_terminals.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memagent.core.settings import Settings
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.prompts.system import SYSTEM_PROMPT

pytestmark = [pytest.mark.llm, pytest.mark.slow]

REFUSALS = re.compile(
    r"sorry|can't assist|cannot assist|unable to|please provide|more (context|information)"
    r"|抱歉|无法|请提供",
    re.IGNORECASE,
)
SCALES = re.compile(r"million|billion|thousand|\d\s*k\b|万|亿|千", re.IGNORECASE)

NOTES = [
    (
        "acme",
        "Met with Acme Logistics today. Their CTO Li Wei is the decision maker. Budget is "
        "1.2 million CNY for the fleet-tracking rollout, decision by end of March. He hates "
        "phone calls, email only.",
        "What do you know about Acme?",
        ("Li Wei", "1.2 million"),
    ),
    (
        "huaxin",
        "华信科技的采购负责人是王芳，项目预算大概300万，必须私有化部署，下个月15号之前要报价。",
        "介绍一下华信",
        ("王芳", "300万"),
    ),
]


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}


def _copied(reply: str, source: str, run: int = 8) -> bool:
    """Whether ``reply`` repeats ``run`` consecutive words of ``source`` (the system prompt
    read back instead of an answer)."""
    words, said = source.split(), " ".join(reply.split())
    return any(" ".join(words[i : i + run]) in said for i in range(len(words) - run + 1))


def _scales(text: str) -> set[str]:
    return {s.casefold().replace(" ", "") for s in SCALES.findall(text)}


@pytest.mark.parametrize(("customer", "note", "ask", "facts"), NOTES, ids=[n[0] for n in NOTES])
async def test_a_note_is_acknowledged_and_a_question_right_after_gets_its_facts(
    llm_settings: Settings,
    tmp_path: Path,
    customer: str,
    note: str,
    ask: str,
    facts: tuple[str, ...],
) -> None:
    settings = llm_settings.model_copy(
        update={
            "home": tmp_path,
            "worker": "inprocess",
            "extractor": "rules",
            "temperature": 0.0,
            "note_reply": "model",  # the model's own reply, not the acknowledgement
            "brief_reply": "model",  # and the model's answer to the question, not the brief
        }  # fmt: skip
    )
    async with aopen_agent(settings, recall_wait_s=300.0) as agent:
        first = await arun_turn(agent, note, user_id="rep1", customer_id=customer, session="s1")
        second = await arun_turn(agent, ask, user_id="rep1", customer_id=customer, session="s2")
    reply = first.reply
    print(f"\nreply to the note: {reply!r}\nreply to {ask!r}: {second.reply!r}")
    assert reply.strip() and not REFUSALS.search(reply), reply
    assert not _copied(reply, SYSTEM_PROMPT), reply  # no instructions read back
    assert _numbers(reply) <= _numbers(note), reply  # no number the note does not state
    assert _scales(reply) <= _scales(note), reply  # 300万 is not "300 million"
    assert any(fact in reply for fact in facts), reply  # it says what was noted
    recalled = " ".join(str(item.get("content")) for item in second.recalled)
    assert all(fact in recalled for fact in facts), second.recalled
    assert any(fact in second.reply for fact in facts), second.reply
