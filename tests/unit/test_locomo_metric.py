"""LoCoMo loader, turn-level evidence recall and the harness, on a tiny synthetic conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memagent.evals.evaluation import (
    LocomoFormatError,
    context_text,
    evaluated,
    evidence_recall,
    load_locomo,
    reference_tokenize,
    run_locomo,
    split_evidence,
    summarise,
    turn_values,
)
from memagent.stores.embeddings import hash_embeddings


def _entry() -> dict:
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_10_date_time": "9:00 am on 3 June, 2023",
            "session_10": [
                {"speaker": "Ann", "dia_id": "D10:1", "text": "The kayak trip was great."},
            ],
            "session_2_date_time": "1:56 pm on 8 May, 2023",
            "session_2": [
                {"speaker": "Bob", "dia_id": "D2:1", "text": "Did you adopt the puppy?"},
                {
                    "speaker": "Ann",
                    "dia_id": "D2:2",
                    "text": "Yes, twice!",
                    "img_url": ["x"],
                    "blip_caption": "a photo of a dog",
                },
            ],
        },
        "qa": [
            {
                "question": "Did Ann adopt a puppy?",
                "answer": "yes",
                "evidence": ["D2:2"],
                "category": 4,
            },
            {
                "question": "Where did Ann go?",
                "answer": "kayak",
                "evidence": ["D10:1; D2:1"],
                "category": 1,
            },
            {"question": "Who is Bob?", "answer": "-", "evidence": [], "category": 2},
            {
                "question": "Is Bob a cat?",
                "adversarial_answer": "no",
                "evidence": ["D2:1"],
                "category": 5,
            },
        ],
        "event_summary": {},
    }


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([_entry()]))
    return path


def test_loader_orders_sessions_numerically_and_builds_reference_documents(data_file: Path):
    [conv] = load_locomo(data_file)
    assert [t.dia_id for t in conv.turns] == ["D2:1", "D2:2", "D10:1"]
    assert conv.turns[1].document == "Ann: Yes, twice! [image: a photo of a dog]"
    assert conv.turns[0].document == "Bob: Did you adopt the puppy?"
    assert conv.turns[2].session == 10 and conv.turns[2].date == "9:00 am on 3 June, 2023"
    assert conv.speakers == ("Ann", "Bob")


def test_malformed_evidence_is_split_and_stripped(data_file: Path):
    [conv] = load_locomo(data_file)
    assert conv.questions[1].evidence == ("D10:1", "D2:1")
    assert split_evidence(["D8:6; D9:17", " D1:2 ", ";"]) == ("D8:6", "D9:17", "D1:2")


def test_only_categories_1_to_4_with_evidence_are_evaluated(data_file: Path):
    [conv] = load_locomo(data_file)
    assert [q.question for q in evaluated(conv.questions)] == [
        "Did Ann adopt a puppy?",
        "Where did Ann go?",
    ]


def test_bad_files_raise_a_clear_error(tmp_path: Path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"not": "a list"}))
    with pytest.raises(LocomoFormatError, match="list"):
        load_locomo(path)
    path.write_text(json.dumps([{"sample_id": "x"}]))
    with pytest.raises(LocomoFormatError, match="conversation"):
        load_locomo(path)


def test_evidence_recall_is_the_found_fraction_within_k():
    retrieved = ["a", "b", "c", "d"]
    assert evidence_recall(retrieved, ["b", "d"], 2) == 0.5
    assert evidence_recall(retrieved, ["b", "d"], 4) == 1.0
    assert evidence_recall(retrieved, ["z"], 4) == 0.0
    with pytest.raises(ValueError, match="evidence"):
        evidence_recall(retrieved, [], 4)


def test_summarise_averages_over_questions_overall_and_per_category():
    rows = [
        (1, ["a", "b"], ["a", "x"]),  # 0.5 at k=2, 0.5 at k=1
        (4, ["b", "a"], ["a"]),  # 1.0 at k=2, 0.0 at k=1
        (4, ["c"], ["a"]),  # 0.0
    ]
    out = summarise(rows, (1, 2))
    assert out["all"]["n"] == 3
    assert out["all"]["R@2"] == pytest.approx(0.5)
    assert out["all"]["R@1"] == pytest.approx(0.5 / 3)
    assert out["4"]["R@2"] == pytest.approx(0.5)
    assert out["1"]["R@1"] == pytest.approx(0.5)
    assert list(out) == ["all", "1", "4"]


def test_reference_tokenizer_drops_the_readme_stop_words():
    assert reference_tokenize("What did Caroline's dog do, at the park?") == [
        "caroline",
        "s",
        "dog",
        "park",
    ]


def test_context_window_takes_date_and_previous_turn_of_the_same_session_only(data_file: Path):
    [conv] = load_locomo(data_file)
    assert context_text(conv.turns, 1) == (
        "[8 May, 2023]\nBob: Did you adopt the puppy?\nAnn: Yes, twice! [image: a photo of a dog]"
    )
    assert context_text(conv.turns, 2) == "[3 June, 2023]\nAnn: The kayak trip was great."
    keys = [key for key, _, _ in turn_values(conv, "field")]
    assert keys == ["D2:1", "D2:2", "D10:1"]
    _, value, fields = turn_values(conv, "field")[1]
    assert fields == ["content", "context"] and value["content"] == conv.turns[1].document
    _, value, fields = turn_values(conv, "window")[1]
    assert fields == ["content"] and "puppy" in value["content"]
    with pytest.raises(ValueError, match="context"):
        turn_values(conv, "neighbours")  # type: ignore[arg-type]


@pytest.mark.parametrize("context", ["none", "window"])
def test_harness_ingests_into_the_store_and_finds_the_evidence(data_file: Path, context: str):
    report = run_locomo(
        data_file,
        k=(1, 3),
        recall="keyword",
        context=context,  # type: ignore[arg-type]
        embeddings=hash_embeddings(32),
        progress=False,
    )
    assert report["results"]["all"]["n"] == 2
    assert report["results"]["4"]["R@3"] == 1.0  # "adopt"/"puppy" only occur around D2:2
    assert report["latency_ms"]["n"] == 2
    assert report["conversations"] == ["conv-x"]


def test_cli_prints_one_json_object(data_file: Path, monkeypatch: pytest.MonkeyPatch):
    from typer.testing import CliRunner

    from memagent.evals.evaluation import app

    monkeypatch.setenv("MEMAGENT_EMBEDDER", "hash")
    args = ["locomo", "--data", str(data_file), "--recall", "keyword", "--k", "1,3"]
    result = CliRunner().invoke(app, [*args, "--json", "--dense-floor", "0.5"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["k"] == [1, 3] and report["recall"] == "keyword"
    assert report["hybrid"]["fusion"]["dense_floor"] == 0.5
    assert set(report["results"]) == {"all", "1", "4"}


def test_cli_rejects_bad_options(data_file: Path):
    from typer.testing import CliRunner

    from memagent.evals.evaluation import app

    result = CliRunner().invoke(app, ["locomo", "--data", str(data_file), "--k", "0"])
    assert result.exit_code != 0
    result = CliRunner().invoke(app, ["locomo", "--data", str(data_file), "--recall", "x"])
    assert result.exit_code != 0
    result = CliRunner().invoke(app, ["locomo", "--data", str(data_file), "--fusion", "max"])
    assert result.exit_code != 0 and "fusion" in result.output
