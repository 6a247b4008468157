"""General mechanisms of the sales rules, each checked on notes written afresh in both
languages (none is a sentence of a labelled set): note shorthand, jokes inside a
run-on note, unpunctuated dictated Chinese, generic counts, counts that are not money,
headings that give their items a category, "Name:" labels, signature blocks, titles
before names with a space, familiar names with the full one in brackets, dates
(nth weekday of a month, holidays, EOQ, 年中), rivals that pitch, our own side kept
out; and short personal chit-chat that must stay out of sales memory."""

from __future__ import annotations

from datetime import datetime

import pytest

from memagent.core.types import Turn
from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_dates import find_dates
from memagent.memory.extract_entities import find_people
from memagent.memory.extract_rules import extract_rules
from memagent.memory.write_path import Candidate

AT = "2027-02-03T10:00:00+08:00"
REF = datetime.fromisoformat(AT)


def _run(*messages: str) -> list[Candidate]:
    turns = [Turn(role="user", content=m, id=f"m{i}", at=AT) for i, m in enumerate(messages)]
    return extract_rules(turns)[0]


def _texts(cands: list[Candidate]) -> list[str]:
    return [f"{c.content} {c.value or ''}".lower() for c in cands]


def _has(cands: list[Candidate], *words: str) -> bool:
    return any(all(w.lower() in t for w in words) for t in _texts(cands))


KEPT = [
    # shorthand: w/, mtg, dir., tmrw, asst
    (["mtg w/ Hollis Grain today. Needs to integrate w/ Dynamics GP. i send pricing tmrw."],
     [("integrate with dynamics",), ("pricing", "2027-02-04")]),
    (["Spoke to their ops dir. about scheduling; she wants everything via email, cc her asst Mira."],
     [("email", "assistant mira")]),
    # a joke inside a run-on note voids only its own part
    (["budget unclear - he joked 'ten million bucks' lol, needs SSO with Azure AD"],
     [("sso",)]),
    (["明辉物流 做冷链的 王总开玩笑说预算十个亿哈哈 必须支持温控数据上报 他只用钉钉"],
     [("温控",), ("钉钉",)]),
    # dictated Chinese without punctuation is cut at its spaces
    (["华岭医药 连锁药房 有600多家门店 现在用的是管家婆 想换成云系统"],
     [("600", "门店"), ("管家婆",), ("云系统",)]),
    # generic counts
    (["They run 45 cold-storage depots across Brazil."], [("45", "depots")]),
    (["集团下面一共有18个物流园区。"], [("18", "物流园区")]),
    # headings give their items a category; short items under a heading are kept
    (["- Current: Sage Intacct for finance, payroll on ADP"], [("sage intacct",), ("adp",)]),
    (["- Competitors: Workday, also Rippling"], [("workday",), ("rippling",)]),
    (["- 竞品：汇联易，据说报价在80万左右"], [("汇联易", "80万")]),
    (["- 现状：报销全靠纸质单据"], [("纸质",)]),
    # "Name:" labels name who the clause is about
    (["参会：财务总监 韩梅、信息部经理 罗斌\n- 韩梅：比较谨慎\n- 罗斌：很支持，想尽快试点"],
     [("韩梅", "谨慎"), ("罗斌", "支持")]),
    (["Attendees: Dana Whitley (CFO), Omar Said (IT Manager)\n- Dana = champion\n- Omar: worried about the migration"],
     [("dana", "champion"), ("omar", "worried")]),
    # signature blocks: name over title
    (["Please send the revised quote.\n\nRegards,\nGreta Lindqvist\nHead of Procurement, Nordvik AB"],
     [("greta lindqvist", "head of procurement")]),
    (["请尽快提供报价。\n孟庆华\n采购部经理"], [("孟庆华", "采购部经理")]),
    # familiar name with the full one in brackets
    (["见了财务总监老韩（韩立军），他对价格很敏感。"], [("韩立军", "财务总监")]),
    # rivals that pitch or are in the running
    (["Kinaxis is pitching them too."], [("kinaxis",)]),
    (["目前用友和浪潮都在跟这个项目。"], [("用友", "浪潮")]),
    # a second half joined by 并 keeps the requirement
    (["系统必须部署在本地机房，并支持国密算法。"], [("国密",)]),
    # a clause about "her" names her
    (["财务总监钱敏很看重回报，给她的方案一定要有投资回报测算。"], [("钱敏", "投资回报")]),
    # a comma before a new named subject ends a clause; a stance's second half joins it
    (["Attendees: Rosa Lind (COO), Piet Maas (CIO)\n- Rosa is a fan of ours, Piet is wary, worried about lock-in"],
     [("rosa", "fan"), ("piet maas", "wary", "lock-in")]),
    (["参会：运营总监 苏蔓、信息部经理 顾城\n顾城比较谨慎，担心系统切换的风险。"], [("顾城", "谨慎", "切换")]),
    # heading items split outside brackets
    (["- Competitors: Anaplan, also Pigment maybe (the CFO mentioned them once, unsure)"], [("anaplan",)]),
    # dated events still to come are timeline items
    (["Next: steering committee review on March 9."], [("review", "2027-03-09")]),
    (["下周四约了第一次见面。"], [("见面", "2027-02-11")]),
    (["3月中旬做现场测试。"], [("现场", "2027-03-15")]),
    # stance words
    (["Their CFO Nora Beck is lukewarm on us."], [("nora beck", "lukewarm")]),
    (["采购经理赵倩对我们态度比较冷淡。"], [("赵倩", "冷淡")]),
    # incumbent forms
    (["现在他们用金蝶K3做财务。"], [("金蝶",)]),
    (["现用万达信息的HIS。"], [("万达信息",)]),
    # what someone says about the clause before joins it
    (["Unhappy with Outreach - says the price doubled and reps ignore it."],
     [("outreach", "price doubled")]),
    # requirements with 要能, profile, dated commitments with the date inside, stalled stage
    (["系统要能跟钉钉审批打通。"], [("钉钉",)]),
    (["盛达五金，给格力和美的供货。"], [("格力",)]),
    (["我下周二发一份报价给刘总。"], [("报价", "2027-02-09")]),
    (["报价发过去两周了，客户一直说再考虑。"], [("再考虑",)]),
    (["They supply parts to Ford and GM."], [("ford",)]),
    # a condition on a real offer or plan is a fact with its condition
    (["They're also talking to Coupa, whose rep offered 20% off if they sign this quarter."],
     [("coupa",)]),
    (["If the grant passes, they plan to reissue the tender in May with a cap of $800k."],
     [("tender",)]),
    # an English voice memo without commas is cut before each new subject or topic
    (["Voice memo: ok so met with Dan Cole at Fernway Mills he's the ops lead really keen on the "
      "scanners they've got about 9 warehouses and they use Oracle for everything budget maybe 150k "
      "not sure next step is a site visit on the 20th"],
     [("9 warehouses",), ("oracle",), ("site visit", "2027-02-20")]),
    # a dictated Chinese note: each piece stands alone, the older detectors too
    (["客户 华瑞物流 运营总监 周宁 现在系统太慢 经常卡 预算还没批 竞品有金蝶 他们报了90万"],
     [("周宁", "运营总监"), ("经常卡",), ("金蝶", "90万")]),
    # "Email from X:" is a lead-in, the deadline after it is read
    (["Email from Ana Ruiz (procurement) at Velo Bikes: we need your final offer by March 2."],
     [("final offer", "2027-03-02")]),
    # a role with 姓X 叫XX, names that do not swallow the verb after them
    (["IT负责人姓郑 叫郑凯"], [("郑凯", "it负责人")]),
    (["今天和信息中心主任何磊聊了一下。"], [("何磊：", "信息中心主任")]),
    (["采购经理宋佳发来预算确认：240万。"], [("宋佳：", "采购经理")]),
    # a heading names a kind of note, not something to write into each memory
    (["时间：3月前上线"], [("2027-03",)]),
    # "Also" is not what makes a rival a rival
    (["* Also talking to IFS and ServiceNow"], [("ifs", "servicenow")]),
    # a heading keeps its category when the item carries a date
    (["4) 痛点：成本核算靠Excel，月底对账要一周"], [("excel", "对账")]),
    # a name does not swallow the verb after it; the role is not "最终要CEO"
    (["决策链：总经理王海拍板"], [("王海是决策人",)]),
    (["最终要CEO张明签字。"], [("张明", "ceo")]),
]  # fmt: skip


@pytest.mark.parametrize(("messages", "wanted"), KEPT)
def test_general_forms_are_kept(messages: list[str], wanted: list[tuple[str, ...]]) -> None:
    cands = _run(*messages)
    for words in wanted:
        assert _has(cands, *words), (words, _texts(cands))


DROPPED = [
    # our own side, not the customer
    (["fyi our own Q1 quota is $2M, so this deal matters."], ["2m", "2000000"]),
    (["提醒一下：公司这个季度给我的目标是500万。"], ["500万"]),
    (["remind me: our list price for the analytics add-on is $40 per seat."], ["$40"]),
    # e-mail headers
    (["Subject: RE: pilot next steps\nFrom: Ana Reyes"], ["subject"]),
    # the joke's figure never becomes the budget
    (["budget unclear - he joked 'ten million bucks' lol"], ["10000000", "ten million"]),
    (["王总开玩笑说预算十个亿哈哈"], ["十个亿", "1000000000"]),
    # short personal chit-chat (LoCoMo-like) is not a sales fact
    (["I love painting on weekends."], ["painting"]),
    (["Thanks for the offer!"], ["offer"]),
    (["I read 3 books on my trip, haha."], ["books"]),
    (["We have 2 dogs and a cat now."], ["dogs"]),
    (["我周末喜欢去爬山。"], ["爬山"]),
    (["谢谢你的邀请！"], ["邀请"]),
    (["Last Sunday we had a training session, it was intense."], ["training"]),
    (["We've been overwhelmed by the response, thanks!"], ["overwhelmed"]),
    (["We gave out food and supplies at the shelter."], ["supplies"]),
    (["I'm still thinking that counseling could be my path."], ["counseling"]),
    # a visit logged today is not a date to keep, nor my own call tomorrow
    (["Visit with Oakridge Mills today at their plant."], ["2027-02-03"]),
    (["Prepping for my call with them tomorrow."], ["2027-02-04"]),
    # a call logged with a person is their role fact, not a contact preference
    (["Call with Hanna Ek, their Head of IT, this morning."], ["this morning"]),
    # hypotheticals with a counterfactual word stay out
    (["If they ever went to 800 seats we'd be looking at $900k."], ["900k", "900000"]),
    (["If they doubled headcount, would $3M make sense?"], ["3m", "3000000"]),
    # asides to the assistant: a slip the user owns, a bare topic, a rebuke of a guess
    (["They have 38 hotels - and sorry, 42 was wrong."], ["42 was wrong"]),
    (["哎呀发错了。"], ["发错"]),
    (["竞品方面，还没听说。"], ["竞品方面"]),
    (["别乱猜，预算他没说。"], ["乱猜"]),
    (["No idea and don't assume that, she didn't say."], ["assume"]),
    (["Voice memo: met the team at Fernway Mills today they want SSO"], ["voice memo"]),
    (["他们不太想换系统。"], ["不太想换"]),
    (["Haha, I love hiking on weekends. Let me know if you need anything."], ["need anything"]),
]  # fmt: skip


@pytest.mark.parametrize(("messages", "absent"), DROPPED)
def test_not_sales_facts_are_dropped(messages: list[str], absent: list[str]) -> None:
    texts = _texts(_run(*messages))
    assert not [t for t in texts for a in absent if a.lower() in t], texts


def test_a_dated_pain_under_a_heading_stays_a_pain_point() -> None:
    cands = _run("痛点：成本核算靠Excel，月底对账要一周")
    assert [c.attribute.split(":")[0] for c in cands] == ["pain_point"], _texts(cands)


def test_a_pilots_count_does_not_replace_the_accounts() -> None:
    cands = _run("Brightline Foods runs 300 stores.", "They're piloting Relex in 12 stores now.")
    counts = [(c.attribute, c.value) for c in cands if c.attribute.startswith("count")]
    assert len({a for a, _ in counts}) == 2, counts


@pytest.mark.parametrize(
    "text", ["Keep every proposal under 500 words.", "Summaries of at most 200 characters, please."]
)
def test_a_length_limit_on_text_is_not_a_count_of_the_account(text: str) -> None:
    assert not [c for c in _run(text) if c.attribute.startswith("count")], _texts(_run(text))


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("The board meets the third Wednesday of March.", "2027-03-17"),
        ("We need it before Christmas.", "2027-12-25"),
        ("Decision after Thanksgiving.", "2027-11-25"),
        ("send it by EOQ", "2027-03-31"),
        ("i call them tmrw", "2027-02-04"),
        ("项目明年年中启动", "2028-06-30"),
        ("今年年中上线", "2027-06-30"),
    ],
)
def test_more_date_forms_resolve(text: str, iso: str) -> None:
    assert any(iso in d.iso for d in find_dates(text, REF)), find_dates(text, REF)


def test_a_weekday_in_brackets_names_the_date_before_it() -> None:
    hits = find_dates("2027年3月4日（周四）开评审会", REF)
    assert [h.iso for h in hits] == ["2027-03-04"]


@pytest.mark.parametrize(
    "text", ["存栏约12万头", "覆盖300多家门店", "about 55k meters", "800k users", "2万台设备"]
)
def test_counts_of_things_are_not_money(text: str) -> None:
    assert parse_amounts(text) == []


@pytest.mark.parametrize("text", ["预算30万元", "budget 1.2M pounds", "800k for the rollout"])
def test_money_is_still_money(text: str) -> None:
    assert parse_amounts(text)


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("参会：IT总经理 刘洋、法务部经理 贺晨", "刘洋", "IT总经理"),
        ("见了技术总监老郑（郑一鸣）", "郑一鸣", "技术总监"),
        ("Spoke with practice manager Ines Duarte.", "Ines Duarte", "practice manager"),
        ("her successor is Paul Meyer, currently controller", "Paul Meyer", "controller"),
    ],
)
def test_people_in_more_shapes(text: str, name: str, role: str) -> None:
    assert (name, role) in [(p.name, p.role) for p in find_people(text)]


def test_a_dictated_budget_word_does_not_make_a_rivals_quote_the_budget() -> None:
    cands = _run("预算还没批 竞品有金蝶 他们报了90万")
    assert not any("预算" in t and "90" in t for t in _texts(cands)), _texts(cands)
    assert not any(c.attribute == "budget" for c in cands), cands
    # where the budget stands is a fact of its own (session 21)
    assert [c.content for c in cands if c.attribute == "budget_status"] == ["预算还没批"], cands
