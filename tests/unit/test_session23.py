"""Defects found in session 23, each checked on wording of its own.

A newcomer's CLI session on an empty home (a pasted customer mail, then questions) showed:
"Quick recap from our side:" in the customer's mail filed the customer's store count as our
commitment; "Please send the proposal by the 20th" was pinned on the CFO named before it;
"Who signs off … and what's the budget?" answered only the first half (the decision
question read "Harbor and what's the budget" as a customer name); and "When does their
contract end?" went to the model (22.8 s) because the event words only knew "ends"."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from rules_run import run_rules

from memagent.nodes.fact_answer import _asked, fact_answer

_TUE = datetime(2026, 5, 12, 10, 0)  # a Tuesday


def _facts(text: str) -> list[tuple[str, str | None, str]]:
    return [
        (c.attribute, c.value, c.content) for c in run_rules(text, at=_TUE.isoformat() + "+08:00")
    ]


def _fact(content: str, slot: str) -> dict[str, Any]:
    return {"content": content, "slot": slot, "origin": "search", "status": "active"}


@pytest.mark.parametrize(
    "text",
    [
        "Short summary from our side: we operate 17 warehouses across Poland.",
        "Brief recap from our side: we have 9 plants and 3,000 staff.",
    ],
)
def test_a_recap_heading_in_the_customers_mail_is_not_our_commitment(text: str) -> None:
    facts = _facts(text)
    assert facts, text
    assert all(not a.startswith("commitment") for a, _, _ in facts), facts
    assert all("from our side" not in c.casefold() for _, _, c in facts), facts


def test_our_own_next_step_after_from_our_side_is_still_a_commitment() -> None:
    facts = _facts("From our side: we'll send the security questionnaire on Friday.")
    assert any(a.startswith(("commitment", "deadline")) for a, _, _ in facts), facts


def test_a_request_in_a_mail_is_not_pinned_on_the_person_named_before_it() -> None:
    facts = _facts(
        "Their COO Priya Raman has the final say. Please share the pricing sheet by the 25th."
    )
    ask = [c for _, _, c in facts if "pricing sheet" in c]
    assert ask, facts
    assert not ask[0].startswith("Priya"), ask


def test_a_named_system_of_several_words_they_are_on_today_is_the_incumbent() -> None:
    facts = _facts("Their branches are all on Oracle Retail Xstore today.")
    assert any(a.startswith(("incumbent", "current_vendor")) for a, _, _ in facts), facts


@pytest.mark.parametrize(
    ("question", "event"),
    [
        ("When does their service contract end?", "contract end"),
        ("When does the Infor contract run out?", "contract end"),
        ("When does the licence contract renew?", "contract end"),
    ],
)
def test_a_question_with_the_base_verb_names_the_event(question: str, event: str) -> None:
    found = _asked(question)
    assert found is not None and found[1] == event, found


_ITEMS = [
    _fact("Our CFO Ines Duarte approves the spend", "customer:decision_maker"),
    _fact("Budget is roughly 350k GBP", "customer:budget"),
    _fact("the maintenance contract ends in June (June 2027)", "customer:deadline:contract_end"),
]


@pytest.mark.parametrize(
    "message",
    [
        "Who signs off at Tidewell and what's the budget?",
        "Who decides, and what is the budget?",
    ],
)
def test_two_questions_joined_by_and_are_both_answered(message: str) -> None:
    reply = fact_answer(message, "tidewell", _ITEMS)
    assert reply is not None
    assert "Ines Duarte" in reply and "350k" in reply, reply


def test_two_chinese_questions_joined_by_haiyou_are_both_answered() -> None:
    items = [
        _fact("最后由总经理冯涛拍板", "customer:decision_maker"),
        _fact("预算大概80万", "customer:budget"),
    ]
    reply = fact_answer("谁拍板，还有预算多少？", "hengtai", items)
    assert reply is not None and "冯涛" in reply and "80万" in reply, reply


def test_the_contract_end_question_is_answered_from_the_notes() -> None:
    reply = fact_answer("When does their maintenance contract end?", "tidewell", _ITEMS)
    assert reply is not None and "June 2027" in reply and "350k" not in reply, reply


def test_a_name_taken_back_after_dots_and_i_mean_keeps_the_new_one() -> None:
    facts = _facts("They use Orbis... sorry, I mean Medavis, for the radiology workflow.")
    contents = " ".join(c for _, _, c in facts)
    assert "Medavis" in contents and "Orbis" not in contents, facts


def test_a_qa_transcript_answer_is_read_with_its_question() -> None:
    facts = _facts(
        "Discovery call. Q: What is your budget for the pilot? A: About 90k EUR. "
        "Q: Who has the final say? A: Their COO, Hu Jun. "
        "Q: When does the Sage contract end? A: End of June."
    )
    by_attr = {a.split(":")[0] + (":" + a.split(":")[1] if a.startswith("deadline") else ""): c
               for a, _, c in facts}  # fmt: skip
    assert "90k" in by_attr.get("budget", ""), facts
    assert "Hu Jun" in by_attr.get("decision_maker", ""), facts
    assert "June" in by_attr.get("deadline:contract_end", ""), facts
    assert not any(c.startswith("A:") for _, _, c in facts), facts


def test_a_chinese_qa_answer_is_read_with_its_question() -> None:
    facts = _facts("问：预算大概多少？答：80万左右。")
    assert any(a == "budget" and "80万" in c for a, _, c in facts), facts


def test_a_decision_maker_label_before_a_name_gives_the_decision() -> None:
    facts = _facts("Decision maker: Farah Idris (VP Finance).")
    assert ("decision_maker", "farah idris") in [(a, v) for a, v, _ in facts], facts


# Blind holdout 22 (zh), first measured on the session's starting commit, showed these.


def test_a_bare_per_unit_budget_and_its_correction() -> None:
    facts = _facts("更正一下，每个床位的预算是3600不是3200，含安装。")
    assert [(a, v) for a, v, _ in facts] == [("budget", "3600")], facts
    assert "3200" not in facts[0][2], facts


@pytest.mark.parametrize("text", ["预算2027年再批。", "预算是 4,500,000 澳門幣。"])
def test_a_year_or_a_figure_with_an_unknown_currency_is_not_a_bare_budget(text: str) -> None:
    from memagent.memory.extract_amounts import parse_amounts

    assert parse_amounts(text) == [], text


def test_a_count_said_as_the_number_of_things_is_a_count() -> None:
    facts = _facts("说错了，坐席数是180不是150。")
    assert ("count:坐席", "180") in [(a, v) for a, v, _ in facts], facts


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("他们法务经理蒋丽会参与合同评审。", "蒋丽"),
        ("我后天先约他们的运维主管徐明做现场勘查。", "徐明"),
        ("财务那边是范婷，卡预算卡得很紧。", "范婷"),
        ("他们财务总监老魏管钱，合同要他签。", "老魏"),
    ],
)
def test_a_chinese_name_keeps_only_the_name(text: str, name: str) -> None:
    roles = [a for a, _, _ in _facts(text) if a.endswith(":role")]
    assert roles == [f"stakeholder:{name}:role"], roles


def test_a_familiar_name_before_the_full_name_is_the_full_name() -> None:
    roles = [a for a, _, _ in _facts("还有运维主管小郑 郑国栋") if a.endswith(":role")]
    assert roles == ["stakeholder:郑国栋:role"], roles


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("他们财务总监老魏管钱，合同要他签。", "老魏"),
        ("项目最终由CFO Grace Lin审批。", "grace lin"),
    ],
)
def test_who_signs_the_contract_or_approves_last_decides(text: str, who: str) -> None:
    assert ("decision_maker", who) in [(a, v) for a, v, _ in _facts(text)], _facts(text)


def test_a_rival_that_also_sent_a_proposal_is_a_competitor_and_we_are_not() -> None:
    rival = _facts("另外，中控也向我们提交了方案，报价为95万。")
    assert [a for a, _, _ in rival] == ["competitor:中控:quote"], rival
    ours = _facts("我们也提交了方案。")
    assert all(not a.startswith("competitor") for a, _, _ in ours), ours


def test_a_discount_demand_on_the_current_quote_is_not_a_rival() -> None:
    facts = _facts("要求在现在报价基础上再降10%。")
    assert facts and all(not a.startswith("competitor") for a, _, _ in facts), facts


@pytest.mark.parametrize(
    "text", ["现在巡检全靠保安手写记录", "They still keep everything in spreadsheets."]
)
def test_work_done_by_hand_or_in_spreadsheets_is_a_pain(text: str) -> None:
    assert any(a.startswith("pain_point") for a, _, _ in _facts(text)), _facts(text)


@pytest.mark.parametrize(("text", "n"), [("他们有三个厂区。", "3"), ("共两家工厂。", "2")])
def test_a_small_chinese_count_of_sites(text: str, n: str) -> None:
    assert any(a.startswith("count:") and v == n for a, v, _ in _facts(text)), _facts(text)


def test_the_tender_release_the_bid_deadline_and_our_prep_are_three_dates() -> None:
    facts = _facts(
        "招标公告下月中旬发布，投标截止是7月10号。我周三前把投标要用的业绩证明发给他们。"
    )
    keys = [a for a, _, _ in facts]
    assert "deadline:tender_release" in keys and "deadline:tender_close" in keys, keys
    assert len(set(keys)) == 3, keys


def test_a_figure_after_a_budget_clause_in_a_dictated_note_is_the_budget() -> None:
    facts = _facts("今天见了他们IT总监 预算他说先做一期 大概80万左右 下个月再碰")
    assert any(a == "budget" and "80万" in c for a, _, c in facts), facts


def test_a_hedged_rival_quote_is_not_joined_to_the_sure_rival() -> None:
    facts = _facts("竞争对手有东软 报价好像是150万 不确定")
    sure = [c for _, _, c in facts if c.endswith("东软")]
    assert sure and all("150" not in c for c in sure), facts


# Blind holdout 22 (en): a budget taken back and said again kept the old figure in force.


def _budgets(turns: list[str]) -> list[str]:
    return [c.content for c in run_rules(*turns) if c.attribute == "budget"]


def _money_contents(text: str) -> list[str]:
    return [c for a, _, c in _facts(text) if a == "budget" or a.startswith("amount:")]


@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        ("Budget is €120k a year - wait, scratch that, Omar just wrote: it's EUR 110,000 a year.",
         "110,000", "120k"),
        ("Budget 3 million rand. Hold on - Thabo says 3.4 million ZAR now, they added a site.",
         "3.4 million", "3 million rand"),
        ("budget 200k over 3 years, no wait, he said 200k is for year one only.",
         "year one", "3 years"),
    ],
)  # fmt: skip
def test_a_budget_taken_back_in_one_sentence_leaves_only_the_new_one(
    text: str, new: str, old: str
) -> None:
    money = _money_contents(text)
    assert any(new in c for c in money), money
    assert not any(old in c for c in money), money


def test_a_figure_taken_back_in_the_next_sentence_is_replaced_and_not_repeated() -> None:
    money = _money_contents(
        "For the first phase we have USD 300,000. Sorry, let me correct that - it's SGD 380k. "
        "300k was what we asked for and finance cut it."
    )
    assert any("380k" in c for c in money), money
    assert not any("300" in c for c in money), money


def test_a_turn_that_opens_by_taking_back_the_budget_versions_it() -> None:
    budgets = _budgets(
        ["Budget roughly £500k over 2 years.", "Scratch the 2 years - it's £500k over 3 years."]
    )
    assert len(budgets) == 2 and "3 years" in budgets[-1], budgets


def test_a_rival_quote_in_a_mail_is_not_taken_for_the_budget() -> None:
    budgets = _budgets(
        ["Budget is about 90k a year.",
         "Forwarding their mail. Rival Corp has put in a proposal at 85k per year. Sorry for the "
         "delay in sending this."]
    )  # fmt: skip
    assert budgets == ["Budget is about 90k a year"], budgets


def test_a_pasted_mails_request_with_a_date_is_our_commitment() -> None:
    mail = (
        "Forwarding Priya's mail:\n\nFrom: Priya Nair <priya@example.com>\nSubject: next steps\n\n"
        "Thanks for the demo. Could you send me your ISO 27001 certificate before the end of the "
        "month?\n\nRegards,\nPriya Nair"
    )
    commitments = [c for a, _, c in _facts(mail) if a.startswith(("commitment", "deadline"))]
    assert any("iso 27001" in c.casefold() and "they asked" in c for c in commitments), _facts(mail)


def test_a_transcript_speakers_request_this_week_is_our_commitment_with_a_date() -> None:
    facts = run_rules("Me: What do you need next?\nOmar: Send me a trial account this week.")
    asked = [c for c in facts if "trial account" in c.content]
    assert asked and asked[0].value, [(c.attribute, c.value, c.content) for c in facts]


def test_a_request_typed_to_the_assistant_is_no_commitment() -> None:
    assert _facts("Could you send me a summary of this account by Friday?") == []


@pytest.mark.parametrize(
    "text",
    [
        "Darktrace is also in the running.",
        "We had a demo from Honeywell last week.",
        "She met Coupa and liked their pitch.",
        "Acme Solar already offered 10% below the utility tariff.",
    ],
)
def test_more_ways_a_rival_is_named(text: str) -> None:
    assert any(a.startswith("competitor") for a, _, _ in _facts(text)), _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Our defect rate is around 3% on line two.",
        "They got burned by a proprietary platform before.",
        "Three near misses in the loading bay since March.",
        "Too many alerts and no Arabic-language support.",
    ],
)
def test_more_ways_a_pain_is_said(text: str) -> None:
    assert any(a.startswith("pain_point") for a, _, _ in _facts(text)), _facts(text)


# Studio, session 23: a Q/A call note went to the model (14.9 s) and a mail's budget
# correction left the old figure as the budget.


def test_a_qa_call_note_asks_nothing_but_a_question_after_it_does() -> None:
    from memagent.nodes.note_ack import asks_something

    note = "Call notes. Q: What is the budget? A: About 90k EUR. Q: Who signs off? A: Their COO."
    assert not asks_something(note)
    assert asks_something(note + " What should I pitch first?")


def test_a_budget_taken_back_in_a_pasted_mail_leaves_the_new_one() -> None:
    mail = (
        "Forwarding their mail:\nFrom: Rhys Morgan <rhys@example.com>\nSubject: budget\n\n"
        "Hi Sam, budget is 180k - sorry, let me correct that: it's GBP 150,000, the 180 included "
        "licences we already own.\n\nThanks,\nRhys Morgan"
    )
    budgets = [(c.value, c.content) for c in run_rules(mail) if c.attribute == "budget"]
    assert [v for v, _ in budgets] == ["150000 GBP"], budgets
