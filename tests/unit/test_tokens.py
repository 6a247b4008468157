"""Token counting with the real offline tokenizer, and the prompt budget."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from memagent.llm.tokens import (
    MESSAGE_OVERHEAD,
    REPLY_PRIMING,
    Budget,
    count_message_tokens,
    count_tokens,
    encoding,
)
from memagent.nodes.messages import meta, stamp, tokens_of, turn_of


def test_counts_match_the_encoding() -> None:
    text = "Keep every proposal under 500 words."
    assert count_tokens(text) == len(encoding().encode(text)) > 0
    assert count_tokens("") == 0
    # Special-token strings in user text are counted, not rejected.
    assert count_tokens("<|endoftext|>") > 1


def test_chinese_is_not_undercounted() -> None:
    zh = "我们的预算是十二万元，请把每份方案控制在五百字以内，订单号是PO-4471。"
    # A chars/4 estimate gives ~10 tokens; the real tokenizer needs far more.
    assert count_tokens(zh) > len(zh) // 2 > len(zh) // 4


def test_message_overhead_and_tool_calls() -> None:
    h = HumanMessage("hello")
    assert count_message_tokens(h) == count_tokens("hello") + MESSAGE_OVERHEAD
    assert (
        count_message_tokens([h, h], reply_priming=True)
        == 2 * (count_tokens("hello") + MESSAGE_OVERHEAD) + REPLY_PRIMING
    )
    call = AIMessage("", tool_calls=[{"name": "crm_lookup", "args": {"po": "PO-4471"}, "id": "c"}])
    assert count_message_tokens(call) > MESSAGE_OVERHEAD + count_tokens("PO-4471")
    named = HumanMessage("hello", name="maria")
    assert count_message_tokens(named) > count_message_tokens(h)


def test_unknown_encoding_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown encoding"):
        count_tokens("x", encoding_name="p50k_nope")


def test_budget_from_window() -> None:
    b = Budget.from_window(8192, 512)
    assert b.total == int(8192 * 0.8)  # the 80% cap binds before the reply reserve
    assert Budget.from_window(8192, 4000).total == 8192 - 4000
    assert b.briefing == 819 and b.slots + b.briefing + b.summary + b.recent < b.total
    assert Budget.from_window(2048, 256).recent == 512  # the floor, not 15% of 2048
    with pytest.raises(ValueError, match="no room"):
        Budget.from_window(1024, 1024)
    with pytest.raises(ValueError, match="context_window"):
        Budget.from_window(0)


def test_stamp_adds_metadata_without_mutating() -> None:
    m = HumanMessage("We need 40 seats.", id="h1")
    s = stamp(m, turn=3, channel="cli")
    assert meta(m) == {} and s.id == "h1"
    assert turn_of(s) == 3 and meta(s)["channel"] == "cli" and "at" in meta(s)
    assert tokens_of(s) == count_message_tokens(m)
    t = stamp(ToolMessage("ok", tool_call_id="c"), turn=3)
    assert meta(t)["channel"] == "tool" and t.id
    with pytest.raises(ValueError, match="turn"):
        stamp(m, turn=-1)
