"""Rule and LLM extractors: explicit statements kept, traps skipped, bad items dropped."""

from __future__ import annotations

import json

import pytest
from graph_fakes import scripted

from memagent.graph.jobs import Turn
from memagent.memory.extract_rules import cn_to_int, parse_amount
from memagent.memory.extract_triggers import early_triggers
from memagent.memory.extractors import (
    MalformedExtractionError,
    canonical_attribute,
    llm_extractor,
    rules_extractor,
)


async def extract(*texts: str) -> list[tuple[str, str | None, float]]:
    turns = [Turn("user", t, f"m{i}") for i, t in enumerate(texts)]
    res = await rules_extractor()(turns)
    return [(c.attribute, c.value, c.confidence) for c in res.candidates]


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("Our budget is $3 million for this project.", "budget", "3000000 USD"),
        ("The budget is 500k.", "budget", "500000"),
        ("我们的预算是300万。", "budget", "3000000"),
        ("预算大约两百万人民币。", "budget", "2000000 CNY"),
        ("We need 50 seats.", "seats", "50"),
        ("我们需要80个账号。", "seats", "80"),
        ("我们有200名员工。", "team_size", "200"),
        ("Sarah, our CFO, is the decision maker.", "decision_maker", "sarah"),
        ("决策人是李经理。", "decision_maker", "李经理"),
        ("王总拍板。", "decision_maker", "王总"),
        ("Please contact me by email, not phone.", "contact_channel", "email"),
        ("以后都用微信联系我。", "contact_channel", "wechat"),
        ("不要打电话，发邮件就行。", "contact_channel", "email"),
        ("合同要在6月30日之前签。", "deadline", "6月30日"),
        ("We currently use Salesforce.", "current_vendor", "salesforce"),
        ("From now on send all quotes in USD.", "currency", None),
        ("以后报价都用人民币。", "currency", None),
    ],
)
async def test_rules_keep_explicit_statements(text: str, attribute: str, value: str | None) -> None:
    found = await extract(text)
    assert any(a == attribute and (value is None or v == value) for a, v, _ in found), found


@pytest.mark.parametrize(
    "text",
    [
        "If we had a budget of 5 million we would buy the premium plan.",
        "假如预算有500万，我们就买旗舰版。",
        "Our budget is a billion dollars, haha just kidding.",
        "预算一个亿，开玩笑的。",
        "What is your price for 50 seats?",
        "你们50个账号多少钱？",
        "Nice weather today.",
    ],
)
async def test_rules_skip_traps(text: str) -> None:
    assert await extract(text) == []


async def test_hedged_statement_has_low_confidence() -> None:
    ((attr, _, conf),) = await extract("我们预算大概200万左右。")
    assert attr == "budget" and conf < 0.6


async def test_bare_correction_uses_topic_of_conversation() -> None:
    turns = [
        Turn("assistant", "So the budget is 2 million?", "a1"),
        Turn("user", "No, it's 3 million.", "m1"),
    ]
    res = await rules_extractor()(turns)
    assert [(c.attribute, c.value, c.correction) for c in res.candidates] == [
        ("budget", "3000000", True)
    ]


def test_amount_and_numeral_parsing() -> None:
    assert cn_to_int("两千五百") == 2500 and cn_to_int("十二") == 12
    assert parse_amount("about ¥1,200,000") == ("¥1,200,000", "1200000 CNY")
    assert parse_amount("we have 12 people") is None


def test_triggers_fire_on_salient_text_only() -> None:
    assert "amount" in early_triggers("budget is 300万")
    assert "preference" in early_triggers("以后都用微信联系")
    assert "decision" in early_triggers("王总拍板")
    assert early_triggers("hello, how are you") == []


def _answer(items: list[dict[str, object]]) -> str:
    return json.dumps({"memories": items}, ensure_ascii=False)


async def test_llm_items_validated_one_by_one() -> None:
    model = scripted(
        _answer(
            [
                {"content": "Customer budget is 3 million.", "type": "fact", "attribute": "Budget",
                 "value": "3 million", "importance": 0.8, "confidence": 0.9},
                {"content": "x", "type": "rumour", "attribute": "a"},  # bad enum
                {"content": "Customer budget is 9 million.", "attribute": "budget"},  # ungrounded
            ]
        )
    )  # fmt: skip
    res = await llm_extractor(model)([Turn("user", "Our budget is 3 million.", "m1")])
    assert [(c.attribute, c.value) for c in res.candidates] == [("budget", "3000000")]
    assert res.dropped == 2 and any("ungrounded" in r for r in res.reasons)
    assert res.candidates[0].message_ids == ["m1"]


async def test_llm_gate_skips_model_on_small_talk() -> None:
    model = scripted(_answer([]))
    res = await llm_extractor(model)([Turn("user", "hi, how was your weekend", "m1")])
    assert res.candidates == [] and model.seen == []


async def test_llm_malformed_json_retried_then_raised() -> None:
    model = scripted("sure! here you go", _answer([]))
    res = await llm_extractor(model)([Turn("user", "Our budget is 3 million.", "m1")])
    assert res.candidates == [] and len(model.seen) == 2
    broken = scripted("not json", "still not json")
    with pytest.raises(MalformedExtractionError):
        await llm_extractor(broken)([Turn("user", "Our budget is 3 million.", "m1")])


def test_attribute_synonyms_are_canonical() -> None:
    assert canonical_attribute("Budget Amount") == "budget"
    assert canonical_attribute("preferred_contact") == "contact_channel"
    assert canonical_attribute("favourite colour") == "favourite_colour"


async def test_llm_items_checked_against_user_sentences() -> None:
    turns = [
        Turn("user", "预算一个亿，哈哈开玩笑的。实际上预算是50万。", "m1"),
        Turn("user", "Maybe we could stretch to 400k, not sure.", "m2"),
        Turn("assistant", "Understood, let's see.", "a1"),
    ]
    model = scripted(
        _answer(
            [
                {"content": "预算一个亿，哈哈开玩笑的。实际上预算是50万。", "attribute": "budget",
                 "value": "500000", "confidence": 1.0},
                {"content": "We could stretch to 400k", "attribute": "budget_stretch",
                 "confidence": 1.0},
                {"content": "Understood, let's see", "attribute": "status", "confidence": 1.0},
            ]
        )
    )  # fmt: skip
    res = await llm_extractor(model)(turns)
    budget, stretch = res.candidates
    assert (budget.attribute, budget.value) == ("budget", "500000")  # the rules' key and value
    assert "一个亿" not in budget.content  # figures of the joke are not kept
    assert "400k" in stretch.content and stretch.confidence <= 0.5  # hedged: held as pending
    assert any("assistant" in r for r in res.reasons)
