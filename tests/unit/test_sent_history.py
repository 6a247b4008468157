"""The prompt's history holds each earlier user message as it was sent (with its briefing),
so consecutive prompts only append and the local server reuses its evaluated prefix; a
briefing lists only the memories no briefing still in the window quoted (issue 16)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from memagent.core.context import Context
from memagent.core.state import InputState, State
from memagent.llm.tokens import Budget, content_text, count_message_tokens
from memagent.nodes.prompt_assembly import assemble, prompt_assembly, without_briefing
from memagent.nodes.sent_history import sent_copies
from memagent.prompts.prompt_assembly import BRIEFING_HEADER

SYSTEM = "You are a careful B2B sales assistant."
BUDGET = Budget.from_window(8192, 512)
A = {"content": "budget is $120,000 for the rollout"}
B = {"content": "Dana Reyes signs the contract"}
C = {"content": "the demo is on Wednesday"}
QUESTIONS = ["Where do we stand?", "Who signs?", "And the budget again?"]


def session_graph(briefings: list[list[dict[str, Any]]]) -> Any:
    """recall (scripted briefing per turn) -> prompt_assembly -> reply, checkpointed."""

    async def recall(state: State) -> dict[str, Any]:
        turn = sum(1 for m in state.messages if isinstance(m, HumanMessage))
        return {"briefing": briefings[turn - 1]}

    async def reply(state: State) -> dict[str, Any]:
        return {"messages": [AIMessage(f"answer {len(state.messages)}")]}

    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    builder.add_node("recall", recall)
    builder.add_node("prompt_assembly", prompt_assembly)
    builder.add_node("reply", reply)
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "prompt_assembly")
    builder.add_edge("prompt_assembly", "reply")
    builder.add_edge("reply", END)
    return builder.compile(checkpointer=InMemorySaver())


async def run_session(briefings: list[list[dict[str, Any]]]) -> tuple[list[Any], dict[str, Any]]:
    graph = session_graph(briefings)
    config: Any = {"configurable": {"thread_id": "t"}}
    prompts, out = [], {}
    for question in QUESTIONS[: len(briefings)]:
        out = await graph.ainvoke(
            {"messages": [HumanMessage(question)]}, config, context=Context(context_window=8192)
        )
        prompts.append(out["prompt"])
    return prompts, out


def text(message: BaseMessage) -> str:
    return content_text(message.content)


async def test_each_prompt_extends_the_previous_one_and_the_transcript_keeps_the_words() -> None:
    prompts, out = await run_session([[A, B], [C], [A, C]])
    for before, after in zip(prompts, prompts[1:], strict=False):
        assert after[: len(before)] == before  # only appended: the server's prefix holds
        assert isinstance(after[len(before)], AIMessage)  # the reply, then the new message
    assert BRIEFING_HEADER in text(prompts[-1][1])  # turn 1 as it was sent
    humans = [m for m in out["messages"] if isinstance(m, HumanMessage)]
    assert [text(m) for m in humans] == QUESTIONS  # the stored conversation: own words
    assert out["prompt_tokens"] == count_message_tokens(prompts[-1], reply_priming=True)


async def test_a_briefing_lists_only_memories_not_already_in_the_window() -> None:
    prompts, _ = await run_session([[A, B], [A, C], [B, A]])
    second, third = text(prompts[1][-1]), text(prompts[2][-1])
    assert "Wednesday" in second and "120,000" not in second  # A is in turn 1's briefing
    assert BRIEFING_HEADER not in third and third == QUESTIONS[2]  # all already shown


def long_turns(n: int, start: int) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i in range(start, start + n):
        out += [HumanMessage("detail " * 150, id=f"h{i}"), AIMessage("words " * 150, id=f"a{i}")]
    return out


def test_a_memory_whose_briefing_left_the_window_is_listed_again() -> None:
    small = Budget.from_window(2048, 256)
    first = assemble(
        system=SYSTEM, briefing=[A], current=HumanMessage("Where?", id="h0"), budget=small
    )
    assert "120,000" in text(first.messages[-1])
    history = [HumanMessage("Where?", id="h0"), AIMessage("here", id="a0"), *long_turns(4, 1)]
    later = assemble(
        system=SYSTEM,
        briefing=[A],
        history=history,
        current=HumanMessage("Budget?", id="now"),
        budget=small,
        sent=sent_copies(first.messages),
    )
    assert "h0" not in {m.id for m in later.messages}  # evicted with its briefing
    assert "120,000" in text(later.messages[-1])  # so the memory is listed again
    assert [m.id for m in later.evicted][:2] == ["h0", "a0"]
    assert text(later.evicted[0]) == "Where?"  # the summary folds the user's own words
    assert "120,000" not in later.summary
    assert later.tokens == count_message_tokens(later.messages, reply_priming=True)
    assert later.tokens <= small.total


def test_a_message_edited_since_it_was_sent_is_shown_as_stored() -> None:
    first = assemble(
        system=SYSTEM, briefing=[A], current=HumanMessage("Where?", id="h0"), budget=BUDGET
    )
    edited = [HumanMessage("Where are we with Acme?", id="h0"), AIMessage("here", id="a0")]
    later = assemble(
        system=SYSTEM,
        briefing=[A],
        history=edited,
        current=HumanMessage("Budget?", id="now"),
        budget=BUDGET,
        sent=sent_copies(first.messages),
    )
    assert text(later.messages[1]) == "Where are we with Acme?"
    assert "120,000" in text(later.messages[-1])  # not shown in the window: listed


def test_the_router_sees_the_users_words_in_every_earlier_message() -> None:
    first = assemble(
        system=SYSTEM, briefing=[A], current=HumanMessage("Where?", id="h0"), budget=BUDGET
    )
    later = assemble(
        system=SYSTEM,
        briefing=[C],
        history=[HumanMessage("Where?", id="h0"), AIMessage("here", id="a0")],
        current=HumanMessage("Demo?", id="now"),
        budget=BUDGET,
        sent=sent_copies(first.messages),
    )
    plain = without_briefing(later.messages)
    assert [text(m) for m in plain if isinstance(m, HumanMessage)] == ["Where?", "Demo?"]
    assert isinstance(plain[0], SystemMessage)


def test_a_memory_quoting_a_message_still_in_view_is_not_listed() -> None:
    """Recall brings back the previous turn's own message as an episode (and a fact the
    rules extracted from it); the window still shows that message."""
    said = "They now say 45 reps instead of 40. Does that change the plan?"
    episode = {"content": said, "origin": "episode", "type": "episode", "date": "2026-12-01"}
    fact = {"content": "They now say 45 reps instead of 40"}
    history = [HumanMessage(said, id="h0"), AIMessage("It does.", id="a0")]
    now = HumanMessage("Draft the opening.", id="now")
    r = assemble(system=SYSTEM, briefing=[episode, fact, C], history=history, current=now,
                 budget=BUDGET)  # fmt: skip
    last = text(r.messages[-1])
    assert "Wednesday" in last and "45 reps" not in last
    small = Budget.from_window(2048, 256)
    gone = assemble(system=SYSTEM, briefing=[episode, fact], history=[*history,
                    *long_turns(4, 1)], current=now, budget=small)  # fmt: skip
    assert "h0" not in {m.id for m in gone.messages} and "45 reps" in text(gone.messages[-1])
