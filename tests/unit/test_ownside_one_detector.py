"""One detector of the salesperson's own affairs (``extract_ownside.own_affair``) for
the rules and the hybrid extractor: what only the hybrid's old list knew (their quota
progress, our discount rule written in Traditional characters) is the rules' too, and a
target the note sets for the customer's meeting stays a fact."""

from __future__ import annotations

import pytest

from memagent.core.types import Turn
from memagent.memory.extract_ownside import own_affair
from memagent.memory.extract_rules import extract_rules

AT = "2026-11-12T10:00:00+08:00"


@pytest.mark.parametrize(
    "text",
    [
        "I'm at 62% of my Q4 target, two deals left.",
        "公司規定是九折以內業務可以自己決定，超過要經理批。",
        "我們公司的政策是八五折以下要總監簽。",
        "Our Q4 quota is 1.4M and I'm at 62%, send help.",
        "跟你说下我们公司的新政策：年底前签约的客户可以打八五折。",
    ],
)
def test_our_own_quota_and_discount_rule_are_our_affairs(text: str) -> None:
    assert own_affair(text)
    assert extract_rules([Turn("user", text, "m1", AT)])[0] == []


@pytest.mark.parametrize(
    "text",
    [
        "Our target: proposal presentation on March 3.",
        "Their target is 95% on-time delivery by Q3.",
        "他们的政策是供应商报价必须含税。",
    ],
)
def test_a_target_or_policy_of_the_customer_is_no_affair_of_ours(text: str) -> None:
    assert not own_affair(text)
