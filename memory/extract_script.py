"""Traditional Chinese read by the Simplified rules, and written back as the user wrote it.

The cue words of the rules are Simplified ("预算", "负责", "下周"). A note in Traditional
("預算：港幣250萬", "下週三寄給吳廠長") is folded character for character
(``hanzi_fold.to_simplified`` plus a few characters extraction needs) before it is read;
each memory's content is then turned back into the user's own characters, so a
Taiwanese or Hong Kong salesperson reads their own note. Values and keys stay folded,
so "陳家豪" and "陈家豪" version the same record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memagent.core.types import Turn
from memagent.memory.hanzi_fold import to_simplified

_EXTRA = str.maketrans(
    "週豐註裡臺彙鬆準據係徵併採託綫線遲妳閒幾", "周丰注里台汇松准据系征并采托线线迟你闲几"
)
"""Traditional characters the poisoning screen's table leaves as they are (extraction's
rules and the LLM extractor's category checks read them folded)."""


def fold(text: str) -> str:
    """``text`` with Traditional characters in their Simplified form, one for one."""
    return to_simplified(text).translate(_EXTRA)


class Script:
    """The folding of one extraction job's user turns and its way back."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self._back: dict[str, str] = {}
        for t in turns:
            if t.role != "user":
                continue
            for orig, simp in zip(t.content, fold(t.content), strict=True):
                if orig != simp:
                    self._back.setdefault(simp, orig)
        self._table = str.maketrans(self._back)

    @property
    def traditional(self) -> bool:
        return bool(self._back)

    def folded(self, turns: Sequence[Turn]) -> list[Turn]:
        """The turns as the rules read them (assistant turns folded too: they set the topic)."""
        return [replace(t, content=fold(t.content)) for t in turns] if self._back else list(turns)

    def restore(self, text: str) -> str:
        """A memory's text in the characters the user wrote."""
        return text.translate(self._table) if self._back else text
