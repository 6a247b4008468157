"""A reply that copies an earlier reply word for word is asked again without it.

The bundled 1.5B model answered "What do you know about Acme?", right after the note
that stated the facts, with a copy of its reply to the note (Studio, session 8 and 9);
the same prompt without that earlier reply was answered from the facts. A scripted
model replays that copy here: the llm node must ask again with the copied reply left
out (the user's messages kept), keep only the new reply, and the CLI's token stream
must not show the copy."""

from __future__ import annotations

from pathlib import Path

from graph_fakes import factory, memory_store, scripted
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from memagent.core.settings import Settings
from memagent.graph.agent import aopen_agent, arun_turn
from memagent.graph.turn_run import ASKED_AGAIN, ReplyStream
from memagent.nodes.reply_repeat import repeated, without_replies

NOTE = "Hi, Acme's budget is 2 million CNY and Li Wei decides."
ASK = "What do you know about Acme?"
FIRST = "I'm sorry, but I don't have enough information to provide a specific answer."
ANSWER = "Acme's budget is 2 million CNY and Li Wei decides."
NEAR_COPY = (  # what the real model said in place of FIRST, with one clause changed
    "I'm sorry, but I don't have any information about Acme in my notes. Can you please "
    "provide me with more context or details about what you would like to know?"
)
FIRST_REAL = (
    "I'm sorry, but I don't have enough information to provide a specific answer to your "
    "question. Can you please provide me with more context or details about what you would "
    "like to know?"
)


def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, embedder="hash", extractor="off", rewriter="rules")


async def _two_turns(tmp_path: Path, *replies: str, stream: bool = False) -> tuple:
    model = scripted(*replies)
    tokens: list[list[str]] = []
    async with aopen_agent(settings(tmp_path), chat_model_factory=factory(model),
                           store=memory_store()) as agent:  # fmt: skip
        results = []
        for text in (NOTE, ASK):
            seen: list[str] = []
            tokens.append(seen)
            results.append(
                await arun_turn(
                    agent,
                    text,
                    user_id="rep1",
                    customer_id="acme",
                    session="s1",
                    on_token=seen.append if stream else None,
                )  # fmt: skip
            )
        state = await agent.graph.aget_state({"configurable": {"thread_id": "s1"}})
    return model, results, state.values["messages"], tokens


async def test_a_copied_reply_is_asked_again_without_the_reply_it_copied(tmp_path: Path) -> None:
    model, results, messages, _ = await _two_turns(tmp_path, FIRST, FIRST, ANSWER)
    assert [r.reply for r in results] == [FIRST, ANSWER]
    assert len(model.seen) == 3  # the note, the copy, the question asked again
    again = model.seen[2]
    assert not any(isinstance(m, AIMessage) and m.text == FIRST for m in again), again
    humans = [str(m.content) for m in again if isinstance(m, HumanMessage)]
    assert len(humans) == 2 and NOTE in humans[0] and humans[1].rstrip().endswith(ASK)
    assert [m.text for m in messages if isinstance(m, AIMessage)] == [FIRST, ANSWER]


async def test_the_copy_is_not_streamed_only_the_reply_asked_again(tmp_path: Path) -> None:
    _, results, _, tokens = await _two_turns(tmp_path, FIRST, FIRST, ANSWER, stream=True)
    assert "".join(tokens[0]) == FIRST
    assert "".join(tokens[1]) == ANSWER == results[1].reply


async def test_a_near_copy_is_asked_again_and_the_stream_says_so(tmp_path: Path) -> None:
    model, results, _, _ = await _two_turns(tmp_path, FIRST_REAL, NEAR_COPY, ANSWER)
    assert [r.reply for r in results] == [FIRST_REAL, ANSWER] and len(model.seen) == 3
    _, _, _, tokens = await _two_turns(
        tmp_path / "streamed", FIRST_REAL, NEAR_COPY, ANSWER, stream=True
    )
    assert "".join(tokens[1]) == NEAR_COPY + ASKED_AGAIN + ANSWER


async def test_a_new_reply_is_asked_once(tmp_path: Path) -> None:
    model, results, _, _ = await _two_turns(tmp_path, FIRST, ANSWER)
    assert [r.reply for r in results] == [FIRST, ANSWER] and len(model.seen) == 2
    _, _, _, tokens = await _two_turns(tmp_path / "streamed", FIRST, ANSWER, stream=True)
    assert "".join(tokens[1]) == ANSWER


async def test_a_copy_asked_again_that_copies_again_is_kept(tmp_path: Path) -> None:
    """One more ask, not a loop: the same answer twice is then the answer."""
    model, results, _, _ = await _two_turns(tmp_path, FIRST, FIRST, FIRST)
    assert [r.reply for r in results] == [FIRST, FIRST] and len(model.seen) == 3
    _, _, _, tokens = await _two_turns(tmp_path / "streamed", FIRST, FIRST, FIRST, stream=True)
    assert "".join(tokens[1]) == FIRST


def test_repeated_compares_whole_replies_not_tool_turns() -> None:
    call = AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c1"}])
    prompt = [HumanMessage("a"), AIMessage("Noted,  the budget\nis 2M."), HumanMessage("b"),
              call, ToolMessage("r", tool_call_id="c1"), AIMessage("Other.")]  # fmt: skip
    assert repeated(AIMessage("noted, the budget is 2m."), prompt) == [1]
    assert (
        repeated(AIMessage("Noted, the budget is 2M, and their CTO Li Wei decides."), prompt) == []
    )
    said = AIMessage(
        "I understand that your budget is 2 million CNY, and Li Wei has decided to "
        "proceed. Let me know if you need further assistance with this project."
    )
    again = AIMessage("I know Acme is a company that has a budget of 2 million CNY. Li Wei, the "
                      "decision maker, has decided to proceed with this project.")  # fmt: skip
    assert repeated(again, [said]) == []  # shares facts, not the reply
    assert repeated(AIMessage(""), prompt) == []
    assert without_replies(prompt, [1]) == [prompt[0], *prompt[2:]]


def test_the_stream_holds_only_what_may_still_be_a_copy() -> None:
    out: list[str] = []
    stream = ReplyStream(out.append, ["noted, the budget is 2m."])
    for token in ("Noted,", " the", " deal"):
        stream.add("run-1", token)
    assert out == ["Noted,", " the", " deal"]  # let out once it differed
    out.clear()
    stream = ReplyStream(out.append, ["noted."])
    stream.add("run-1", "Noted.")
    assert out == []
    stream.add("run-2", "Fine")  # asked again: the copy is dropped
    stream.close()
    assert out == ["Fine"]
