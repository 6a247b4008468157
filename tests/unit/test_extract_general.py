"""General mechanisms of the sales rules, on sentences written for these tests (not taken
from any labelled set): Traditional Chinese, people with their roles in apposition, a
conditional clause inside a long note, and a clause that only qualifies the one before."""

from __future__ import annotations

import pytest

from memagent.core.types import Turn
from memagent.memory.extract_rules import extract_rules

AT = "2026-10-05T09:00:00+08:00"


def _facts(*texts: str) -> list[str]:
    turns = [Turn("user", t, id=f"m{i}", at=AT) for i, t in enumerate(texts)]
    return [f"{c.attribute} | {c.value} | {c.content}" for c in extract_rules(turns)[0]]


def _has(facts: list[str], *words: str) -> bool:
    return any(all(w.lower() in f.lower() for w in words) for f in facts)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("預算大約新台幣600萬，要在下個月底前決定。", ("budget", "預算", "600萬")),
        ("現有系統是鼎新的ERP，已經用了八年。", ("鼎新", "現有系統")),
        ("下週四之前要把報價單寄給採購部。", ("2026-10-15", "報價")),
        ("系統必須支援私有雲部署。", ("requirement", "私有雲")),
        ("我們的競爭對手是漢康資訊，報價比我們低兩成。", ("competitor", "漢康")),
    ],
)
def test_traditional_chinese_is_read_and_kept_in_its_own_characters(
    text: str, words: tuple[str, ...]
) -> None:
    facts = _facts(text)
    assert _has(facts, *words), facts
