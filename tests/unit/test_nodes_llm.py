"""llm node: answers from the assembled prompt; routed tool calls; bounded tool rounds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph_fakes import runtime, scripted
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.tools import BaseTool, tool

from memagent.core.state import State
from memagent.nodes.llm import make_llm_node, with_tool_results


@tool
def list_open_commitments() -> str:
    """List open commitments."""
    return "none"


class Router:
    def __init__(self, calls: list[ToolCall] | Exception) -> None:
        self.calls = calls
        self.seen: list[Sequence[AnyMessage]] = []

    async def __call__(
        self, messages: Sequence[AnyMessage], tools: Sequence[BaseTool]
    ) -> list[ToolCall]:
        self.seen.append(messages)
        if isinstance(self.calls, Exception):
            raise self.calls
        return self.calls


CALL = ToolCall(name="list_open_commitments", args={}, id="call_1")


def _state(text: str, *extra: Any) -> State:
    human = HumanMessage(text)
    return State(messages=[human, *extra], prompt=[SystemMessage("be brief"), human])


async def test_answers_from_the_assembled_prompt() -> None:
    model = scripted("Hello!")
    node = make_llm_node(lambda: model)
    update = await node(_state("hi"), runtime())
    assert update["messages"][0].text == "Hello!"
    assert [m.type for m in model.seen[0]] == ["system", "human"]


async def test_routes_a_tool_call_without_calling_the_model() -> None:
    model, router = scripted("unused"), Router([CALL])
    node = make_llm_node(lambda: model, tools=[list_open_commitments], router=router)
    update = await node(_state("what commitments are open?"), runtime())
    reply = update["messages"][0]
    assert reply.tool_calls[0]["name"] == "list_open_commitments"
    assert reply.content == ""  # never None: the local server rejects it
    assert model.seen == []


async def test_unknown_tools_and_router_failures_fall_back_to_a_plain_answer() -> None:
    bogus = Router([ToolCall(name="delete_everything", args={}, id="x")])
    node = make_llm_node(lambda: scripted("plain"), tools=[list_open_commitments], router=bogus)
    assert (await node(_state("any commitments?"), runtime()))["messages"][0].text == "plain"
    broken = Router(RuntimeError("bad json"))
    node = make_llm_node(lambda: scripted("plain"), tools=[list_open_commitments], router=broken)
    assert (await node(_state("any commitments?"), runtime()))["messages"][0].text == "plain"


async def test_small_talk_skips_the_router() -> None:
    router = Router([CALL])
    node = make_llm_node(lambda: scripted("hi"), tools=[list_open_commitments], router=router)
    await node(_state("good morning"), runtime())
    assert router.seen == []


async def test_after_a_tool_round_the_model_sees_call_and_result() -> None:
    model, router = scripted("You have no open commitments."), Router([CALL])
    node = make_llm_node(lambda: model, tools=[list_open_commitments], router=router)
    state = _state(
        "open commitments?",
        AIMessage(content="", tool_calls=[CALL]),
        ToolMessage("none", tool_call_id="call_1", name="list_open_commitments"),
    )
    update = await node(state, runtime())
    assert update["messages"][0].text == "You have no open commitments."
    assert router.seen == []  # one routing per turn
    sent = model.seen[0]
    assert [m.type for m in sent] == ["system", "human"]
    assert sent[-1].text.startswith("open commitments?")
    assert "list_open_commitments: none" in sent[-1].text


async def test_tool_rounds_are_bounded() -> None:
    looping = AIMessage(content="again", tool_calls=[CALL])
    node = make_llm_node(
        lambda: scripted(looping), tools=[list_open_commitments], max_tool_rounds=1
    )
    state = _state(
        "commitments?",
        AIMessage(content="", tool_calls=[CALL]),
        ToolMessage("none", tool_call_id="call_1", name="list_open_commitments"),
    )
    reply = (await node(state, runtime()))["messages"][0]
    assert reply.tool_calls == [] and reply.text == "again"


def test_tool_results_fold_into_the_current_message_only() -> None:
    prompt = [SystemMessage("sys"), HumanMessage("earlier"), AIMessage("ok"), HumanMessage("now?")]
    turn = [
        AIMessage(content="", tool_calls=[CALL]),
        ToolMessage("two open items", tool_call_id="call_1", name="list_open_commitments"),
    ]
    folded = with_tool_results(prompt, turn)
    assert [m.type for m in folded] == ["system", "human", "ai", "human"]
    assert folded[1].text == "earlier"
    assert folded[-1].text.startswith("now?") and "two open items" in folded[-1].text
    assert with_tool_results(prompt, []) == prompt


async def test_router_sees_the_users_words_not_the_briefing() -> None:
    """The briefing travels in the prompt's copy of the user message; the reply model sees
    it, the tool router routes on what the user asked."""
    from memagent.nodes.prompt_assembly import with_briefing

    human = HumanMessage("what commitments are open?", id="h1")
    copy = with_briefing(human, 'What you remember:\n<<<memories\n- "e-mail only"\nmemories>>>')
    state = State(messages=[human], prompt=[SystemMessage("be brief"), copy])
    model, router = scripted("unused"), Router([CALL])
    node = make_llm_node(lambda: model, tools=[list_open_commitments], router=router)
    await node(state, runtime())
    assert router.seen[0][-1].content == "what commitments are open?"
    plain = make_llm_node(lambda: model)
    await plain(state, runtime())
    assert "e-mail only" in str(model.seen[0][-1].content)
