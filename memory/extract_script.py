"""Traditional Chinese read by the Simplified rules, and written back as the user wrote it.

The cue words of the rules are Simplified ("预算", "负责", "下周"). A note in Traditional
("預算：港幣250萬", "下週三寄給吳廠長") is folded character for character
(``hanzi_fold.to_simplified`` plus a few characters extraction needs) before it is read;
each memory's content is then turned back into the user's own characters, so a
Taiwanese or Hong Kong salesperson reads their own note. Values and keys stay folded,
so "陳家豪" and "陈家豪" version the same record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memagent.core.types import Turn
from memagent.memory.hanzi_fold import to_simplified

_EXTRA = str.maketrans(
    "週豐註裡臺彙鬆準據係徵併採託綫線遲妳閒幾闆亂儀凱劃臨診讚箋颱曆"
    "孫馬韓鄧蔣譚賈鄒韋閻閆聶龐龔饒駱繆鍾麥淩",
    "周丰注里台汇松准据系征并采托线线迟你闲几板乱仪凯划临诊赞笺台历"
    "孙马韩邓蒋谭贾邹韦阎闫聂庞龚饶骆缪钟麦凌",
)
"""Traditional characters the poisoning screen's table leaves as they are (extraction's
rules and the LLM extractor's category checks read them folded): among them the boss of
"老闆" and the surnames of "馬總", "孫經理", "譚生", so a Taiwan or Hong Kong note names them."""


def fold(text: str) -> str:
    """``text`` with Traditional characters in their Simplified form, one for one."""
    return to_simplified(text).translate(_EXTRA)


_SPOKEN = str.maketrans("係唔佢哋嘅咗喺睇嗰搵俾冇", "是不他们的了在看那找给无")
"""Written Cantonese read as Mandarin, one character for one ("合規主管係譚美儀，唔係譚美玲"
is "…是譚美儀，不是譚美玲"; "佢哋而家用緊" is "他们…"), so the rules' cue words for a correction,
a person or a current system read a Hong Kong note too."""
_TIE = re.compile(r"(?<=[關关聯联])係")
"""The 係 of "關係" (a relationship) is 系, not the copula."""


def read_fold(text: str) -> str:
    """``fold`` for the rules' reading: also written Cantonese as Mandarin."""
    return fold(_TIE.sub("系", text).translate(_SPOKEN))


class Script:
    """The folding of one extraction job's user turns and its way back."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self._back: dict[str, str] = {}
        native: set[str] = set()
        for t in turns:
            if t.role != "user":
                continue
            for orig, simp in zip(t.content, read_fold(t.content), strict=True):
                if orig != simp:
                    self._back.setdefault(simp, orig)
                else:
                    native.add(orig)
        # a character the user also wrote as it reads ("了解" beside "見咗", the surname of
        # "周凱" beside "下週四") is written back as is: one form for both, the user's own
        self._folds = bool(self._back)
        for c in native & set(self._back):
            del self._back[c]
        self._table = str.maketrans(self._back)

    @property
    def traditional(self) -> bool:
        return self._folds

    def folded(self, turns: Sequence[Turn]) -> list[Turn]:
        """The turns as the rules read them (assistant turns folded too: they set the topic)."""
        return (
            [replace(t, content=read_fold(t.content)) for t in turns]
            if self._folds
            else list(turns)
        )

    def restore(self, text: str) -> str:
        """A memory's text in the characters the user wrote."""
        return text.translate(self._table) if self._folds else text
