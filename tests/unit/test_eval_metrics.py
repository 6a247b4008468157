"""Scoring of the extraction evaluation on hand-made cases with known answers."""

from __future__ import annotations

from memagent.evals.eval_dataset import Dialog, GoldItem
from memagent.evals.eval_metrics import (
    aggregate,
    matches,
    max_assignment,
    norm,
    record_text,
    score_dialog,
)

BUDGET = GoldItem((("1.2 million", "1200000", "120万"), ("cny", "人民币")), "budget")


def dialog(**kw: object) -> Dialog:
    base: dict[str, object] = {"id": "d", "turns": (), "gold": (), "lang": "en", "split": "dev"}
    return Dialog(**{**base, **kw})  # type: ignore[arg-type]


def mem(content: str, value: str | None = None, attribute: str = "note") -> dict[str, object]:
    return {"content": content, "value": value, "attribute": attribute}


def test_norm_folds_width_case_spaces_and_commas() -> None:
    assert norm("Budget ¥3,000,000 ＣＮＹ") == "budget¥3000000cny"
    assert norm("预算 １２０ 万\u3000人民币") == "预算120万人民币"


def test_a_gold_item_needs_one_string_of_every_group() -> None:
    assert matches(BUDGET, norm("Budget is 1.2 Million CNY"))
    assert matches(BUDGET, norm("预算１２０万人民币"))
    assert matches(BUDGET, norm("budget 1,200,000 cny"))
    assert not matches(BUDGET, norm("Budget is 1.2 million"))  # the currency group is missing
    assert not matches(BUDGET, norm("Budget is 2 million CNY"))


def test_the_record_value_counts_as_text() -> None:
    assert matches(BUDGET, record_text(mem("Budget noted", value="1200000 CNY")))
    assert not matches(BUDGET, record_text(mem("Budget noted")))


def test_assignment_is_maximal_whatever_the_order() -> None:
    # memory 0 covers gold 0 only, memory 1 covers gold 0 and 1: both are needed.
    assert len(max_assignment([[0], [0, 1]])) == 2
    assert len(max_assignment([[0, 1], [0]])) == 2
    # three memories over two gold items: one is left over.
    assert len(max_assignment([[0, 1], [0], [1]])) == 2


def test_precision_recall_duplicates_on_a_known_case() -> None:
    d = dialog(
        gold=(BUDGET, GoldItem((("li wei",), ("cto",)), "stakeholder"), GoldItem((("okta",),))),
    )
    confirmed = [
        mem("Budget is 1.2 million CNY"),
        mem("The budget: 120万 人民币"),  # same fact again: a duplicate
        mem("Li Wei is the CTO"),
        mem("They like golf", attribute="note_x"),  # matches nothing
    ]
    s = score_dialog(d, confirmed)
    assert (s.total.memories, s.total.true_memories) == (4, 3)
    assert (s.total.gold, s.total.gold_found, s.total.duplicates) == (3, 2, 1)
    assert s.duplicates == ["The budget: 120万 人民币"]
    assert s.extra == ["They like golf"]
    assert [g.category for g in s.missed] == ["other"]
    f = s.total.figures()
    assert (f["precision"], f["recall"], f["duplicate_rate"]) == (0.75, 0.667, 0.25)


def test_pending_items_kept_confirmed_or_lost() -> None:
    kept = GoldItem((("april",),), "timeline")
    confirmed_wrongly = GoldItem((("demo",),), "commitment")
    lost = GoldItem((("on-prem",),), "requirement")
    d = dialog(pending=(kept, confirmed_wrongly, lost))
    s = score_dialog(
        d,
        confirmed=[mem("Demo next Tuesday")],
        unconfirmed=[mem("Maybe go-live in April"), mem("Maybe a demo")],
    )
    assert (s.total.pending, s.total.pending_kept) == (3, 1)
    assert (s.total.pending_confirmed, s.total.pending_lost) == (1, 1)
    assert s.pending_confirmed == [confirmed_wrongly] and s.pending_lost == [lost]
    # a confirmed memory of a pending fact is a false positive, counted in its category
    assert s.total.true_memories == 0 and s.by_category["commitment"].memories == 1


def test_stale_strings_leak_only_from_confirmed_memories() -> None:
    d = dialog(stale=("900k", "2 million"))
    s = score_dialog(d, [mem("Competitor quoted 900K")], [mem("maybe 2 million")])
    assert s.leaks == ["900k"] and (s.total.stale, s.total.stale_leaks) == (2, 1)


def test_breakdown_by_category_language_and_split() -> None:
    en = dialog(id="a", gold=(BUDGET,), lang="en", split="dev")
    zh = dialog(id="b", gold=(GoldItem((("王芳",),), "stakeholder"),), lang="zh", split="holdout")
    scores = [
        score_dialog(en, [mem("Budget 1.2 million CNY"), mem("x", attribute="deadline")]),
        score_dialog(zh, [mem("王芳负责采购")]),
    ]
    out = aggregate(scores)
    assert out["overall"]["precision"] == 0.667 and out["overall"]["recall"] == 1.0
    assert out["by_lang"]["en"]["precision"] == 0.5 and out["by_lang"]["zh"]["precision"] == 1.0
    assert out["by_split"]["holdout"]["gold"] == 1 and out["by_split"]["dev"]["memories"] == 2
    # the unmatched memory counts in its attribute's category
    assert out["by_category"]["timeline"]["precision"] == 0.0
    assert out["by_category"]["budget"]["recall"] == 1.0
    assert list(out["by_category"]) == ["stakeholder", "budget", "timeline"]
