"""General mechanisms of the sales rules, on sentences written for these tests (not taken
from any labelled set): Traditional Chinese, people with their roles in apposition, a
conditional clause inside a long note, and a clause that only qualifies the one before."""

from __future__ import annotations

import pytest

from memagent.core.types import Turn
from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_rules import extract_rules

AT = "2026-10-05T09:00:00+08:00"


def _facts(*texts: str) -> list[str]:
    turns = [Turn("user", t, id=f"m{i}", at=AT) for i, t in enumerate(texts)]
    return [f"{c.attribute} | {c.value} | {c.content}" for c in extract_rules(turns)[0]]


def _has(facts: list[str], *words: str) -> bool:
    return any(all(w.lower() in f.lower() for w in words) for f in facts)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("預算大約新台幣600萬，要在下個月底前決定。", ("budget", "預算", "600萬")),
        ("現有系統是鼎新的ERP，已經用了八年。", ("鼎新", "現有系統")),
        ("下週四之前要把報價單寄給採購部。", ("2026-10-15", "報價")),
        ("系統必須支援私有雲部署。", ("requirement", "私有雲")),
        ("我們的競爭對手是漢康資訊，報價比我們低兩成。", ("competitor", "漢康")),
    ],
)
def test_traditional_chinese_is_read_and_kept_in_its_own_characters(
    text: str, words: tuple[str, ...]
) -> None:
    facts = _facts(text)
    assert _has(facts, *words), facts


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        (
            "Had coffee with Marta Øvergård, she's their head of logistics.",
            "Marta Øvergård",
            "head of logistics",
        ),
        ("Lunch with Sean O'Malley he's the CFO and a golfer", "Sean O'Malley", "CFO"),
        (
            "Our contact is Dana Whitfield, she runs purchasing for the group.",
            "Dana Whitfield",
            "purchasing",
        ),
        ("Their COO is a woman called Irene Castillo, very sharp.", "Irene Castillo", "COO"),
        ("Present: Omar Haddad (Hd of Data), Lea Brun (Dir. Finance)", "Lea Brun", "Dir"),
        ("对接人：孙悦，集团信息中心副主任，人很爽快", "孙悦", "信息中心副主任"),
        ("技术负责人是他们新来的贺立军，之前在华为。", "贺立军", "技术负责人"),
        ("去了物流部，见到了物流部的彭经理彭建国，聊得不错", "彭建国", "物流部经理"),
        ("與會：採購處處長 鄭文彬、財務長 葉淑芬", "葉淑芬", "財務長"),
    ],
)
def test_people_named_with_their_role_in_apposition(text: str, name: str, role: str) -> None:
    facts = _facts(text)
    assert _has(facts, "role", name, role), facts


@pytest.mark.parametrize(
    ("first", "later", "words"),
    [
        (
            "Spoke with Nadia Petrov, she's VP Supply Chain at Corvel.",
            "Correction: Nadia is actually the COO, not VP Supply Chain.",
            ("Nadia Petrov", "COO"),
        ),
        ("財務處處長鄭文彬很支持我們。", "鄭處長說下週三前要看到報價。", ("鄭文彬", "報價")),
        ("拜访了采购总监邓丽华。", "邓总说她更喜欢微信沟通，别打电话。", ("邓丽华", "微信")),
        ("見了廠長吳志遠。", "吳廠長希望下週二前收到報價。", ("吳志遠", "報價")),
    ],
)
def test_a_person_later_named_by_first_name_or_title_is_written_in_full(
    first: str, later: str, words: tuple[str, ...]
) -> None:
    facts = _facts(first, later)
    assert _has(facts, *words), facts


@pytest.mark.parametrize(
    "text",
    [
        "吳經理習慣用電郵聯絡。",
        "陈总监习惯用LINE联络。",
        "財務長偏好書面往來。",
    ],
)
def test_messaging_apps_and_writing_are_contact_preferences(text: str) -> None:
    assert _has(_facts(text), "contact_preference"), _facts(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("- 預算：新台幣900萬，已經董事會核准", ("budget", "900萬", "核准")),
        ("竞争者：云图科技，报价比我们高两成", ("competitor", "云图科技", "两成")),
        ("决策：管委会，每月第一个周一开会", ("管委会", "开会")),
        ("comp: Brightline, Orca", ("competitor", "Orca")),
        ("bdgt: roughly 80k for year one", ("budget", "80k")),
        ("curr. tools: Zendesk plus shared inbox", ("Zendesk",)),
    ],
)
def test_a_heading_in_shorthand_or_with_its_head_word_gives_its_item_a_category(
    text: str, words: tuple[str, ...]
) -> None:
    facts = _facts(text)
    assert _has(facts, *words), facts


@pytest.mark.parametrize(
    ("text", "kept", "dropped"),
    [
        (
            "quick recap from Orion Freight we saw Paula Mendes she's the COO, budget for phase one "
            "is 90k and if phase one works they would roll out to all 12 depots, she wants weekly "
            "status mails, and Motive pitched them last month",
            ("90k",),
            "12 depots",
        ),
        (
            "星河物流今天聊得不错，一期预算80万，要是一期效果好，明年就扩到全部仓库，下周五前给他们方案，"
            "他们IT负责人是钟磊",
            ("80万",),
            "全部仓库",
        ),
    ],
)
def test_a_conditional_inside_a_long_note_voids_only_its_own_clause(
    text: str, kept: tuple[str, ...], dropped: str
) -> None:
    facts = _facts(text)
    assert _has(facts, *kept), facts
    assert not _has(facts, dropped), facts


def test_a_short_hypothetical_is_still_not_a_memory() -> None:
    assert _facts("If they had 2 million to spend, we would sell them 500 seats.") == []
    assert _facts("如果他们预算有500万，我们就能拿下整个项目。") == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("4. 預算：公司核了新台幣600萬，超出部分要董事會同意。", ("600萬", "董事會")),
        ("- 竞品：云图科技 报了180万", ("云图科技", "180万")),
    ],
)
def test_an_item_under_a_heading_keeps_its_parts_together(
    text: str, words: tuple[str, ...]
) -> None:
    facts = _facts(text)
    assert _has(facts, *words), facts


def test_a_role_restated_in_the_stakeholder_memory_is_not_kept_twice() -> None:
    facts = _facts("- 对接人：邱婷，信息中心主任，很支持我们")
    assert _has(facts, "邱婷", "信息中心主任", "支持"), facts
    assert len([f for f in facts if "邱婷" in f]) == 1, facts


@pytest.mark.parametrize(
    "text",
    [
        "Rivet Labs quoted 90k, not sure if that includes support.",
        "据说远景软件也在接触他们，不清楚是不是同一个项目。",
        "决策人是副总裁蒋文涛，待确认",
    ],
)
def test_a_fact_the_note_doubts_is_held_as_uncertain(text: str) -> None:
    cands = extract_rules([Turn("user", text, id="m0", at=AT)])[0]
    doubted = [c for c in cands if c.attribute.startswith(("competitor", "decision_maker"))]
    assert doubted, [(c.attribute, c.confidence) for c in cands]
    assert all(c.confidence < 0.9 for c in doubted), [(c.attribute, c.confidence) for c in cands]


@pytest.mark.parametrize(
    "text",
    [
        "Fwd: Lumen Dairy / intro call 28 Sep",
        "转发：华盛电机 现场调研纪要（9月30日）",
        "Recap of the site visit on Oct 2",
    ],
)
def test_a_note_title_with_a_past_date_is_not_a_deadline(text: str) -> None:
    assert not _has(_facts(text), "deadline"), _facts(text)


def test_a_dated_event_still_ahead_is_kept() -> None:
    assert _has(_facts("Vendor selection deadline is Oct 20."), "2026-10-20")


@pytest.mark.parametrize(
    ("first", "later", "old", "new"),
    [
        (
            "New contact at Halden Foods is Elif Aydin, she's the CFO.",
            "Correction, she's the COO, not the CFO.",
            "cfo",
            "coo",
        ),
        ("对接人是孙静，采购经理。", "更正一下，她其实是财务总监。", "对接人", "财务总监"),
    ],
)
def test_a_role_corrected_with_a_pronoun_replaces_the_old_role(
    first: str, later: str, old: str, new: str
) -> None:
    turns = [Turn("user", t, id=f"m{i}", at=AT) for i, t in enumerate((first, later))]
    roles = [
        (c.attribute, c.value) for c in extract_rules(turns)[0] if c.attribute.endswith(":role")
    ]
    assert roles[-1][1] == new, roles
    assert len({a for a, _ in roles}) == 1, roles  # one key: the new role supersedes the old


def test_each_persons_stance_in_one_sentence_is_kept() -> None:
    facts = _facts("见了采购经理白露和IT主管华强，白露挺感兴趣，华强还没表态。")
    assert _has(facts, "白露", "感兴趣"), facts
    assert _has(facts, "华强", "没表态"), facts


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("She said two hundred fifty thousand pounds, give or take.", 250000, "GBP"),
        ("They can do one point five million dollars next year.", 1500000, "USD"),
        ("Roughly three hundred grand for the pilot.", 300000, ""),
        ("Twenty-five thousand euros for training.", 25000, "EUR"),
    ],
)
def test_amounts_written_in_words(text: str, value: int, currency: str) -> None:
    found = parse_amounts(text)
    assert [(a.value, a.currency) for a in found] == [(value, currency)], found


@pytest.mark.parametrize("text", ["a million reasons to switch", "two million users a month"])
def test_worded_counts_are_not_amounts(text: str) -> None:
    assert parse_amounts(text) == []
