"""``eval locomo --path pipeline`` on the real LoCoMo dev split (data the repository does not
ship: ``MEMAGENT_LOCOMO``, else ``../shared/data/locomo/locomo_dev.json`` beside the
checkout). Without the data the case is skipped with the reason, and fails under
``CI=true``: CI must never silently lose a case.

One conversation with hash embeddings, so keyword search carries the ranking: the
pipeline (episodes and rules-extracted facts through the job queue and the worker, then
the agent's recall) must keep what the store alone finds from the raw turns.
"""

from __future__ import annotations

import pytest
from locomo_data import locomo_dev

from memagent.evals.eval_pipeline import run_pipeline
from memagent.stores.embeddings import hash_embeddings

pytestmark = pytest.mark.slow


def test_pipeline_keeps_what_the_store_finds_on_one_dev_conversation() -> None:
    report = run_pipeline(
        locomo_dev(),
        k=(5, 10, 20),
        limit_conversations=1,
        embeddings=hash_embeddings(64),
        progress=False,
    )
    pipeline, store = report["results"]["all"], report["store"]["all"]
    assert pipeline["n"] == store["n"] > 100
    assert report["actions"].get("created", 0) > 0  # the rules extracted facts
    for k in (10, 20):
        assert pipeline[f"R@{k}"] >= store[f"R@{k}"] - 0.02, (k, pipeline, store)
