"""When two memories are the same: number, value and similarity comparisons.

Pure functions over plain data, split from ``memagent.memory.write_path`` (which calls
them to decide merge versus version) so the matching rules can be read and tested
without a store: "3000000" and "3000000 USD" are one value, "please email me" and
"please call me" are not one memory however alike their embeddings. The public names
are re-exported by ``write_path``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from memagent.memory.records import MemoryRecord

_NUM = re.compile(r"\d+(?:[.,]\d+)*")


def numbers(text: str) -> set[str]:
    """Numbers in a text, for "same sentence, different figure" checks."""
    return {n.replace(",", "") for n in _NUM.findall(text)}


def norm_value(value: str | None) -> str | None:
    if value is None:
        return None
    return " ".join(value.lower().split()).strip(" .。")


def same_value(a: str | None, b: str | None) -> bool:
    """Equal values; "3000000" and "3000000 USD" count as equal (a currency left implicit)."""
    na, nb = norm_value(a), norm_value(b)
    if na == nb:
        return True
    if na is None or nb is None:
        return False
    if numbers(na) and numbers(na) == numbers(nb):
        ra, rb = _NUM.sub("", na).strip(), _NUM.sub("", nb).strip()
        return ra == rb or not ra or not rb
    return False


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def merge_confidence(old: float, new: float, gain: float) -> float:
    """Confidence after another mention: moves towards 1, never down."""
    return min(1.0, max(old, old + (1.0 - old) * new * gain))


def is_note(rec: MemoryRecord) -> bool:
    return rec.attribute.startswith("note_")


def _is_near_dup(rec: MemoryRecord, cand_rec: MemoryRecord) -> bool:
    """Whether two similar texts are the same memory, beyond what cosine can tell.

    Embedders rate "please email me" and "please call me" 0.97 alike (e5), so
    similarity alone is not enough: the figures must agree, and two keyed
    records merge only when their values agree (a free note may merge into any).
    """
    if numbers(rec.content) != numbers(cand_rec.content):
        return False
    if is_note(rec) or is_note(cand_rec):
        return True
    return same_value(rec.value, cand_rec.value)
