"""Corrections through the worker's write path (rules extractor, replayed like the eval):
after a later message replaces a value, the new value is the active memory and no
active memory still carries the old one (what ``eval extraction`` counts as a stale leak)."""

from __future__ import annotations

import pytest

from memagent.evals.eval_dataset import Dialog
from memagent.evals.eval_metrics import norm
from memagent.evals.eval_replay import Replayer
from memagent.memory.extractors import rules_extractor

CASES = [
    (["Demo for Pinecrest is on Dec 8.", "The demo isn't Dec 8 anymore, it's Dec 10."],
     "2026-12-10", ["dec 8", "2026-12-08"]),
    (["Go-live is planned for March 1.", "Go-live moved from March 1 to April 15."],
     "2027-04-15", ["march 1", "2027-03-01"]),
    (["Decision maker is Tom Ruiz.", "Decision maker is no longer Tom Ruiz; it's Ana Silva now."],
     "ana silva", ["tom ruiz"]),
    (["They need 400 seats.", "Scratch the 400 seats, it's 350 seats."], "350", ["400"]),
    (["They have 200 stores.", "Correction: 250 stores, not 200."], "250", ["200"]),
    (["Signing is expected Dec 15.", "Signing slipped to January 10, so Dec 15 is off."],
     "2027-01-10", ["dec 15", "2026-12-15"]),
    (["Kim prefers email.", "Kim now says WhatsApp is better than email for her."],
     "whatsapp", ["kim prefers email"]),
    (["Rival quote: Infor at 300k.", "Infor dropped their quote to 260k."], "260k", ["300k"]),
    (["演示定在12月8号。", "演示不是12月8号了，改到12月15号。"], "2026-12-15", ["12月8", "2026-12-08"]),
    (["决策人是王总。", "决策人不是王总了，换成李总。"], "李总", ["王总"]),
    (["预算是200万。", "预算不是200万，是250万。"], "250万", ["200万"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def replayer():  # type: ignore[no-untyped-def]
    with Replayer(rules_extractor()) as r:
        yield r


@pytest.mark.parametrize(("messages", "new", "old"), CASES)
def test_the_new_value_replaces_the_old_one(
    replayer: Replayer, messages: list[str], new: str, old: list[str]
) -> None:
    turns = tuple(
        {"role": "user", "content": m, "at": f"2026-11-1{i}T10:00:00+08:00"}
        for i, m in enumerate(messages)
    )
    dialog = Dialog(id=f"c{abs(hash(messages[1]))}", turns=turns, gold=(), customer="acme")
    out = replayer.replay(dialog)
    texts = [norm(f"{m.get('content')} {m.get('value') or ''}") for m in out.confirmed]
    assert any(norm(new) in t for t in texts), texts
    assert not [t for t in texts for o in old if norm(o) in t], texts
