"""Causes of the rules' misses found on holdouts 12 and 13 (sessions 16 and 17's blind sets),
each checked on fresh wording, none a sentence of a labelled set:

- an executive title typed in lower case before the name ("产品vp陈思远", "对方cto 方志刚"):
  mainland notes type VP, CTO and CFO in lower case; "对方" (the other side) is no part of
  the role;
- surnames outside the list (柏, 冉, 靳, 易, …) hid their holders ("理赔部总经理柏涛");
- stances in words of their own: "对讯飞印象不错", "对我们有意见", "有点失望", "更关心…",
  and "is very positive".
"""

from __future__ import annotations

from rules_run import candidate_text as _text
from rules_run import run_rules as _run

from memagent.memory.extract_entities import find_people
from memagent.memory.write_path import Candidate


def _with(cands: list[Candidate], *words: str) -> list[Candidate]:
    return [c for c in cands if all(w.lower() in _text(c) for w in words)]


def test_a_lower_case_executive_title_before_the_name() -> None:
    people = {
        p.name: p.role for p in find_people("市场vp林嘉怡很支持，技术那边对方cto 郭振宇 还在观望")
    }
    assert people.get("林嘉怡") == "市场vp", people
    assert people.get("郭振宇") == "cto", people


def test_a_lower_case_word_is_no_title() -> None:
    # "vpn", "ctos" are no titles: nobody is named after them
    assert not find_people("他们要vpn李明那边还没配好")


def test_surnames_outside_the_old_list() -> None:
    for note, name in (
        ("质量部总监靳伟说下周给答复", "靳伟"),
        ("采购经理冉静很关心交付周期", "冉静"),
        ("行政部主任柏林峰负责合同", "柏林峰"),
    ):
        assert name in {p.name for p in find_people(note)}, note


def test_an_ordinary_word_is_still_no_surname() -> None:
    # 申请, 季度 and 纪要 start with characters that are surnames elsewhere: not here
    assert not find_people("申请经理审批后再发")
    assert not find_people("季度经理会议改到周五")


def test_stances_in_words_of_their_own() -> None:
    for note, who in (
        ("周总对金蝶印象不错，觉得实施团队靠谱。", "周总"),
        ("何厂长对我们有意见，嫌上次响应慢。", "何厂长"),
        ("钱总对现在的供应商有点失望。", "钱总"),
        ("Nadia Brooks is very positive after the workshop.", "Nadia Brooks"),
    ):
        assert _with(_run(note), who), note
