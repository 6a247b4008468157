"""A Cantonese correction ("預算唔係三百萬，係港幣二百五十萬") supersedes like a Mandarin one."""

from __future__ import annotations

from memagent.core.types import Turn
from memagent.memory.extract_corrections import drop_old_values, replaced_by_new
from memagent.memory.extract_rules import extract_rules


def test_cantonese_is_not_replaces_the_old_value() -> None:
    assert replaced_by_new("更正：預算唔係三百萬，係港幣二百五十萬") == "更正：預算是港幣二百五十萬"
    assert replaced_by_new("預算唔系300万，系250万") == "預算是250万"
    assert drop_old_values("预算唔系300万，系250万") == "预算系250万"  # read folded
    # "系统" is not the copula
    assert replaced_by_new("不是SAP，系统是Oracle") == "不是SAP，系统是Oracle"


def test_the_corrected_budget_is_the_only_budget() -> None:
    turns = [
        Turn(role="user", content="預算大約港幣三百萬。", id="m1"),
        Turn(role="user", content="更正：預算唔係三百萬，係港幣二百五十萬。", id="m2"),
    ]
    cands, _ = extract_rules(turns)
    budgets = [c for c in cands if c.attribute == "budget"]
    assert budgets[-1].value == "2500000" and len(budgets) == 2
    assert "三百萬" not in budgets[-1].content
