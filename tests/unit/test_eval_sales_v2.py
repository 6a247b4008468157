"""``memagent eval extraction`` on version 2 (sales) files: loading, replay, figures, CLI.

The figures are checked on a tiny hand-made file (tests/data/sales_extraction_v2_sample.json)
with a scripted extractor (one candidate per sentence, hedged ones with low confidence),
so every count is known; the real write path decides what is merged, held or kept.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memagent.evals import eval_extraction
from memagent.evals.eval_dataset import DatasetError, load_dataset
from memagent.evals.eval_extraction import run_extraction_eval
from memagent.evals.eval_replay import replay
from memagent.graph.cli import app
from memagent.graph.jobs import Turn
from memagent.memory.extractors import ExtractionResult
from memagent.memory.write_path import Candidate

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sales_extraction_v2_sample.json"
HEDGES = ("maybe", "可能")


class SentenceExtractor:
    """One candidate per user sentence; a hedged sentence gets low confidence."""

    name = "sentences"

    def __init__(self) -> None:
        self.seen: list[Turn] = []

    async def __call__(self, turns: Sequence[Turn]) -> ExtractionResult:
        self.seen += turns
        out = []
        for t in turns:
            if t.role != "user":
                continue
            for s in re.split(r"(?<=\.)\s+|(?<=。)", t.content):
                if s.strip():
                    low = any(h in s.lower() for h in HEDGES)
                    cand = Candidate(content=s, confidence=0.4 if low else 0.9, message_ids=[t.id])
                    out.append(cand)
        return ExtractionResult(out)


def sample() -> Any:
    return load_dataset(SAMPLE)


def test_v2_file_loads_with_splits_customers_and_times() -> None:
    data = sample()
    assert data.version == 2 and [d.split for d in data.dialogs].count("holdout") == 2
    d = data.dialogs[0]
    assert d.customer == "acme-logistics" and d.now == "2026-11-03T09:30:00+08:00"
    assert d.gold[1].groups[1] == ("cny", "人民币") and d.pending[0].category == "timeline"


def test_the_message_time_reaches_the_extractor_and_the_episode() -> None:
    ex = SentenceExtractor()
    dialog = sample().dialogs[0]
    replay(ex, dialog)
    user_at = [t.at for t in ex.seen if t.role == "user"]
    assert user_at == ["2026-11-03T09:30:00+08:00", "2026-11-04T10:00:00+08:00"]


def test_replay_goes_through_the_worker_and_keeps_pending_apart() -> None:
    out = replay(SentenceExtractor(), sample().dialogs[0])
    assert [v["content"] for v in out.pending] == ["Maybe they go live in April."]
    assert all(v["source"]["thread_id"] == "dev-en-001" for v in out.confirmed)
    assert len(out.confirmed) == 3 and not out.errors


def test_an_extractor_error_is_reported_not_replaced_by_the_rules() -> None:
    async def broken(turns: Sequence[Turn]) -> ExtractionResult:
        raise TimeoutError("model timed out")

    out = replay(broken, sample().dialogs[0])
    assert out.confirmed == [] and out.errors == ["TimeoutError: model timed out"] * 2


def test_figures_on_the_sample_are_the_hand_counted_ones() -> None:
    res = run_extraction_eval(SentenceExtractor(), sample().dialogs, version=2)
    assert (res["active_memories"], res["overall"]["true_memories"]) == (10, 8)
    assert (res["gold_memories"], res["overall"]["gold_found"]) == (9, 7)
    assert (res["precision"], res["recall"], res["duplicates"]) == (0.8, 0.778, 1)
    assert res["pending"] == {"total": 3, "kept": 1, "confirmed": 1, "lost": 1}
    assert res["stale_leaks"] == 1
    cat = res["by_category"]
    assert (cat["budget"]["memories"], cat["budget"]["duplicates"]) == (3, 1)
    assert (cat["commitment"]["precision"], cat["commitment"]["pending_confirmed"]) == (0.5, 1)
    assert cat["pain_point"]["recall"] == 0.0 and cat["other"]["true_memories"] == 0
    assert res["by_lang"]["zh"]["precision"] == 0.6 and res["by_lang"]["en"]["recall"] == 0.667
    assert res["by_split"]["dev"]["precision"] == 0.714
    assert res["withheld_holdout"] == 2 and {m["id"] for m in res["misses"]} == {
        "dev-en-001",
        "dev-zh-001",
    }


# -- bad files -----------------------------------------------------------------------


def write(tmp_path: Path, data: Any) -> Path:
    p = tmp_path / "set.json"
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def v2_with(**changes: Any) -> dict[str, Any]:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["dialogs"][0].update(changes)
    for k, v in changes.items():
        if v is None:
            del data["dialogs"][0][k]
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not JSON"),
        ({"version": 3, "dialogs": []}, "unsupported version 3"),
        ({"version": 2, "dialogs": []}, "'dialogs' must be a non-empty list"),
        (v2_with(customer=None), "dialog 'dev-en-001': 'customer' must be a non-empty string"),
        (v2_with(now="2026-11-03 09:30"), "'now' needs a UTC offset"),
        (v2_with(now=None), "'now' is missing"),
        (v2_with(split="test"), "'split' must be one of dev, holdout"),
        (v2_with(gold=[{"category": "price", "all": [["x"]]}]), "gold[0]: 'category'"),
        (v2_with(gold=[{"category": "budget", "all": [[]]}]), "gold[0]: 'all' group 0"),
        (v2_with(pending=[{"category": "budget"}]), "pending[0]: 'all' must be"),
        (v2_with(turns=[{"role": "bot", "content": "x"}]), "turn 0: 'role'"),
        (v2_with(customer="*"), "not a usable customer id"),
    ],
)
def test_a_bad_file_gets_one_clear_line(tmp_path: Path, data: Any, message: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(DatasetError) as err:
        load_dataset(path)
    assert message in str(err.value) and "\n" not in str(err.value)
    result = CliRunner().invoke(app, ["eval", "extraction", "--data", str(path)])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert result.stderr.count("\n") == 1


# -- the command -----------------------------------------------------------------------


@pytest.fixture
def sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_extraction, "rules_extractor", SentenceExtractor)


def cli(*args: str) -> Any:
    result = CliRunner().invoke(app, ["eval", "extraction", "--data", str(SAMPLE), *args])
    assert result.exit_code == 0, result.output + result.stderr
    return result


def test_cli_defaults_to_the_dev_split_and_prints_the_breakdowns(sentences: None) -> None:
    out = cli().stdout
    assert "split dev, 2 dialogs" in out
    assert "overall   precision 0.714 (5/7)  recall 0.800 (4/5)  duplicates 1 (0.143)" in out
    assert "pending 3: kept 1, confirmed 1, lost 1" in out and "stale leaks 1/2" in out
    assert "by language" in out and re.search(r"zh +precision 0.500 \(2/4\)", out)
    assert re.search(r"budget +precision 1.000 \(3/3\)  recall 1.000 \(2/2\)  duplicates 1", out)
    assert "misses" not in out


def test_cli_misses_show_dev_dialogs_and_withhold_holdout(sentences: None) -> None:
    out = cli("--split", "all", "--misses").stdout
    assert "by split" in out and "dev-zh-001 (zh, dev)" in out
    assert "missed: [requirement] needs SSO with Okta" in out
    assert "duplicate: Budget is 1.2 million CNY for the fleet rollout." in out
    assert "pending but confirmed: [commitment] 演示时间未定" in out
    assert "stale value kept: 900k" in out
    assert "HOLDOUT-SECRET" not in out and "holdout-en-001" not in out
    assert "holdout misses withheld (2 dialogs)" in out
    shown = cli("--split", "holdout", "--misses", "--show-holdout").stdout
    assert "missed: [pain_point] HOLDOUT-SECRET latency complaint" in shown


def test_cli_json_keeps_holdout_rows_out_unless_asked(sentences: None) -> None:
    res = json.loads(cli("--split", "holdout", "--json", "--misses", "--details").stdout)
    assert res["split"] == "holdout" and res["dialogs"] == 2 and res["recall"] == 0.75
    assert res["misses"] == [] and res["per_dialog"] == [] and res["withheld_holdout"] == 2
    assert "HOLDOUT-SECRET" not in json.dumps(res)
    assert set(res["by_lang"]) == {"en", "zh"} and "pain_point" in res["by_category"]


def test_show_holdout_help_says_why() -> None:
    result = CliRunner().invoke(app, ["eval", "extraction", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.stdout.split())
    assert "--show-holdout" in text and "unseen by whoever builds or tunes" in text


def test_a_v1_file_has_no_splits() -> None:
    result = CliRunner().invoke(app, ["eval", "extraction", "--split", "dev"])
    assert result.exit_code == 2 and "a version 1 file has no splits" in result.stderr


def test_a_run_keeps_one_event_loop_inside_a_notebook_too() -> None:
    loops: set[int] = set()

    class LoopSpy(SentenceExtractor):
        async def __call__(self, turns: Sequence[Turn]) -> ExtractionResult:
            loops.add(id(asyncio.get_running_loop()))
            return await super().__call__(turns)

    dialogs = sample().dialogs
    assert run_extraction_eval(LoopSpy(), dialogs)["active_memories"] == 10
    assert len(loops) == 1

    async def in_a_notebook() -> dict[str, Any]:
        return run_extraction_eval(LoopSpy(), dialogs)

    loops.clear()
    assert asyncio.run(in_a_notebook())["active_memories"] == 10
    assert len(loops) == 1


def test_holdout_errors_are_counted_but_not_quoted() -> None:
    async def broken(turns: Sequence[Turn]) -> ExtractionResult:
        raise ValueError(f"cannot read {turns[-1].content}")

    res = run_extraction_eval(broken, sample().dialogs, version=2)
    assert res["extractor_errors"] == 5 and len(res["error_samples"]) == 3
    assert not any("Wang Lei" in e or "Salesforce" in e for e in res["error_samples"])
