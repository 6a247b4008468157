"""The reply-path injection screen on ordinary chat: LoCoMo's conversation conv-26, which the
n-gram judge never trains on (``bench/poison_loso.py`` holds it out), is data the repository
does not ship (``MEMAGENT_LOCOMO``, else ``../shared/data/locomo/locomo_dev.json`` beside the
checkout). Without it the case skips with the reason, and fails under ``CI=true``.

The judge used to read 165 of its 419 turns as orders to the assistant; the target is at most
1% of turns (issue 17), which is what lets recalled episodes be judged like notes.
"""

from __future__ import annotations

import json

from locomo_data import locomo_dev

from memagent.memory import poison


def test_reply_path_screen_reads_at_most_one_percent_of_held_out_chat_as_orders() -> None:
    samples = json.loads(locomo_dev().read_text(encoding="utf-8"))
    conv = next(s for s in samples if s["sample_id"] == "conv-26")["conversation"]
    turns = [
        str(t["text"])
        for key, value in conv.items()
        if key.startswith("session_") and isinstance(value, list)
        for t in value
        if str(t.get("text", "")).strip()
    ]
    assert len(turns) > 400
    flagged = [t for t in turns if poison.screen_for_prompt(t) is not None]
    assert len(flagged) <= len(turns) // 100, flagged[:10]
