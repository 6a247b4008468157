"""``memagent eval extraction --answers/--ids/--limit``: the model's answers recorded by
prompt and replayed only for the same prompt, and a subset of the dialogs scored."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from graph_fakes import scripted
from langchain_core.messages import HumanMessage, SystemMessage

from memagent.evals.answer_cache import RecordedAnswers
from memagent.evals.eval_dataset import load_dataset
from memagent.evals.eval_extraction import _subset

DATA = Path(__file__).resolve().parents[2] / "evals" / "data" / "sales_extraction_holdout5.json"


async def test_a_recorded_answer_is_replayed_only_for_the_same_prompt(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    first = RecordedAnswers(scripted("one", "two"), path)
    ask = [SystemMessage("sort"), HumanMessage("1. Budget 2M")]
    assert (await first.ainvoke(ask, response_format={"x": 1})).text == "one"
    first.save()
    again = RecordedAnswers(scripted("three"), path)
    assert (await again.ainvoke(ask, response_format={"x": 1})).text == "one"
    # another line list, or other call options, is a new question for the model
    assert (await again.ainvoke([SystemMessage("sort"), HumanMessage("1. Budget 3M")])).text == (
        "three"
    )
    assert (again.recorded, again.fresh) == (1, 1)


async def test_each_fresh_answer_is_on_disk_before_the_run_ends(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    run = RecordedAnswers(scripted("one"), path)
    ask = [SystemMessage("sort"), HumanMessage("1. Budget 2M")]
    await run.ainvoke(ask)  # no save(): the run is stopped here
    assert (await RecordedAnswers(scripted("other"), path).ainvoke(ask)).text == "one"


def test_a_broken_answers_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text("not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not a recorded-answers file"):
        RecordedAnswers(None, path)


def test_ids_and_limit_pick_dialogs_in_file_order() -> None:
    dialogs = list(load_dataset(DATA).dialogs)
    a, b, c = dialogs[0].id, dialogs[1].id, dialogs[2].id
    assert [d.id for d in _subset(dialogs, f"{c}, {a}", None)] == [a, c]
    assert [d.id for d in _subset(dialogs, None, 2)] == [a, b]
    with pytest.raises(typer.Exit):
        _subset(dialogs, "no-such-dialog", None)
