"""Running summary: numbers survive, the summary stays bounded, recursion keeps the newest."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from memagent.llm.tokens import count_tokens
from memagent.nodes.messages import stamp
from memagent.nodes.summary import (
    Summary,
    bound_lines,
    condense_rules,
    drop_superseded,
    fold_model,
    fold_rules,
    lines_tokens,
    pending_messages,
    rules_lines,
    without_repeats,
)
from memagent.prompts.summary import PENDING_HEADER


def turn(n: int, user: str, ai: str) -> list[BaseMessage]:
    return [
        stamp(HumanMessage(user, id=f"h{n}"), turn=n),
        stamp(AIMessage(ai, id=f"a{n}"), turn=n),
    ]


def test_rules_keep_hard_facts_and_drop_small_talk() -> None:
    msgs = [
        *turn(1, "Hi there!", "Hello! How can I help?"),
        *turn(2, "Order PO-4471 covers 40 seats at $95 per seat.", "Noted, 40 seats."),
        *turn(3, "订单号是PO-8812，预算十二万元。", "好的，已记录。"),
        *turn(4, "Nice weather today", "Indeed."),
    ]
    lines = rules_lines(msgs)
    text = "\n".join(lines)
    for needle in ("PO-4471", "40 seats", "$95", "PO-8812", "十二万元", "[t2] user"):
        assert needle in text
    assert "weather" not in text and "Hello" not in text


def test_fold_rules_is_bounded_and_keeps_newest_verbatim() -> None:
    summary = ""
    for n in range(1, 41):
        msgs = turn(
            n, f"Quote {n}: {n * 10} units of SKU-{1000 + n} at ${n * 7} each, agreed.", "ok"
        )
        summary = fold_rules(summary, msgs, max_tokens=200)
        assert count_tokens(summary) <= 200 + count_tokens(PENDING_HEADER) + 2
    # The newest turn is verbatim, the oldest were condensed or dropped.
    assert "Quote 40: 400 units of SKU-1040 at $280 each, agreed." in summary
    assert "SKU-1001 " not in summary


def test_bound_lines_recurses_until_it_fits() -> None:
    calls: list[int] = []

    def halve(lines: list[str]) -> list[str]:
        calls.append(len(lines))
        return [line[: len(line) // 2] for line in lines]

    lines = [f"- item {i}: " + "detail " * 20 for i in range(30)]
    out = bound_lines(lines, 150, halve)
    assert lines_tokens(out) <= 150
    assert len(calls) >= 2, "one condensing pass should not have been enough"
    assert out[-1] == lines[-1], "newest line must be kept verbatim"


def test_condense_rules_keeps_numbers() -> None:
    out = condense_rules(["[t3] user: we talked a lot, budget is $120k, meeting was long"])
    assert "$120k" in out[0] and "long" not in out[0]


async def test_model_fold_restores_dropped_numbers() -> None:
    msgs = turn(5, "The renewal is 3 years at $42,000 per year, PO-7781.", "Great.")
    summary = fold_rules("", msgs, max_tokens=300)
    assert PENDING_HEADER in summary
    model = FakeListChatModel(responses=["- Renewal agreed for 3 years."])
    out = await fold_model(model, summary, msgs, max_tokens=300)
    assert PENDING_HEADER not in out and "Renewal agreed" in out
    assert "42,000" in out and "PO-7781" in out, "numbers the model dropped must come back"


async def test_model_fold_resummarises_when_too_long() -> None:
    long_reply = "\n".join(f"- point {i}: " + "blah " * 30 for i in range(20)) + "\n- newest fact"
    model = FakeListChatModel(responses=[long_reply, "- compressed older points"] * 5)
    msgs = turn(9, "Decision: go with plan B.", "ok")
    out = await fold_model(model, "", msgs, max_tokens=120)
    assert count_tokens(out) <= 120
    assert "compressed older points" in out and out.endswith("- newest fact")
    assert model.i >= 2, "the too-long summary was not summarised again"


def test_pending_messages_are_the_summarised_pending_turns() -> None:
    msgs = [*turn(1, "Budget is $10k.", "ok"), *turn(2, "We need 5 seats.", "ok")]
    summary = fold_rules("- older consolidated", msgs[2:], max_tokens=300)
    s = Summary.parse(summary)
    assert s.digest == ["- older consolidated"] and s.pending_turns() == {2}
    got = pending_messages(summary, msgs, ["h1", "a1", "h2", "a2"])
    assert [m.id for m in got] == ["h2", "a2"]


def test_drop_superseded_removes_only_the_stale_line() -> None:
    msgs = [*turn(4, "Our budget is $120,000.", "ok"), *turn(5, "We need 40 seats.", "ok")]
    summary = fold_rules("", msgs, max_tokens=300)
    assert "$120,000" in summary
    out = drop_superseded(summary, [(4, "Our budget is $120,000.")])
    assert "$120,000" not in out and "40 seats" in out
    # A condensed line of that turn with the same numbers goes too.
    condensed = "- kept\n" + PENDING_HEADER + "\n[t4] user: budget $120,000"
    assert "$120,000" not in drop_superseded(condensed, [(4, "Our budget is $120,000.")])
    assert drop_superseded(summary, []) == summary


def test_hypotheticals_and_assistant_advice_are_not_summarised() -> None:
    msgs = turn(
        7,
        "If we had more money we'd buy 80 seats.",
        "It also helps to confirm who else is involved. I'll send the quote for 40 seats today.",
    )
    text = "\n".join(rules_lines(msgs))
    assert "80 seats" not in text and "confirm who else" not in text
    assert "quote for 40 seats" in text


def test_lines_repeating_a_slot_are_not_shown_twice() -> None:
    msgs = [*turn(2, "Our budget is $120,000.", "ok"), *turn(3, "We need 40 seats now.", "ok")]
    summary = fold_rules("", msgs, max_tokens=300)
    shown = without_repeats(summary, ["Our budget is $120,000."])
    assert "$120,000" not in shown and "40 seats" in shown
    assert without_repeats(summary, []) == summary


def test_a_repeated_sentence_is_summarised_once() -> None:
    ask = "Draft the three talking points for PO-4471."
    summary = fold_rules("", turn(3, ask, "ok"), max_tokens=300)
    summary = fold_rules(summary, turn(9, ask, "ok"), max_tokens=300)
    assert summary.count("PO-4471") == 1 and "[t3]" in summary
