"""Any message within the documented size limit gets a reply: internal limits truncate or
split, they never fail the turn.

Every bound on the turn path is fuzzed here with messages up to ``MAX_MESSAGE_CHARS``:
the working-memory patch (ops per patch, key length, slots per category), the model's
patch, the prompt budget (a message far longer than the context window), the token
counter on long runs without spaces, and the extraction job (memories per job). The
last test runs whole turns (real SQLite checkpointer, real embedded store, scripted
model) and the extraction worker over generated messages.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from graph_fakes import scripted
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage

from memagent.graph.agent import MAX_MESSAGE_CHARS, aopen_agent, arun_turn, settle
from memagent.graph.settings import Settings
from memagent.llm.tokens import Budget, count_tokens, encoding
from memagent.memory.extractors import MAX_CANDIDATES_PER_JOB, bound_candidates
from memagent.memory.working_memory import (
    CATEGORIES,
    MAX_KEY_CHARS,
    MAX_PATCH_OPS,
    MAX_SLOTS_PER_CATEGORY,
    Patch,
    SlotOp,
    WorkingMemory,
    apply_patch,
    parse_model_patch,
)
from memagent.memory.working_rules import rules_patch
from memagent.memory.write_path import Candidate
from memagent.nodes.prompt_assembly import assemble
from memagent.prompts.system import SYSTEM_PROMPT

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
THIRTY = " ".join(f"Dana wants a discount on seat {n}." for n in range(1, 31))

# Sentences every rule of working memory and extraction fires on, in English and Chinese.
STATEMENTS = st.sampled_from(
    [
        "Dana wants a discount on seat {n}.",
        "Our budget is ${n}k for the rollout.",
        "We must always use vendor{n} tools.",
        "We prefer email number {n}.",
        "Remind me to send quote {n}.",
        "The order number is PO-{n}000.",
        "We need {n} seats.",
        "Actually the deadline is March {n}.",
        "我们的预算是{n}万元。",
        "联系人是张{n}。",
        "We must use " + "x" * 90 + "{n} every day.",
    ]
)


@st.composite
def long_messages(draw: st.DrawFn) -> str:
    """Up to MAX_MESSAGE_CHARS of statements (many slots), or of text without spaces."""
    kind = draw(st.sampled_from(["statements", "cjk", "emoji", "blob"]))
    size = draw(st.integers(1, MAX_MESSAGE_CHARS))
    if kind == "statements":
        templates = draw(st.lists(STATEMENTS, min_size=1, max_size=8))
        parts, n = [], 0
        while sum(len(p) + 1 for p in parts) < size:
            parts.append(templates[n % len(templates)].format(n=n))
            n += 1
        return " ".join(parts)[:size] or "x"
    if kind == "cjk":
        seed = draw(st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1))
        return (seed * (size // len(seed) + 1))[:size]
    if kind == "emoji":
        return ("🚀🎉📈" * size)[:size]
    return ("ab1" * size)[:size]


FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- working memory -------------------------------------------------------------------------


def test_thirty_short_sentences_patch_working_memory() -> None:
    """The reported case: 30 statements were 30 ops, over the patch's bound of 24."""
    patch = rules_patch(THIRTY, turn=1)
    assert 1 <= len(patch.ops) <= MAX_PATCH_OPS
    wm, _ = apply_patch(WorkingMemory(), patch, expected_version=0, now=T0)
    assert "seat 30" in wm.constraints["discount"].value  # the last statement counts


@FUZZ
@example(THIRTY)
@example(" ".join(f"We must always use vendor{i} tools{i} please{i} xx." for i in range(700)))
@example("We must use " + "supercalifragilistic" * 10 + " every day.")
@given(long_messages())
def test_rules_patch_is_always_valid_and_bounded(message: str) -> None:
    wm = WorkingMemory()
    for turn in (1, 2):  # a second message adds slots on top of the first
        patch = rules_patch(message, turn=turn, current=wm)
        assert len(patch.ops) <= MAX_PATCH_OPS
        assert all(len(op.key) <= MAX_KEY_CHARS for op in patch.ops)
        wm, _ = apply_patch(wm, patch, expected_version=wm.version, now=T0)
    assert all(len(getattr(wm, c)) <= MAX_SLOTS_PER_CATEGORY for c in CATEGORIES)


def test_bounded_patch_keeps_the_last_statement_of_each_slot() -> None:
    ops = [SlotOp(category="goals", key=f"g{i % 30}", value=f"v{i}") for i in range(90)]
    patch = Patch.bounded(ops, turn=3, source="rules")
    assert len(patch.ops) == MAX_PATCH_OPS
    kept = {op.key: op.value for op in patch.ops}
    assert kept["g29"] == "v89" and "g0" not in kept  # the earliest-stated slots go


def test_slots_per_category_keep_the_most_recent() -> None:
    wm = WorkingMemory()
    for turn in range(1, 41):
        patch = Patch(ops=[SlotOp(category="todos", key=f"t{turn}", value=f"do {turn}")], turn=turn)
        wm, _ = apply_patch(wm, patch, expected_version=wm.version, now=T0)
    assert len(wm.todos) == MAX_SLOTS_PER_CATEGORY
    assert "t40" in wm.todos and "t1" not in wm.todos


def test_a_model_patch_with_many_ops_is_truncated_not_dropped() -> None:
    text = json.dumps(
        {"set": [{"category": "facts", "key": f"k{i}", "value": f"v{i}"} for i in range(40)]}
    )
    patch = parse_model_patch(text, turn=2)
    assert patch is not None and len(patch.ops) == MAX_PATCH_OPS


# -- prompt budget ------------------------------------------------------------------------


@FUZZ
@example("预算" * (MAX_MESSAGE_CHARS // 2))
@example("🚀🎉" * (MAX_MESSAGE_CHARS // 2))
@given(long_messages())
def test_any_message_fits_the_prompt_budget(message: str) -> None:
    budget = Budget.from_window(8192, 512)
    current = HumanMessage(message, id="m1")
    out = assemble(system=SYSTEM_PROMPT, current=current, budget=budget)
    assert out.tokens <= budget.total
    sent = out.messages[-1]
    assert sent.id == "m1"
    if out.input_shortened:
        text = str(sent.content)
        assert "left out to fit the context window" in text
        assert text.startswith(message[:10]) and text.endswith(message[-5:])
    else:
        assert sent.content == message
    assert current.content == message  # the state's message keeps every character


@pytest.mark.parametrize(
    "text", ["预算是三百万元" * 40, "🚀" * 300, "a" * 500, " " * 300 + "x", "word " * 200]
)
def test_token_count_of_long_runs_never_undercounts(text: str) -> None:
    exact = len(encoding().encode_ordinary(text))
    assert exact <= count_tokens(text) <= exact + len(text) // 64 + 2


# -- extraction ---------------------------------------------------------------------------


def test_one_job_writes_at_most_the_bound_and_the_last_statement_of_a_key() -> None:
    cands = [Candidate(content=f"Budget is {i}k.", attribute="budget") for i in range(50)]
    cands += [Candidate(content=f"Note {i}.", importance=i / 100) for i in range(40)]
    kept, dropped = bound_candidates(cands)
    assert len(kept) == MAX_CANDIDATES_PER_JOB and dropped == 90 - MAX_CANDIDATES_PER_JOB
    budgets = [c.content for c in kept if c.attribute == "budget"]
    assert budgets == ["Budget is 49k."]
    few = cands[:3]
    assert bound_candidates(few) == (few, 0)  # under the bound: untouched, versions and all


# -- whole turns --------------------------------------------------------------------------


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@example(THIRTY)
@given(long_messages())
def test_every_message_within_the_limit_gets_a_reply(tmp_path: Path, message: str) -> None:
    home = Path(tempfile.mkdtemp(dir=tmp_path))
    config = Settings(home=home, embedder="hash")
    budget = Budget.from_window(config.context_window, config.reply_tokens)

    async def go() -> tuple[list[str], list[int], dict[str, int]]:
        model = scripted("ok")
        async with aopen_agent(config, chat_model_factory=lambda *a, **k: model) as agent:
            turns = [
                await arun_turn(agent, text, user_id="u1", customer_id="acme", session="s")
                for text in (message, "And then?")
            ]
            await settle(agent, timeout_s=120)
            assert agent.queue is not None
            return [t.reply for t in turns], [t.prompt_tokens for t in turns], agent.queue.counts()

    replies, tokens, counts = asyncio.run(go())
    assert replies == ["ok", "ok"]
    assert max(tokens) <= budget.total
    assert counts["dead"] == 0 and counts["pending"] == 0  # extraction did not fail either
