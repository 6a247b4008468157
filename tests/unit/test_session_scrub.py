"""``scrub_state``: what a deleted memory leaves in a session's latest state goes."""

from __future__ import annotations

from datetime import UTC, datetime

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from memagent.graph.session_scrub import scrub_state
from memagent.memory.working_memory import Patch, SlotOp, WorkingMemory, apply_patch
from memagent.nodes.messages import stamp
from memagent.prompts.summary import PENDING_HEADER

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SAID = "Our budget is 20k USD. We prefer email."
MEMORY = "Customer budget is 20k USD."


def state() -> dict[str, object]:
    wm, _ = apply_patch(
        WorkingMemory(),
        Patch(
            ops=[
                SlotOp(category="constraints", key="budget", value="Our budget is 20k USD."),
                SlotOp(category="preferences", key="channel", value="We prefer email."),
                SlotOp(category="facts", key="po", value="The PO is 4471."),
            ],
            turn=1,
        ),
        expected_version=0,
        now=T0,
    )
    summary = "\n".join(
        [
            "[t0] user: The PO is 4471.",
            PENDING_HEADER,
            "[t1] user: Our budget is 20k USD.",
            "[t1] user: We prefer email.",
        ]
    )
    return {
        "messages": [stamp(HumanMessage(SAID, id="m1"), turn=1, now=T0), AIMessage("ok", id="a1")],
        "working": wm.to_state(),
        "summary": summary,
        "briefing": [{"content": MEMORY}, {"content": "Decision maker is Dana."}],
        "recall_trace": {"items": [{"content": MEMORY}, {"content": "Other."}], "mode": "hybrid"},
        "prompt": [SystemMessage(f'memories: "{MEMORY}"'), HumanMessage("hi")],
    }


def test_the_source_message_and_the_recalled_copies_go() -> None:
    before = state()
    update = scrub_state(before, message_ids=["m1"], texts=[MEMORY])
    wm = WorkingMemory.from_state(update["working"])
    assert [k for _, k, _ in wm.slots()] == ["po"]  # slots stated in the message went
    assert wm.version == WorkingMemory.from_state(before["working"]).version + 1
    assert "20k" not in update["summary"] and "email" not in update["summary"]
    assert "The PO is 4471." in update["summary"]
    assert update["briefing"] == [{"content": "Decision maker is Dana."}]
    assert update["recall_trace"] == {"items": [{"content": "Other."}], "mode": "hybrid"}
    assert update["prompt"] == []
    assert "messages" not in update  # the conversation itself stays


def test_a_session_that_never_saw_the_memory_is_left_alone() -> None:
    values = state()
    values["briefing"], values["recall_trace"], values["prompt"] = [], {}, []
    assert scrub_state(values, message_ids=["other"], texts=["Budget is 99k."]) == {}


def test_a_prompt_whose_briefing_quoted_the_memory_cut_or_escaped_goes() -> None:
    """The next turn's prompt keeps earlier messages with their briefings: a briefing that
    showed the deleted memory (cut to 150 characters, quotes escaped) must not survive."""
    from memagent.llm.tokens import Budget
    from memagent.nodes.prompt_assembly import assemble
    from memagent.nodes.sent_history import sent_copies

    long = 'Dana said "yes" to the pilot: ' + "forty reps in Chicago, " * 10
    sent = assemble(
        system="s",
        briefing=[{"content": long}],
        current=HumanMessage("Where?", id="h1"),
        budget=Budget.from_window(8192, 512),
    ).messages
    assert sent_copies(sent) and "Dana said" in str(sent[-1].content)
    update = scrub_state({**state(), "prompt": sent}, message_ids=[], texts=[long])
    assert update["prompt"] == []
