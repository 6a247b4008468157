"""Parsers behind the sales rules: amounts, dates, hedges, people, clauses (EN and ZH)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from memagent.graph.jobs import Turn
from memagent.graph.worker import with_times
from memagent.memory.extract_amounts import cn_number, parse_amounts
from memagent.memory.extract_cues import self_note
from memagent.memory.extract_dates import find_dates, reference_time
from memagent.memory.extract_entities import find_people, last_person
from memagent.memory.extract_hedges import is_approximate, is_uncertain
from memagent.memory.extract_sales import categorise, sales_facts, split_clauses


@pytest.mark.parametrize(
    ("text", "value", "currency", "approx"),
    [
        ("Budget is 1.2 million CNY", 1_200_000, "CNY", False),
        ("about $1.2M", 1_200_000, "USD", True),
        ("quoted 800k", 800_000, "", False),
        ("1.5bn deal", 1_500_000_000, "", False),
        ("¥3,000,000", 3_000_000, "CNY", False),
        ("$410,000/yr", 410_000, "USD", False),
        ("2.6M RMB", 2_600_000, "CNY", False),
        ("120万", 1_200_000, "", False),
        ("三百万", 3_000_000, "", False),
        ("3百万", 3_000_000, "", False),
        ("两千八百万", 28_000_000, "", False),
        ("1.5亿", 150_000_000, "", False),
        ("一亿五千万", 150_000_000, "", False),
        ("人民币150万元", 1_500_000, "CNY", False),
        ("预算大概300万", 3_000_000, "", True),
        ("三千万左右", 30_000_000, "", True),
    ],
)
def test_amounts_in_every_common_form(text: str, value: int, currency: str, approx: bool) -> None:
    (a,) = parse_amounts(text)
    assert (a.value, a.currency, a.approx) == (value, currency, approx)


@pytest.mark.parametrize("text", ["400 trucks", "万一不行", "we have 12 people", "3块钱", "Q3"])
def test_not_amounts(text: str) -> None:
    assert parse_amounts(text) == []


def test_cn_numerals() -> None:
    assert cn_number("十二") == 12 and cn_number("两百八十万") == 2_800_000
    assert cn_number("abc") is None


THU = date(2026, 11, 12)  # a Thursday
MON = date(2026, 11, 23)


@pytest.mark.parametrize(
    ("text", "ref", "iso"),
    [
        ("send it by Friday", THU, "2026-11-13"),
        ("demo next Tuesday", THU, "2026-11-17"),
        ("Wednesday next week", MON, "2026-12-02"),
        ("by Friday of next week", MON, "2026-12-04"),
        ("in two weeks", THU, "2026-11-26"),
        ("decision by end of March", THU, "2027-03-31"),
        ("contract ends March 31, 2027", THU, "2027-03-31"),
        ("go live before Jan 15", THU, "2027-01-15"),
        ("starting 1 February", THU, "2027-02-01"),
        ("signature expected end of month", THU, "2026-11-30"),
        ("decision by end of Q1", THU, "2027-Q1 (by 2027-03-31)"),
        ("runs out in June", THU, "June 2027 (2027-06)"),
        ("on 2026-12-01", THU, "2026-12-01"),
        ("下个月15号之前要报价", THU, "2026-12-15"),
        ("下周三去现场演示", date(2026, 11, 4), "2026-11-11"),
        ("签约改到下周五", date(2026, 11, 25), "2026-12-04"),
        ("12月4日前提交", THU, "2026-12-04"),
        ("1月底前定下来", date(2026, 12, 15), "2027-01-31"),
        ("今年年底前要定下来", THU, "2026-12-31"),
        ("两周后看到结果", date(2026, 12, 10), "2026-12-24"),
        ("明年3月招标", THU, "2027年3月 (2027-03)"),
        ("明年Q2再启动", THU, "2027-Q2 (by 2027-06-30)"),
        ("明年扩展至1200人", THU, "2027年"),
    ],
)
def test_relative_dates_resolved_from_the_message_time(text: str, ref: date, iso: str) -> None:
    (hit,) = find_dates(text, ref)
    assert hit.iso == iso


def test_words_that_are_not_dates() -> None:
    assert find_dates("May I ask a question?", THU) == []
    assert find_dates("we have 12 people", THU) == []


def test_reference_time_defaults() -> None:
    assert reference_time("2026-11-12T10:00:00+08:00").date() == THU
    fallback = datetime(2026, 1, 2)
    assert reference_time("", fallback) == fallback
    assert reference_time("not a time", fallback) == fallback


@pytest.mark.parametrize(
    "text",
    ["Budget might be 2M", "maybe the week of Jan 11", "not sure she's interested",
     "项目可能要推迟", "还不确定", "还没定"],
)  # fmt: skip
def test_uncertainty_markers(text: str) -> None:
    assert is_uncertain(text)


@pytest.mark.parametrize("text", ["about 3 million", "~400 trucks", "大概300万", "150万左右"])
def test_hedges_are_approximate_not_uncertain(text: str) -> None:
    assert is_approximate(text) and not is_uncertain(text)


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("Met Sandra Okafor (VP Operations) today", "Sandra Okafor", "VP Operations"),
        ("the CFO, Mark Delaney, signs anything", "Mark Delaney", "CFO"),
        ("Their CTO Li Wei is the decision maker", "Li Wei", "CTO"),
        ("Karen Liu, Procurement Lead", "Karen Liu", "Procurement Lead"),
        ("Greg Tillman from IT security", "Greg Tillman", "IT security"),
        ("华信科技的采购负责人是王芳", "王芳", "采购负责人"),
        ("嘉禾零售的采购总监许静说", "许静", "采购总监"),
        ("周敏（教务处处长）确认", "周敏", "教务处处长"),
        ("见了信息中心的王建国主任", "王建国", "信息中心主任"),
        ("还有财务部的刘芳。", "刘芳", "财务部"),
    ],
)
def test_people_and_roles(text: str, name: str, role: str) -> None:
    (p,) = find_people(text)
    assert (p.name, p.role) == (name, role)


def test_places_are_not_roles() -> None:
    assert find_people("Met Chen Hao (Shenzhen office)") == []
    assert last_person("对接人是总务处的钱主任，打电话沟通就行") == "钱主任"


def test_clauses_and_labels() -> None:
    parts = split_clauses("Must-haves: SSO through Okta, and all data stays in US-East")
    assert [c.label for c in parts] == ["Must-haves", "Must-haves"]
    assert split_clauses("Requirements are as follows:") == []
    assert len(split_clauses("预算大概300万，必须私有化部署")) == 2
    assert [c.text for c in split_clauses("Sarah, our CFO, is the decision maker")] == [
        "Sarah, our CFO, is the decision maker"
    ]


@pytest.mark.parametrize(
    ("clause", "category"),
    [
        ("Budget is 1.2 million CNY", "budget"),
        ("they were quoted 900k by a competitor", "competitor"),
        ("They need SSO with Okta", "requirement"),
        ("They currently use Salesforce", "incumbent"),
        ("he hates phone calls, email only", "contact_preference"),
        ("outage texts go out 40 minutes late", "pain_point"),
        ("we're on the shortlist", "deal_stage"),
        ("I send the questionnaire by Friday", "commitment"),
        ("decision by end of March", "timeline"),
        ("必须私有化部署", "requirement"),
        ("他们现在用的是金蝶的WMS", "incumbent"),
        ("会员数据在Salesforce里", "incumbent"),
        ("已经进入商务谈判阶段", "deal_stage"),
        ("Nice weather today", None),
        ("聊了聊他家孩子考研的事", None),
        # how they pay is no contact preference, how they want to be reached is
        ("the CFO prefers quarterly invoicing", "requirement"),
        ("Procurement prefers a single annual invoice", "requirement"),
        ("they prefer paying upfront", "requirement"),
        ("she prefers invoices sent by email", "contact_preference"),
        ("he prefers a short call on Mondays", "contact_preference"),
    ],
)
def test_categories(clause: str, category: str | None) -> None:
    assert categorise(clause) == category


def test_reschedule_keeps_the_event_key() -> None:
    ref = datetime(2026, 11, 23)
    facts, event = sales_facts("Kickoff workshop set for Dec 3.", ref)
    assert [f.attribute for f in facts] == ["deadline:workshop"] and event == "deadline:workshop"
    moved, _ = sales_facts("They moved it to Wednesday next week.", ref, context_event=event)
    assert [(f.attribute, f.value) for f in moved] == [("deadline:workshop", "2026-12-02")]


def test_do_not_record_messages() -> None:
    assert self_note("Ha, no idea. Don't record any of that.")
    assert self_note("这些我先自己琢磨，别记。")
    assert not self_note("Budget is 2M.")


def test_turns_without_a_time_get_the_job_time() -> None:
    turns = [Turn("user", "by Friday", "m1"), Turn("user", "x", "m2", "2026-01-01T00:00:00+00:00")]
    timed = with_times(turns, datetime(2026, 11, 12, 2).timestamp())
    assert timed[0].at.startswith("2026-11-12") and timed[1].at == turns[1].at


def test_abbreviations_do_not_end_a_sentence() -> None:
    from memagent.memory.extract_rules import _SPLIT

    text = "Maria Gonzalez (Dir. of Engineering) joins. Dr. Helen Marsh too. 1.1M incl. support."
    assert _SPLIT.split(text) == [
        "Maria Gonzalez (Dir. of Engineering) joins.",
        "Dr. Helen Marsh too.",
        "1.1M incl. support.",
    ]


def test_competitor_named_once_carries_to_its_price_clause() -> None:
    facts, _ = sales_facts(
        "那单丢了，他们选了石基，价格比我们低了差不多三成。", datetime(2026, 12, 1)
    )
    # the price clause is kept with its rival: as "石基: …", or in the rival's own memory
    rivals = [f for f in facts if f.category == "competitor"]
    assert len(rivals) == 1 and "石基" in rivals[0].content and "三成" in rivals[0].content


async def test_pronoun_refers_to_the_person_named_before() -> None:
    from memagent.memory.extractors import rules_extractor

    text = (
        "Spoke with Delta Foods' COO, Ahmed Khan. He is our champion, but the CEO, Laura Pike, "
        "is skeptical and signs off on anything above 500k."
    )
    res = await rules_extractor()([Turn("user", text, "m1", "2026-11-12T10:00:00+08:00")])
    contents = [c.content for c in res.candidates]
    assert "Ahmed Khan: He is our champion" in contents, contents
    assert any(c.attribute == "decision_maker" and c.value == "laura pike" for c in res.candidates)


async def test_deadlines_are_never_one_shared_key() -> None:
    from memagent.memory.extractors import rules_extractor

    turns = [Turn("user", "下个月底之前要确定供应商。合同要在6月30日之前签。", "m1",
                  "2026-11-12T10:00:00+08:00")]  # fmt: skip
    res = await rules_extractor()(turns)
    dated = {c.attribute: c.value for c in res.candidates if c.attribute.startswith("deadline")}
    assert dated == {"deadline:decision": "2026-12-31", "deadline:signing": "2027-06-30"}


# -- generalisation beyond the dev notes (issue 14 item 2): phrasings the dev set lacks ---------

_THU = datetime(2026, 11, 12, 10, 0)  # a Thursday


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("The board meets on the 20th", "2026-11-20"),
        ("Joe reviews it by the 15th", "2026-11-15"),
        ("decision by the 3rd", "2026-12-03"),  # the 3rd has passed this month: next month's
        ("answer within 30 days", "2026-12-12"),
        ("end of next week", "2026-11-20"),
        ("by the end of this week", "2026-11-13"),
        ("by 12/15", "2026-12-15"),
        ("3天内给答复", "2026-11-15"),
        ("10个工作日内回复", "2026-11-26"),
    ],
)
def test_more_relative_dates(text: str, iso: str) -> None:
    assert [d.iso for d in find_dates(text, _THU)] == [iso]


@pytest.mark.parametrize("text", ["24/7 support", "理赔时间缩短到2天以内", "3/4 of the team"])
def test_more_words_that_are_not_dates(text: str) -> None:
    assert find_dates(text, _THU) == []


async def _facts(text: str) -> list[tuple[str, str | None, str]]:
    from memagent.memory.extractors import rules_extractor

    res = await rules_extractor()([Turn("user", text, "m1", _THU.isoformat() + "+08:00")])
    return [(c.attribute, c.value, c.content) for c in res.candidates]


@pytest.mark.parametrize(
    ("text", "attribute", "needle"),
    [
        ("Budget went from 500k to 650k after the board meeting.", "budget", "650000"),
        ("预算从200万提到了280万。", "budget", "2800000"),
        ("They have 1.2M set aside for this.", "budget", "1200000"),
        ("Approx. 1.5M USD in total budget.", "budget", "1500000 USD approx"),
        ("Deal is in negotiation now.", "deal_stage", "negotiation"),
        ("项目目前在POC阶段。", "deal_stage", "poc"),
        ("Spoke to Tom Becker. He's supportive.", "stakeholder:tom_becker", "supportive"),
        ("Their IT director Paul Kim is against cloud hosting.", "stakeholder:paul_kim", "against"),
        ("财务的刘总比较保守。", "stakeholder:刘总", "保守"),
        ("Freshworks came in at 30% below our price.", "competitor:", "Freshworks"),
        ("Renee asked us not to contact her on Fridays.", "contact_preference:", "Fridays"),
        ("They are migrating off Oracle EBS.", "incumbent:", "Oracle EBS"),
        ("We agreed that I'd draft the SOW by the 15th.", "commitment:", "2026-11-15"),
        ("他们的目标是把理赔时间缩短到2天以内。", "requirement:", "2天以内"),
        ("最大的痛点是库存数据不准。", "pain_point:", "不准"),
        ("财务担心价格太高。", "pain_point:", "担心"),
        ("工厂大概有1200名产线工人。", "count:", "1200"),
    ],
)
async def test_sales_phrasings_beyond_the_dev_notes(text: str, attribute: str, needle: str) -> None:
    facts = await _facts(text)
    hits = [f for f in facts if f[0].startswith(attribute)]
    assert any(needle.lower() in f"{v} {c}".lower() for _, v, c in hits), facts


async def test_a_person_running_a_team_is_not_an_incumbent_system() -> None:
    facts = await _facts("Sarah Lindqvist runs the warehouse team.")
    assert not [f for f in facts if f[0].startswith(("incumbent", "current_vendor"))], facts


async def test_a_move_keeps_the_new_date_and_does_not_write_out_the_old_one() -> None:
    text = "They moved the workshop to Wednesday next week, Maria has a conflict on the 3rd."
    facts = await _facts(text)
    ((attr, value, content),) = [f for f in facts if f[0].startswith("deadline")]
    assert (attr, value) == ("deadline:workshop", "2026-11-18")
    assert "2026-12-03" not in content


@pytest.mark.parametrize(
    ("text", "attribute", "needle"),
    [
        ("Dana likes to get a text before any call.", "contact_preference:", "text"),
        ("Marco responds fastest on LinkedIn.", "contact_preference:", "LinkedIn"),
        ("Call Priya after 4pm her time; mornings are blocked.", "contact_preference:", "4pm"),
        ("Keep emails to Greg short, bullet points only.", "contact_preference:", "bullet"),
        ("张经理说以后报价都发到她的邮箱。", "contact_preference:", "邮箱"),
        ("李总不喜欢开视频会，尽量线下见面。", "contact_preference:", "线下"),
        ("Everything is tracked in Excel right now.", "incumbent:", "Excel"),
        ("他们的财务系统一直用的浪潮GS。", "incumbent:", "浪潮"),
        (
            "The new CIO, Rajesh Iyer, starts in January and will own the decision.",
            "decision_maker",
            "rajesh",
        ),
        ("运营总监黄磊对我们的方案很满意。", "stakeholder:黄磊", "满意"),
        ("We're in the final two with Workday.", "deal_stage", "final two"),
        ("They signed the LOI yesterday.", "deal_stage", "LOI"),
        ("客户已经发了中标通知书。", "deal_stage", "中标"),
        ("Their reps spend half their day on data entry.", "pain_point:", "data entry"),
        ("仓库经常发错货。", "pain_point:", "发错"),
        ("The signing might slip to March.", "deadline:signing", "2027-03"),
    ],
)
async def test_more_sales_phrasings(text: str, attribute: str, needle: str) -> None:
    facts = await _facts(text)
    hits = [f for f in facts if f[0].startswith(attribute)]
    assert any(needle.lower() in f"{v} {c}".lower() for _, v, c in hits), facts


@pytest.mark.parametrize(
    ("text", "value", "old"),
    [
        ("Budget is 650k, not 500k as I said before.", "650000", "500k"),
        ("Correction: budget is 2M, not 1.5M.", "2000000", "1.5M"),
        ("Budget went from 500k to 650k after the board meeting.", "650000", "500k"),
        ("预算不是300万，是350万。", "3500000", "300万"),
        ("更正一下，预算是280万，之前说的200万不对。", "2800000", "200万"),
    ],
)
async def test_a_correction_keeps_the_new_amount_and_no_memory_carries_the_old(
    text: str, value: str, old: str
) -> None:
    facts = await _facts(text)
    assert [v for a, v, _ in facts if a == "budget"] == [value], facts
    assert not [c for _, _, c in facts if old in c], facts


async def test_a_trailing_hedge_makes_the_clause_before_it_unconfirmed() -> None:
    from memagent.memory.extractors import rules_extractor

    turn = Turn(
        "user", "Go-live moves to Q3, not confirmed yet.", "m1", "2026-11-12T10:00:00+08:00"
    )
    (c,) = (await rules_extractor()([turn])).candidates
    assert c.attribute == "deadline:go_live" and c.confidence <= 0.5


async def test_a_rivals_new_quote_versions_its_old_one() -> None:
    """One key per rival's quote, valued by the amount, so the write path versions it."""
    old = [f for f in await _facts("Rival quote: Infor at 300k.") if f[0].startswith("competitor")]
    new = [
        f
        for f in await _facts("Infor dropped their quote to 260k.")
        if f[0].startswith("competitor")
    ]
    assert [(a, v) for a, v, _ in old] == [("competitor:infor:quote", "300000")]
    assert [(a, v) for a, v, _ in new] == [("competitor:infor:quote", "260000")]


async def test_what_they_can_do_now_is_the_budget() -> None:
    facts = await _facts("Update from the CFO call: they can only do $350k now.")
    assert [(a, v) for a, v, _ in facts if a == "budget"] == [("budget", "350000 USD")]


async def test_a_first_name_statement_is_about_that_person() -> None:
    facts = await _facts("Kim now says WhatsApp is better than email for her.")
    assert [a for a, _, _ in facts if a.startswith("contact_preference:kim:")], facts


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("Greg Tillman from IT security is skeptical.", "Greg Tillman", "IT security"),
        (
            "Their procurement lead is Omar Haddad; he prefers WhatsApp.",
            "Omar Haddad",
            "procurement lead",
        ),
    ],
)
def test_more_people_and_roles(text: str, name: str, role: str) -> None:
    assert [(p.name, p.role) for p in find_people(text)] == [(name, role)]


def test_a_product_and_its_kind_are_not_a_person() -> None:
    assert find_people("他们需要对接金蝶ERP。") == []


async def test_facts_name_their_category_when_their_words_do_not() -> None:
    """A question in the category's own words ("which competitors...") finds the fact."""
    facts = await _facts("They are also talking to HubSpot. Deal is in negotiation now.")
    contents = [c for _, _, c in facts]
    assert "Competitor: They are also talking to HubSpot" in contents
    assert "Deal stage: Deal is in negotiation now" in contents
    zh = [c for _, _, c in await _facts("王磊不喜欢开视频会，尽量线下见面。")]
    assert all(c.startswith(("联系偏好", "王磊（联系偏好）")) for c in zh), zh
    # a fact that says what it is stays as written
    assert [c for _, _, c in await _facts("竞争对手是金蝶。")] == ["竞争对手是金蝶"]


async def test_a_contract_with_a_named_vendor_ending_is_a_date() -> None:
    facts = await _facts("Their contract with Samsara ends March 31.")
    assert [(a, v) for a, v, _ in facts] == [("deadline:contract_end", "2027-03-31")]


async def test_a_first_call_is_not_a_contact_preference() -> None:
    facts = await _facts("First call with Bluepeak Energy.")
    assert not [a for a, _, _ in facts if a.startswith("contact")], facts


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("Ms. Chen is the project owner on their side.", "Ms. Chen", "project owner"),
        ("对方的项目经理叫刘洋。", "刘洋", "项目经理"),
        ("李工是技术负责人，人很务实。", "李工", "技术负责人"),
        ("对接人是小王，采购部的。", "小王", "对接人"),
    ],
)
def test_people_named_in_other_ways(text: str, name: str, role: str) -> None:
    assert [(p.name, p.role) for p in find_people(text)] == [(name, role)]


@pytest.mark.parametrize(
    ("text", "attribute", "needle"),
    [
        ("Finance approved 2M for phase one.", "budget", "2000000"),
        ("能批下来的钱大概一百五十万。", "budget", "1500000 approx"),
        ("项目金额300万左右。", "budget", "3000000 approx"),
        ("Proposal went out last Friday; waiting for their feedback.", "deal_stage", "feedback"),
        ("现在在等领导审批。", "deal_stage", "审批"),
        ("Their HQ is in Rotterdam, with 12 warehouses across Europe.", "profile:", "Rotterdam"),
        ("总部在深圳，全国有40家门店。", "profile:", "深圳"),
        ("They have about 3,000 employees.", "team_size", "3000"),
        ("Jane Doe, who runs procurement, will sign the PO.", "decision_maker", "jane doe"),
    ],
)
async def test_budget_stage_and_profile_phrasings(text: str, attribute: str, needle: str) -> None:
    facts = await _facts(text)
    hits = [f for f in facts if f[0].startswith(attribute)]
    assert any(needle.lower() in f"{v} {c}".lower() for _, v, c in hits), facts


async def test_a_person_running_a_function_is_not_an_incumbent() -> None:
    facts = await _facts("Jane Doe, who runs procurement, will sign the PO.")
    assert not [a for a, _, _ in facts if a.startswith(("incumbent", "current_vendor"))], facts


def test_past_weekdays_and_yesterday() -> None:
    assert [d.iso for d in find_dates("went out last Friday", _THU)] == ["2026-11-06"]
    assert [d.iso for d in find_dates("called yesterday", _THU)] == ["2026-11-11"]


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("early next year", "early 2027 (2027-01)"),
        ("by the end of this year", "2026-12-31"),
        ("first half of next year", "2027-H1 (by 2027-06-30)"),
        ("in H1", "2027-H1 (by 2027-06-30)"),
        ("next quarter", "2027-Q1 (by 2027-03-31)"),
        ("mid next year", "mid-2027 (2027-06-30)"),
    ],
)
def test_years_halves_and_quarters_relative_to_the_message(text: str, iso: str) -> None:
    assert [d.iso for d in find_dates(text, _THU)] == [iso]


@pytest.mark.parametrize(
    ("first", "then", "channel"),
    [
        ("Kim prefers email.", "Kim now says WhatsApp is better than email for her.", "whatsapp"),
        ("王总只用邮件沟通。", "王总说以后只用微信沟通。", "wechat"),
    ],
)
async def test_a_persons_new_preferred_channel_versions_the_old(
    first: str, then: str, channel: str
) -> None:
    a = [(k, v) for k, v, _ in await _facts(first) if k.startswith("contact_preference")]
    b = [(k, v) for k, v, _ in await _facts(then) if k.startswith("contact_preference")]
    assert len(a) == len(b) == 1 and a[0][0] == b[0][0] and b[0][1] == channel, (a, b)


async def test_an_avoidance_is_not_a_preferred_channel() -> None:
    facts = await _facts("Li Wei hates phone calls.")
    assert [k for k, _, _ in facts if k.startswith("contact_preference")]
    assert not [k for k, _, _ in facts if k.endswith(":channel")], facts
