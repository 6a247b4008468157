"""A corrected count keeps the earlier count's key, and an own-affairs aside at the end of
a note voids that sentence only (rules extractor through the worker's write path, replayed
like the eval): the new figure is the active memory, the old one is left in none, and the
customer facts of a note that ends with an aside are kept while the aside is not."""

from __future__ import annotations

import pytest

from memagent.evals.eval_dataset import Dialog
from memagent.evals.eval_metrics import norm
from memagent.evals.eval_replay import Replayer
from memagent.memory.extract_asides import without_asides
from memagent.memory.extractors import rules_extractor

RECOUNTS = [
    (["Harbor Foods runs 85 forklifts in two warehouses.",
      "Correction from my side: the forklifts are closer to 120, I misread the sheet."],
     "120", ["85 forklifts"]),
    (["他们一共有5个仓库，都在华东。", "更正：仓库其实是7个，宁波那两个我漏了。"],
     "7个", ["5个仓库"]),
    (["門市大約 260 家，全部在北部。", "更正一下：門市是 310 家，不是 260，我少算了加盟店。"],
     "310", ["260"]),
]  # fmt: skip

ASIDES = [
    ("The CTO, Priya Nair, is the economic buyer. They need SSO on day one. "
     "Also I'm flying to Denver on Monday for our regional kickoff, don't record that.",
     ["priya nair", "sso"], ["denver"]),
    ("采购总监赵敏负责比价。系统必须支持国产数据库。我周四要回总部做季度汇报，跟客户无关。",
     ["赵敏", "国产数据库"], ["季度汇报"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def replayer():  # type: ignore[no-untyped-def]
    with Replayer(rules_extractor()) as r:
        yield r


def _confirmed(replayer: Replayer, messages: list[str]) -> list[str]:
    turns = tuple(
        {"role": "user", "content": m, "at": f"2026-11-1{i}T10:00:00+08:00"}
        for i, m in enumerate(messages)
    )
    dialog = Dialog(id=f"r{abs(hash(messages[-1]))}", turns=turns, gold=(), customer="acme")
    out = replayer.replay(dialog)
    return [norm(f"{m.get('content')} {m.get('value') or ''}") for m in out.confirmed]


@pytest.mark.parametrize(("messages", "new", "old"), RECOUNTS)
def test_a_corrected_count_replaces_the_old_figure(
    replayer: Replayer, messages: list[str], new: str, old: list[str]
) -> None:
    texts = _confirmed(replayer, messages)
    assert any(norm(new) in t for t in texts), texts
    assert not [t for t in texts for o in old if norm(o) in t], texts


@pytest.mark.parametrize(("message", "kept", "gone"), ASIDES)
def test_an_aside_at_the_end_voids_only_itself(
    replayer: Replayer, message: str, kept: list[str], gone: list[str]
) -> None:
    texts = _confirmed(replayer, [message])
    for k in kept:
        assert any(norm(k) in t for t in texts), (k, texts)
    assert not [t for t in texts for g in gone if norm(g) in t], texts


@pytest.mark.parametrize(
    "message",
    [
        "Don't record this: my flight to Oslo moved to Friday.",
        "Our list price goes up 5% in Q2. Just thinking out loud, nothing from them.",
        "跟客户无关，提醒自己周五前交报销单。",
    ],
)
def test_a_message_that_is_all_aside_is_still_kept_out(message: str) -> None:
    assert without_asides(message) is None
