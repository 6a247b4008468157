"""The hybrid LLM extractor, session 11: a model line keeps the user's words whole when
a date inside it is resolved, an amount in a form the amount parser does not know still
holds a budget, a line the model sorted into a kind the rules did not read is not lost
when its words also show a kind they did read, and a fact restated in other words,
units or scripts is not written twice."""

from __future__ import annotations

from memagent.core.types import Turn
from memagent.memory.extract_rules import extract_rules
from memagent.memory.llm_cover import redundant
from memagent.memory.llm_hybrid import Line, SortedLine, dedupe, to_memory, uncovered_lines
from memagent.memory.llm_twins import restates
from memagent.memory.write_path import Candidate

AT = "2026-11-12T10:00:00+08:00"


def _lines(text: str) -> list[Line]:
    turn = Turn("user", text, "m1", AT)
    return uncovered_lines([turn], extract_rules([turn])[0])


def test_a_resolved_date_does_not_split_the_users_phrase() -> None:
    lines = _lines("老板今天松口了，基本同意签，元旦后第一周签。")
    dated = [line.dated for line in lines if "松口" in line.text]
    assert len(dated) == 1, lines
    assert "今天松口了" in dated[0] and "2026-11-12" in dated[0], dated


def test_a_date_that_ends_its_phrase_is_resolved_in_place() -> None:
    lines = _lines("Their works council sits on Friday to look at it.")
    assert [line.dated for line in lines] == [
        "Their works council sits on Friday (2026-11-13) to look at it"
    ], lines


def test_an_amount_in_lakh_crore_or_grand_holds_a_budget() -> None:
    # The rules read these amounts as well now; a line they leave to the model (here
    # built directly) must still be kept as a budget when the model sorts it so.
    for text in ("approved 45L per year for the rollout",
                 "they can spend roughly 900 grand over two years",
                 "signed off 2.4 cr for phase one"):  # fmt: skip
        memory = to_memory(SortedLine(n=1, c="budget"), [Line(text)])
        assert not isinstance(memory, str), memory
        assert memory.attribute == "budget", (text, memory.attribute)


def test_a_kind_the_rules_did_not_read_survives_a_promise_in_the_same_line() -> None:
    # the rules read the promise (a commitment: a timeline fact); the model sorts the
    # line as a requirement, which the rules did not read
    line = Line(
        "they need the wallboard to show live queue times and I promised to send mockups by Friday",
        taken=frozenset({"timeline"}),
    )
    memory = to_memory(SortedLine(n=1, c="requirement"), [line])
    assert not isinstance(memory, str), memory
    assert memory.attribute == "requirement"
    # a line sorted into the very kind the rules read is still theirs
    assert isinstance(to_memory(SortedLine(n=1, c="commitment"), [line]), str)


def _cand(content: str, attribute: str, value: str | None = None) -> Candidate:
    return Candidate(content=content, attribute=attribute, value=value, message_ids=["m1"])


def test_a_model_fact_restating_a_rule_fact_in_other_words_or_units_is_one_memory() -> None:
    rules = [_cand("Budget: 600万", "budget", "6000000 CNY"), _cand("韩梅: CIO.", "stakeholder")]
    extras = [
        _cand("预算大概6 million", "budget:extra"),  # the same amount, other units
        _cand("CIO是韩梅", "stakeholder:extra"),  # the same words, another order
        _cand("韩梅对SaaS很谨慎", "pain_point:extra2"),  # adds a fact of its own
        _cand("budget 4.5 million for phase 2", "budget:phase2"),  # another amount
    ]
    kept, dropped = dedupe(rules, extras)
    assert [c.content for c in kept] == [
        "Budget: 600万",
        "韩梅: CIO.",
        "韩梅对SaaS很谨慎",
        "budget 4.5 million for phase 2",
    ]
    assert dropped == 2


def test_restates_needs_every_word_figure_and_character() -> None:
    assert restates("Greg Paulsen is the CFO", "Greg Paulsen: CFO.")
    assert not restates("Greg Paulsen: he's skeptical", "Greg Paulsen: CFO.")
    assert not restates("PMS系统太慢", "PMS: 石基.")
    assert not restates("seats: 250", "seats: 200")
    assert restates("预算三百五十万", "Budget: 3.5M")


def test_a_model_fact_naming_another_person_is_not_a_twin_of_a_rule_fact() -> None:
    rules = [_cand("Customer Success: Director.", "stakeholder:customer_success:role")]
    extras = [_cand("Met Hana Ito (Director, Customer Success) and her deputy", "stakeholder:x")]
    kept, _ = dedupe(rules, extras)
    assert any("Hana Ito" in c.content for c in kept), kept
    # the same words without a name of their own are still one fact
    again = [_cand("Director of Customer Success", "stakeholder:y")]
    assert dedupe(rules, again)[1] == 1


def test_where_the_customer_is_holds_a_fact_beside_a_count_the_rules_read() -> None:
    for text in ("杭州有个分公司", "主要在宁波和温州", "head office is in Bristol"):
        line = Line(text, taken=frozenset({"other"}))  # the rules read a count there
        memory = to_memory(SortedLine(n=1, c="other"), [line])
        assert not isinstance(memory, str), (text, memory)
    # a visit line names no site
    assert isinstance(to_memory(SortedLine(n=1, c="other"), [Line("今天去了客户那边")]), str)


def test_a_chat_exports_message_header_is_no_fact() -> None:
    header = Line("远航物流 李娜 14:05")
    assert isinstance(to_memory(SortedLine(n=1, c="other"), [header]), str)
    # a time word makes it a fact: a meeting on Friday at 10:30
    dated = Line("客户 周五 10:30", dated="客户 周五 (2026-11-13) 10:30")
    assert not isinstance(to_memory(SortedLine(n=1, c="timeline"), [dated]), str)


def test_a_fact_naming_two_people_the_rules_name_between_them_is_held_by_them() -> None:
    rules = [
        _cand("Nadia Kerr: Director of Clinical IT.", "stakeholder:nadia_kerr:role"),
        _cand("Tom Haas joined in August", "stakeholder:tom_haas:1"),
    ]
    both = _cand("Nadia Kerr (Director of Clinical IT): Tom Haas joined in August", "stakeholder:z")
    assert redundant(both, rules)
    # one the rules do not name is not held by them
    assert not redundant(
        _cand("Nadia Kerr: her deputy Lena Roth joined in August", "stakeholder:z"), rules
    )
