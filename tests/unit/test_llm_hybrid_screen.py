"""The hybrid LLM extractor's screens, with a scripted model: the salesperson's own
affairs are no customer fact (whichever reads them), a line's own words refile what the
model sorted wrongly, and one fact said twice (figures in Chinese numerals, a person
behind a full-width colon) is written once."""

from __future__ import annotations

import json

import pytest
from graph_fakes import scripted

from memagent.core.types import Turn
from memagent.memory.extractors import llm_extractor
from memagent.memory.llm_hybrid import family

AT = "2026-11-12T10:00:00+08:00"


def _all(c: str) -> str:
    """The model's answer filing every line it was sent under ``c``."""
    return json.dumps({"items": [{"n": n, "c": c} for n in range(1, 9)]})


@pytest.mark.parametrize(
    ("text", "trace"),
    [
        (
            "Our Q4 quota is 1.4M and I'm at 62%, send help. Also my manager Priscilla is on "
            "vacation Dec 20 to Jan 5 so approvals will be slow, ugh.",
            "priscilla",
        ),
        ("Our Sarah is on leave till the 26th so I'll run the demo myself.", "sarah"),
        ("还有我同事小张下周休年假，他的客户我先帮着跟。", "小张"),
        ("帮我算一下我这个季度还差多少，我的指标是800万，已经签了520万。", "520"),
        ("公司規定是九折以內業務可以自己決定，超過要經理批。", "九折"),
    ],
)
async def test_the_salespersons_own_affairs_are_no_customer_fact(text: str, trace: str) -> None:
    for category in ("pain_point", "stakeholder", "other"):
        res = await llm_extractor(scripted(_all(category)))([Turn("user", text, "m1", AT)])
        kept = [c.content for c in res.candidates if trace in c.content.lower()]
        assert kept == [], (category, kept)


async def test_a_customer_fact_beside_our_own_news_is_kept() -> None:
    text = "Their CFO Joost Bakker signs off anything over 200k. My manager is on leave next week."
    res = await llm_extractor(scripted(_all("none")))([Turn("user", text, "m1", AT)])
    assert any("Joost" in c.content for c in res.candidates), res


async def test_a_budget_correction_the_model_sorted_as_nothing_is_a_budget() -> None:
    model = scripted(_all("none"))
    text = "更正：預算是 4,500,000 澳門幣，上次記錯了。"
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert len(model.seen) == 1
    assert [c.attribute for c in res.candidates] == ["budget"], res.reasons
    assert "4,500,000" in res.candidates[0].content
    # a value (whatever the currency) and the correction: the old budget is versioned
    assert res.candidates[0].value == "4500000" and res.candidates[0].correction


@pytest.mark.parametrize(
    ("text", "sorted_as", "kept_as"),
    [
        ("現在的 POS 跟進銷存是用凌越的。", "other", "incumbent"),
        ("确定的是新致软件。", "competitor", "competitor"),
        ("纷享销客和玄讯科技的人都来过。", "competitor", "competitor"),
        ("另外品茗的人上周也来了。", "competitor", "competitor"),
        ("离线也能用。", "requirement", "requirement"),
        ("Kevin is best reached on Lark.", "none", "contact_preference"),
        ("正式的东西走邮件。", "none", "contact_preference"),
        ("I'd say we're moving into technical evaluation now.", "requirement", "deal_stage"),
        ("I promised we'd set up a reference site visit in Brisbane.", "other", "commitment"),
        ("Present: Stefan Krüger (IT specialist, raised tons of questions).", "stakeholder",
         "stakeholder"),
    ],
)  # fmt: skip
async def test_a_line_is_kept_under_the_category_its_words_show(
    text: str, sorted_as: str, kept_as: str
) -> None:
    model = scripted(_all(sorted_as))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert len(model.seen) == 1, "the rules read it; pick a line only the model sorts"
    assert [family(c.attribute) for c in res.candidates] == [family(kept_as)], res.reasons
    if kept_as == "commitment":
        assert res.candidates[0].type == "commitment"


async def test_a_count_in_chinese_numerals_the_rules_hold_is_written_once() -> None:
    res = await llm_extractor(scripted(_all("other")))(
        [Turn("user", "正方教务，用了十年了。学生大概一万二千人。", "m1", AT)]
    )
    twelve = [c.content for c in res.candidates if "12000" in c.content or "一万二千" in c.content]
    assert len(twelve) == 1, twelve


async def test_one_person_behind_a_full_width_colon_is_one_memory() -> None:
    text = "窗口：IT 總監 梁偉傑\n決策：CFO 何美儀（簽核）\n預算：MOP 6,000,000"
    res = await llm_extractor(scripted(_all("stakeholder")))([Turn("user", text, "m1", AT)])
    liang = [c.content for c in res.candidates if "梁偉傑" in c.content]
    assert len(liang) == 1, liang
