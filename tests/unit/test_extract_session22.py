"""Extraction defects found in session 22 (on notes of our own, then on blind holdout 21),
each checked on wording of its own: a department kept with the title before a name, the
familiar and the full name of one person, a responsibility after a pronoun, a party's stance
not pinned on the person named before it, a weekday or month told as past, a decision said as
"take the final call" or "final approval rests with", a function word read into the name, a
law or company not taken for the person "she" refers to, and old values dropped from
corrections ("左右不对", "1 May not 1 Jun")."""

from __future__ import annotations

from datetime import datetime

import pytest
from rules_run import run_rules

from memagent.memory.extract_corrections import drop_old_values
from memagent.memory.extract_dates import find_dates

_TUE = datetime(2026, 5, 12, 10, 0)  # a Tuesday


def _facts(text: str) -> list[tuple[str, str | None, str]]:
    return [
        (c.attribute, c.value, c.content) for c in run_rules(text, at=_TUE.isoformat() + "+08:00")
    ]


@pytest.mark.parametrize(
    ("text", "attribute", "needle"),
    [
        (
            "今天去了远航物流，仓储中心的经理叫许海明，他负责这次TMS选型。",
            "stakeholder:许海明",
            "仓储中心经理",
        ),
        (
            "今天去了远航物流，仓储中心的经理叫许海明，他负责这次TMS选型。",
            "stakeholder:许海明",
            "负责这次tms选型",
        ),
        ("对接人是小孟孟凡宇，下周三前要报价。", "stakeholder:孟凡宇", "对接人"),
        ("Lily 黄丽丽 财务经理，日常对接。", "stakeholder:黄丽丽", "财务经理"),
        (
            "Met the GM Operations Hamish Reid at the depot.",
            "stakeholder:hamish_reid",
            "gm operations",
        ),
        ("Karim Nasser, our VP Sales, joined the call.", "stakeholder:karim_nasser", "vp sales"),
        (
            "Ines Duarte runs store operations for the chain.",
            "stakeholder:ines_duarte",
            "store operations",
        ),
        ("Their COO, Rahul Menon, will take the final call.", "decision_maker", "rahul menon"),
        ("Final approval rests with the CEO, Maria Lopez.", "decision_maker", "maria lopez"),
        ("They have sanctioned ₹40 lakh for this project.", "budget", "4000000"),
        ("She has CAD 250k for this fiscal.", "budget", "250000"),
        ("Current platform is Genesys on-prem.", "incumbent:", "Genesys"),
        (
            "Please route all commercial queries via Omar in procurement.",
            "contact_preference:",
            "Omar",
        ),
        (
            "Zoho pitched us last spring, their number was around 90k a year.",
            "competitor:zoho",
            "90k",
        ),
        ("机房的服务器老化了，查一次库存要等两分钟以上。", "pain_point:", "老化"),
        ("见了设备处处长韩立新，这个项目就是他负责。", "stakeholder:韩立新", "他负责"),
        ("财务总监 Anna Berg 拍板。Anna只看英文材料。", "contact_preference:", "英文"),
        ("门禁设备是海康的，用了六年。", "incumbent:", "海康"),
        ("对方说下季度初启动采购。", "deadline:", "2026-07-01"),
    ],
)
def test_session22_phrasings(text: str, attribute: str, needle: str) -> None:
    facts = _facts(text)
    hits = [f for f in facts if f[0].startswith(attribute)]
    assert any(needle.lower() in f"{v} {c}".lower() for _, v, c in hits), facts


def test_a_partys_stance_is_not_the_person_named_before() -> None:
    facts = _facts("老板范总拍板，她个人倾向我们，但法务还在犹豫。")
    hesitates = [a for a, _, c in facts if "法务还在犹豫" in c]
    assert hesitates and all("范总" not in a for a in hesitates), facts


def test_maybe_want_is_uncertain_not_a_requirement_in_force() -> None:
    found = run_rules("We may want to start with a pilot at the Leeds depot.")
    assert found and all(c.confidence < 0.9 for c in found)


def test_a_weekday_or_month_told_as_past_resolves_backwards() -> None:
    past = find_dates("We covered it at Friday's review and they said the scope is fine.", _TUE)
    assert [h.iso for h in past] == ["2026-05-08"]
    ahead = find_dates("They want the proposal by Friday.", _TUE)
    assert [h.iso for h in ahead] == ["2026-05-15"]
    rival = find_dates("Freshdesk pitched us in November.", _TUE)
    assert "(2025-11)" in rival[0].iso
    plan = find_dates("They plan to go live in November.", _TUE)
    assert "(2026-11)" in plan[0].iso


@pytest.mark.parametrize(
    ("text", "kept", "gone"),
    [
        ("预算他说在九十万左右不对是一百万左右", "一百万", "九十万"),
        ("budget is 2.4M, sorry, 2.6M", "2.6M", "2.4M"),
        ("Renewal is 1 March not 1 April, they checked.", "1 March", "1 April"),
        ("Their year doesn't end Jun 30, it ends September 30", "September 30", "Jun 30"),
    ],
)
def test_corrections_drop_the_old_value(text: str, kept: str, gone: str) -> None:
    out = drop_old_values(text)
    assert kept in out and gone not in out, out


def test_a_budget_and_who_signs_off_are_two_memories() -> None:
    facts = _facts("Budget is about 450k GBP for year one, our CFO Helen Shaw signs off.")
    assert any(a == "budget" and "450000" in (v or "") for a, v, _ in facts), facts
    assert any(a == "decision_maker" and "helen shaw" in (v or "") for a, v, _ in facts), facts


def test_an_unpunctuated_wechat_note_is_cut_into_its_facts() -> None:
    facts = _facts(
        "刚见完华联物流的采购总监孙强他说今年TMS预算大概120万左右明年三月底之前要上线"
        "现在用的是用友的老系统经常宕机丢单很多他们也在看G7的方案报价大概100万"
        "孙总比较倾向我们但最后要CEO何平拍板"
    )
    budget = [c for a, _, c in facts if a == "budget"]
    assert budget and all("上线" not in c for c in budget), facts
    assert any(a.startswith("deadline:") and "上线" in c for a, _, c in facts), facts
    assert any(a.startswith("pain_point:") and "宕机" in c for a, _, c in facts), facts
    assert any(a == "decision_maker" and "何平" in (v or "") for a, v, _ in facts), facts


def test_a_pasted_mails_own_requests_are_not_asked_of_the_assistant() -> None:
    from memagent.nodes.note_ack import asks_something

    mail = "Pasting Omar's mail: Hi Sam, thanks for the demo. Please send the quote by Friday."
    assert not asks_something(mail)
    assert asks_something(mail + "\n\nCan you draft a reply?")
    assert asks_something("Please send the quote by Friday.")
