"""The extraction evaluation: labelled set shape and the scoring rules (no target asserted)."""

from __future__ import annotations

from typing import Any

from memagent.evals.eval_extraction import jobs_of, load_dialogs, run_extraction_eval, score_dialog
from memagent.memory.extractors import ExtractionResult


def test_labelled_set_shape() -> None:
    dialogs = load_dialogs()
    assert len(dialogs) >= 40
    zh = sum(1 for d in dialogs if d["lang"] == "zh")
    assert abs(zh - (len(dialogs) - zh)) <= 2
    tags = {t for d in dialogs for t in d["tags"]}
    assert {"joke", "hypothetical", "correction", "repeat", "contradiction"} <= tags


def test_jobs_carry_neighbouring_assistant_turns() -> None:
    d = {"id": "x", "turns": [{"role": "assistant", "content": "budget?"},
                              {"role": "user", "content": "3m"},
                              {"role": "assistant", "content": "ok"}]}  # fmt: skip
    (job,) = jobs_of(d)
    assert [t.role for t in job] == ["assistant", "user", "assistant"]


def test_scoring_counts_duplicates_and_stale_values() -> None:
    dialog = {"id": "x", "gold": [{"match": ["3 million"]}], "stale": ["2 million"],
              "contradiction": True}  # fmt: skip
    active = [{"content": "Budget is 3 million."}, {"content": "Budget 3 million"},
              {"content": "Budget is 2 million."}]  # fmt: skip
    row = score_dialog(dialog, active)
    assert row["duplicates"] == 1 and row["leaks"] == ["2million"]
    assert row["true_positive"] == 2 and not row["contradiction_ok"]


def test_eval_runs_and_reports_every_figure() -> None:
    res = run_extraction_eval()
    for key in ("precision", "recall", "duplicate_rate", "contradiction_accuracy"):
        assert res[key] is None or 0.0 <= res[key] <= 1.0
    assert res["dialogs"] == len(res["per_dialog"])


def test_an_extractor_that_keeps_nothing_scores_zero_recall() -> None:
    async def nothing(turns: Any) -> ExtractionResult:
        return ExtractionResult()

    res = run_extraction_eval(nothing)
    assert res["recall"] == 0.0 and res["active_memories"] == 0 and res["precision"] is None
