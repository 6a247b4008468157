"""The LLM extractor never sends the model what the user says is not for memory
("just small talk", "purely hypothetical", "纯属闲聊"): the rules skip such a message,
and a small model would otherwise file a holiday story as customer facts."""

from __future__ import annotations

import json

import pytest
from graph_fakes import scripted

from memagent.core.types import Turn
from memagent.memory.extractors import llm_extractor, rules_extractor

STORY = {"memories": [{"content": "Sam from Acme went sailing in Greece.", "attribute": "other",
                       "type": "fact", "confidence": 0.9}]}  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Ran into Sam from Acme at the gym - he went sailing in Greece. Just small talk.",
        "If Acme tripled their fleet, would $5M be fair? Purely hypothetical.",
        "在机场碰到Acme的小王，他刚去三亚度假回来，纯属闲聊。",
    ],
)
async def test_a_message_not_for_memory_never_reaches_the_model(text: str) -> None:
    model = scripted(json.dumps(STORY))
    res = await llm_extractor(model, hybrid=False)([Turn("user", text, "m1")])
    assert res.candidates == [] and model.seen == [], res
    assert (await rules_extractor()([Turn("user", text, "m1")])).candidates == []


async def test_the_other_messages_of_the_job_still_reach_the_model() -> None:
    model = scripted(json.dumps({"memories": []}))
    turns = [Turn("user", "Sam went sailing. Just small talk.", "m1"),
             Turn("user", "Acme needs SSO with Okta.", "m2")]  # fmt: skip
    await llm_extractor(model, hybrid=False)(turns)
    assert model.seen and "Okta" in str(model.seen[0]) and "sailing" not in str(model.seen[0])


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Acme wants SSO. Reminder to self: my Q1 quota is 1.8M and I'm at 40%.",
         "My Q1 quota is 1.8M and I'm at 40%."),
        ("Acme wants net 60. We normally do net 30, finance will object.",
         "We normally do net 30 payment terms."),
    ],
)  # fmt: skip
async def test_a_model_item_about_our_own_side_is_dropped(text: str, item: str) -> None:
    answer = {"memories": [{"content": item, "attribute": "other", "type": "fact",
                            "confidence": 0.9}]}  # fmt: skip
    res = await llm_extractor(scripted(json.dumps(answer)), hybrid=False)(
        [Turn("user", text, "m1")]
    )
    assert not any(item[:20].lower() in c.content.lower() for c in res.candidates), res
    assert any("own side" in r for r in res.reasons), res.reasons
