"""``eval extraction`` with the real local LLM extractor through the outbox and the worker.

The whole run shares one event loop, so the model's async client must serve every job
of every dialog: a failed job may only be the model's own malformed answer (reported,
as the 1.5B model sometimes gives one), never a transport or event-loop error; what
the model extracts is only required to be something confirmed, not a given figure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memagent.core.settings import Settings
from memagent.evals.eval_dataset import load_dataset
from memagent.evals.eval_extraction import _llm, run_extraction_eval

pytestmark = [pytest.mark.llm, pytest.mark.slow]

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sales_extraction_v2_sample.json"


def test_llm_extractor_reaches_the_model_for_every_job(llm_settings: Settings) -> None:
    dialogs = [d for d in load_dataset(SAMPLE).dialogs if d.split == "dev"]
    res = run_extraction_eval(_llm(llm_settings), dialogs, version=2)
    assert res["extractor"] == "llm" and res["dialogs"] == 2
    errors = res["error_samples"]
    assert all(e.startswith("MalformedExtractionError") for e in errors), errors
    assert res["extractor_errors"] < 3  # the sample's dev dialogs are three jobs
    assert res["active_memories"] >= 1 and res["gold_memories"] == 5
    assert set(res["by_lang"]) == {"en", "zh"}
