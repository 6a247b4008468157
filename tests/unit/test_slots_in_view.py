"""A must-keep slot is not shown twice on the turn whose message says it: on a pasted
note's own turn every slot is a copy of the note, and that copy beside the note made the
bundled small model read its instructions back instead of replying (measured through the
CLI, session 10). From the next turn on the slot is shown as always."""

from __future__ import annotations

from test_working_memory import said

from memagent.memory.working_memory import WorkingMemory, render

NOTE = "Budget is 1.2 million CNY for the rollout. He hates phone calls, email only."
LATER = "The order number is PO-4471."


def test_slots_the_current_message_says_are_not_shown_again() -> None:
    wm = said(WorkingMemory(), NOTE, turn=1)
    assert "1.2 million" in render(wm)
    assert render(wm, in_view=NOTE) == ""  # nothing else to keep: no empty header either


def test_earlier_slots_stay_beside_a_new_message() -> None:
    wm = said(said(WorkingMemory(), NOTE, turn=1), LATER, turn=2)
    shown = render(wm, in_view=LATER)
    assert "1.2 million" in shown and "PO-4471" not in shown
