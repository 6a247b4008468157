"""A "don't record" that covers only its own line or bracketed aside drops that aside,
not the whole note; one that points at the whole note still voids it."""

from __future__ import annotations

import json

from memagent.core.types import Turn
from memagent.memory.extract_asides import without_private_asides
from memagent.memory.extract_rules import extract_rules


def _contents(text: str) -> str:
    cands, _ = extract_rules([Turn("user", text)])
    return " | ".join(c.content for c in cands)


def test_a_private_line_at_the_end_leaves_the_rest_of_the_note() -> None:
    note = (
        "东方物流拜访纪要\n- 预算大概300万\n- 竞争对手：用友也在谈\n"
        "（个人的事：周五去看牙医，不用记）"
    )
    got = _contents(note)
    assert "300万" in got and "用友" in got
    assert "牙医" not in got


def test_a_private_bracket_in_english_is_dropped_alone() -> None:
    note = "Met Helios Foods today.\nBudget is about $250k.\n(personal, don't record: dentist on Friday)"
    got = _contents(note)
    assert "250k" in got
    assert "dentist" not in got


def test_a_cue_pointing_at_the_whole_note_still_voids_it() -> None:
    for note in (
        "以下不用记：\n- 预算大概300万\n- 用友也在谈",
        "Don't record this:\nBudget is about $250k.",
    ):
        assert without_private_asides(note) == note
        assert _contents(note) == ""


async def test_the_llm_extractor_keeps_the_note_around_a_private_aside() -> None:
    # the LLM extractor used to drop a whole message whose last line asked not to be kept
    from graph_fakes import scripted

    from memagent.memory.extractors import llm_extractor

    model = scripted(json.dumps({"items": []}))
    note = (
        "Met Helios Foods today.\nBudget is about $250k.\nThey run SAP ECC today.\n"
        "(personal, don't record: dentist on Friday)"
    )
    res = await llm_extractor(model)([Turn("user", note, "m1", "2026-11-12T10:00:00+08:00")])
    got = " | ".join(c.content for c in res.candidates)
    assert "250k" in got, got
    assert "dentist" not in got and "dentist" not in " ".join(str(m) for m in model.seen)
