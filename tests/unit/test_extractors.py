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
    llm_extractor,
    rules_extractor,
)
from memagent.memory.llm_items import canonical_attribute


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
        ("预算大约两百万人民币。", "budget", "2000000 CNY approx"),
        ("We need 50 seats.", "seats", "50"),
        ("我们需要80个账号。", "seats", "80"),
        ("我们有200名员工。", "team_size", "200"),
        ("Sarah, our CFO, is the decision maker.", "decision_maker", "sarah"),
        ("决策人是李经理。", "decision_maker", "李经理"),
        ("王总拍板。", "decision_maker", "王总"),
        ("Please contact me by email, not phone.", "contact_channel", "email"),
        ("以后都用微信联系我。", "contact_channel", "wechat"),
        ("不要打电话，发邮件就行。", "contact_channel", "email"),
        ("合同要在6月30日之前签。", "deadline:signing", "2027-06-30"),
        ("We currently use Salesforce.", "current_vendor:salesforce", "salesforce"),
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


async def test_approximate_value_is_a_confirmed_fact() -> None:
    """Hedging is not doubt: "大概"/"about" give an approximate value, not a pending fact."""
    for text in ("我们预算大概200万左右。", "Budget is about 2 million."):
        ((attr, value, conf),) = await extract(text)
        assert (attr, value) == ("budget", "2000000 approx") and conf >= 0.9


@pytest.mark.parametrize(
    "text", ["Budget might be around 2 million.", "预算可能是200万，还不确定。", "Maybe 2M budget."]
)
async def test_uncertain_statement_has_low_confidence(text: str) -> None:
    ((attr, _, conf),) = await extract(text)
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
    res = await llm_extractor(model, hybrid=False)([Turn("user", "Our budget is 3 million.", "m1")])
    assert [(c.attribute, c.value) for c in res.candidates] == [("budget", "3000000")]
    assert res.dropped == 2 and any("ungrounded" in r for r in res.reasons)
    assert res.candidates[0].message_ids == ["m1"]


async def test_llm_gate_skips_model_on_small_talk() -> None:
    model = scripted(_answer([]))
    res = await llm_extractor(model, hybrid=False)([Turn("user", "hi, how was your weekend", "m1")])
    assert res.candidates == [] and model.seen == []


async def test_llm_malformed_json_retried_then_raised() -> None:
    model = scripted("sure! here you go", _answer([]))
    res = await llm_extractor(model, with_rules=False)(
        [Turn("user", "Our budget is 3 million.", "m1")]
    )
    assert res.candidates == [] and len(model.seen) == 2
    broken = scripted("not json", "still not json")
    with pytest.raises(MalformedExtractionError):
        await llm_extractor(broken, with_rules=False)(
            [Turn("user", "Our budget is 3 million.", "m1")]
        )


async def test_llm_malformed_twice_keeps_the_rules_facts() -> None:
    broken = scripted("not json", "still not json")
    res = await llm_extractor(broken, hybrid=False)(
        [Turn("user", "Our budget is 3 million.", "m1")]
    )
    assert len(broken.seen) == 2
    assert [(c.attribute, c.value) for c in res.candidates] == [("budget", "3000000")]
    assert any("malformed" in r and "rules' facts are kept" in r for r in res.reasons)


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
    res = await llm_extractor(model, hybrid=False)(turns)
    budget, stretch = res.candidates
    assert (budget.attribute, budget.value) == ("budget", "500000")  # the rules' key and value
    assert "一个亿" not in budget.content  # figures of the joke are not kept
    assert "400k" in stretch.content and stretch.confidence <= 0.5  # hedged: held as pending
    assert any("assistant" in r for r in res.reasons)


async def test_llm_gate_lets_salient_turns_the_rules_do_not_read_reach_the_model() -> None:
    text = "Their people dread moving years of records off the old platform."
    assert (await rules_extractor()([Turn("user", text, "m1")])).candidates == []
    model = scripted(
        _answer([{"content": "The customer's people dread moving years of records off the old "
                  "platform.", "attribute": "pain_point", "confidence": 0.9}])
    )  # fmt: skip
    res = await llm_extractor(model, hybrid=False)([Turn("user", text, "m1")])
    assert len(model.seen) == 1
    ((attr, content),) = [(c.attribute, c.content) for c in res.candidates]
    assert attr.startswith("pain_point:") and "records off the old platform" in content


@pytest.mark.parametrize(
    "text",
    [
        "Sarah Lindqvist moved over from the Oslo office to look after the warehouse team.",
        "Mike from Delta left the company last week; Jo took over his accounts.",
        "王磊已经调去华南区了，她的客户由陈东接手。",
    ],
)
async def test_llm_gate_passes_statements_without_any_trigger_word(text: str) -> None:
    """Salience is not the rules' vocabulary: a statement no trigger and no rule reads
    still reaches the model, and what it finds is stored when it validates."""
    assert early_triggers(text) == []
    assert (await rules_extractor()([Turn("user", text, "m1")])).candidates == []
    fact = text.split("，")[0].split(";")[0].rstrip(".。")
    model = scripted(_answer([{"content": fact + ".", "attribute": "stakeholder"}]))
    res = await llm_extractor(model, hybrid=False)([Turn("user", text, "m1")])
    assert len(model.seen) == 1
    assert [c.content for c in res.candidates] == [fact + "."], res.reasons


@pytest.mark.parametrize(
    "text", ["thanks!", "好的，谢谢", "谁负责采购？", "ok. what is the budget?"]
)
async def test_llm_gate_skips_questions_and_acknowledgements(text: str) -> None:
    model = scripted(_answer([]))
    res = await llm_extractor(model, hybrid=False)([Turn("user", text, "m1")])
    assert res.candidates == [] and model.seen == []


async def test_llm_facts_are_not_capped_by_the_rules_keys() -> None:
    """The rules read one requirement here; the model's three facts keep three keys."""
    text = "Lanhai's CTO Wang Lei prefers monthly invoices, wants SSO, and we promised a demo next Tuesday"
    turn = Turn("user", text, "m1", "2026-11-12T10:00:00+08:00")  # a Thursday
    model = scripted(
        _answer([
            {"content": "Wang Lei, CTO of Lanhai, prefers monthly invoices.",
             "attribute": "stakeholder", "confidence": 0.9},
            {"content": "Wang Lei wants SSO.", "attribute": "requirement", "confidence": 0.9},
            {"content": "We promised Lanhai a demo on 2026-11-17.", "attribute": "commitment",
             "value": "2026-11-17", "confidence": 0.9},
        ])
    )  # fmt: skip
    res = await llm_extractor(model, with_rules=False)([turn])
    assert res.dropped == 0, res.reasons
    keys = [c.attribute for c in res.candidates]
    assert len(keys) == len(set(keys)) == 3
    demo = next(c for c in res.candidates if "demo" in c.content)
    assert (demo.attribute, demo.value) == ("deadline:demo", "2026-11-17")
    prompt = "\n".join(str(m.text) for m in model.seen[0])
    assert "next Tuesday = 2026-11-17" in prompt and "2026-11-12, Thursday" in prompt


async def test_llm_date_not_in_the_note_is_ungrounded() -> None:
    turn = Turn("user", "We promised a demo next Tuesday.", "m1", "2026-11-12T10:00:00+08:00")
    model = scripted(
        _answer(
            [{"content": "Demo on 2026-12-24.", "attribute": "commitment", "value": "2026-12-24"}]
        )
    )
    res = await llm_extractor(model, with_rules=False)([turn])
    assert res.candidates == [] and any("ungrounded" in r for r in res.reasons)


async def test_llm_person_fact_does_not_carry_the_budget() -> None:
    """A later budget cut supersedes the budget record; a person's fact that repeated
    the old figure would keep it alive."""
    turn = Turn("user", "Ops director Priya Raman said budget is roughly 250k.", "m1")
    model = scripted(
        _answer([
            {"content": "Priya Raman, ops director, said the budget is 250k.",
             "attribute": "stakeholder", "confidence": 0.9},
            {"content": "Budget is roughly 250k.", "attribute": "budget", "value": "250000"},
        ])
    )  # fmt: skip
    res = await llm_extractor(model, hybrid=False)([turn])
    assert [c.attribute for c in res.candidates if "250" in c.content] == ["budget"]
    assert any(c.attribute.startswith("stakeholder:priya_raman") for c in res.candidates)


async def test_llm_adds_to_the_rules_and_a_fact_both_read_is_written_once() -> None:
    """A small model often returns one sentence as one item under a wrong category: the
    rules' facts stay, the model's item is not written twice; what only the model found
    is added."""
    text = "赵总说预算提到280万了，但要求必须私有化部署。数据迁移是他们心里最大的一块石头。"
    turn = Turn("user", text, "m1", "2026-11-10T09:30:00+08:00")
    model = scripted(
        _answer([
            {"content": "赵总说预算提到280万了，但要求必须私有化部署。", "attribute": "requirement"},
            {"content": "数据迁移是客户心里最大的一块石头。", "attribute": "pain_point"},
        ])
    )  # fmt: skip
    res = await llm_extractor(model, hybrid=False)([turn])
    # the rules' own facts: the learned fallback reads what no rule read, the model does that here
    rules = (await rules_extractor(learned=None)([turn])).candidates
    keys = [c.attribute for c in res.candidates]
    assert keys[: len(rules)] == [c.attribute for c in rules]
    assert "budget" in keys and len(keys) == len(set(keys))
    assert [c.content for c in res.candidates[len(rules) :]] == [
        "数据迁移是客户心里最大的一块石头。"
    ]


async def test_llm_item_restating_the_whole_note_is_not_a_second_copy() -> None:
    text = "他们现在用的是金蝶的WMS，老系统经常宕机。"
    turn = Turn("user", text, "m1", "2026-11-04T10:20:00+08:00")
    model = scripted(_answer([{"content": text, "attribute": "pain_point"}]))
    res = await llm_extractor(model, hybrid=False)([turn])
    rules = (await rules_extractor()([turn])).candidates
    assert [c.content for c in res.candidates] == [c.content for c in rules]


def test_a_model_only_fact_is_stored_by_the_worker() -> None:
    """End to end through the outbox, the worker and the write path: the model's fact about
    a statement no rule reads is an active memory afterwards."""
    from memagent.evals.eval_dataset import Dialog
    from memagent.evals.eval_replay import Replayer

    text = "Mike from Delta left the company last week; Jo took over his accounts."
    model = scripted(
        _answer([{"content": "Mike from Delta left the company; Jo took over his accounts.",
                  "attribute": "stakeholder", "confidence": 0.9}])
    )  # fmt: skip
    turns = ({"role": "user", "content": text, "at": "2026-11-12T10:00:00+08:00"},)
    with Replayer(llm_extractor(model, hybrid=False)) as replayer:
        out = replayer.replay(Dialog(id="gate", turns=turns, gold=(), customer="delta"))
    assert len(model.seen) == 1 and not out.errors
    assert [m["content"] for m in out.confirmed] == [
        "Mike from Delta left the company; Jo took over his accounts."
    ]
