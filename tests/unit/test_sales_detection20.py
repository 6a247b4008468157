"""Causes of wrong memories and replies found by running the product in session 20 (a
call note about a new prospect sent through `memagent ask` on an empty home), each checked
on fresh wording:

- "by the 15th of next month" was dated to this month's 15th (the day alone, then "next
  month" as a second date);
- a rival's quote with the price after the time ("Sealink pitched last week at 280k",
  "Oceanwave bid 300k EUR") was an amount, not a competitor; our own pitch or bid stays ours;
- a follow-up's "He also wants a reference call with another shipping line before
  signing" became a contact preference (a meeting is not a channel), and "budget is 350k
  EUR, not 320k - Jens confirmed" lost the space before the dash with the old value;
- a Chinese note's "现在用的是用友U8，明年6月到期" kept "明年6月到期" alone (what runs
  out?), and "最头疼的是月底对账要三四天" was dated to this month's end (a month-end close is
  no date);
- the note was sent to the model instead of acknowledged, because "which keeps crashing"
  read as a question (see ``test_note_ack``).
"""

from __future__ import annotations

from datetime import datetime

from rules_run import candidate_text as _text
from rules_run import run_rules as _run

from memagent.memory.extract_dates import find_dates

_FRIDAY = datetime(2026, 12, 4, 10, 0)


def _isos(text: str) -> list[str]:
    return [h.iso for h in find_dates(text, _FRIDAY)]


def test_the_nth_of_next_month_is_that_day_of_next_month() -> None:
    assert _isos("Katrin wants a sandbox by the 15th of next month") == ["2027-01-15"]
    assert _isos("payment on the 3rd of next month") == ["2027-01-03"]
    assert _isos("we meet on the 2nd of the following month") == ["2027-01-02"]
    assert _isos("the review is on the 20th of this month") == ["2026-12-20"]
    assert _isos("on the 31st next month") == ["2027-01-31"]
    # two dates stay two: the day, then a sentence about next month
    assert _isos("Demo on the 15th. Next month we go live.") == ["2026-12-15", "2027-01"]


def test_a_rival_priced_after_the_time_is_a_competitor() -> None:
    for note, vendor in (
        ("Sealink pitched last week at 280k.", "sealink"),
        ("Blueharbor pitched yesterday for 310k EUR.", "blueharbor"),
        ("Oceanwave bid 300k EUR.", "oceanwave"),
    ):
        (c,) = _run(note)
        assert c.attribute.startswith(f"competitor:{vendor}"), (note, c)


def test_our_own_pitch_or_bid_is_no_competitor() -> None:
    for note in (
        "We pitched last week at 280k.",
        "We bid 300k.",
        "They pitched the idea for 2 hours.",
    ):
        assert not any("competitor" in (c.attribute or "") for c in _run(note)), note
        assert not any("competitor" in _text(c) for c in _run(note)), note


def test_a_meeting_call_is_no_contact_preference() -> None:
    for note in (
        "He also wants a reference call with another shipping line before signing.",
        "Their CFO asked for a pricing call next week.",
    ):
        cands = _run(note)
        assert cands and not any("contact" in (c.attribute or "") for c in cands), (note, cands)
    (pref,) = _run("Katrin prefers Teams calls, never before 10am.")
    assert pref.attribute.startswith("contact_preference"), pref


def test_an_old_value_cut_before_a_dash_leaves_no_glued_dash() -> None:
    (c,) = _run("Budget is 350k EUR, not 320k - the CFO confirmed it.")
    assert "320" not in _text(c) and "EUR-" not in c.content, c.content


def test_an_expiry_said_after_the_system_is_named_after_it() -> None:
    for note, system in (
        ("他们现在用的是用友U8，明年6月到期。", "用友u8"),
        ("目前在用金蝶K3，明年3月到期，不打算续。", "金蝶k3"),
    ):
        texts = [_text(c) for c in _run(note)]
        expiry = [t for t in texts if "到期" in t]
        assert expiry and all(system in t for t in expiry), texts


def test_a_month_end_close_is_no_date() -> None:
    assert _isos("最头疼的是月底对账要三四天") == []
    assert _isos("每个月底都要盘点") == []
    assert _isos("月底前签合同") == ["2026-12-31"]
