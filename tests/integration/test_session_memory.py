"""Session memory end to end: the 60-turn bench conversation through a real StateGraph.

Checks behaviour, not speed: after 60 turns every planted must-keep fact is in
the prompt, no replaced or hypothetical value is, and the prompt stays a
fraction of the full history (issue 4's target).
"""

from __future__ import annotations

import pytest

from memagent.evals import eval_sessions


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_sixty_turns_keep_every_planted_fact(lang: str) -> None:
    r = await eval_sessions.arun(lang)
    assert r["turns"] == 60
    assert r["missing"] == [], f"facts lost: {r['missing']}"
    assert r["stale_present"] == [], f"replaced/hypothetical values shown: {r['stale_present']}"
    assert r["prompt_tokens"] <= 0.25 * r["full_tokens"]
    for row in r["rows"]:
        assert row["prompt_tokens"] <= int(8192 * 0.8), row
