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


_WORD = re.compile(r"[A-Za-z][\w&.-]*")


def names_differ(a: str, b: str) -> bool:
    """Whether each text names something the other does not ("Competitors: Relativity"
    and "Competitors: Everlaw"): two subjects, however alike the rest of the words."""
    wa = {w.lower(): w for w in _WORD.findall(a)}
    wb = {w.lower(): w for w in _WORD.findall(b)}

    def named(only: set[str], words: dict[str, str]) -> bool:
        return any(words[w][0].isupper() or any(c.isupper() for c in words[w][1:]) for w in only)

    return named(set(wa) - set(wb), wa) and named(set(wb) - set(wa), wb)


def _is_near_dup(rec: MemoryRecord, cand_rec: MemoryRecord) -> bool:
    """Whether two similar texts are the same memory, beyond what cosine can tell.

    Embedders rate "please email me" and "please call me" 0.97 alike (e5), so
    similarity alone is not enough: the figures must agree, and two keyed
    records merge only when their values agree (a free note may merge into any).
    """
    if numbers(rec.content) != numbers(cand_rec.content):
        return False
    if names_differ(rec.content, cand_rec.content):
        return False
    if is_note(rec) or is_note(cand_rec):
        return True
    return same_value(rec.value, cand_rec.value)


_LEAD_LABEL = re.compile(
    r"^\s*[-–•*]?\s*([^:：\s][^:：]{0,23}?)\s*(?:[(（][^)）]{0,20}[)）])?\s*[:：]\s*"
)
_GENERIC_LABELS = re.compile(
    r"^(?:requirements?|hard requirements?|needs?|pain(?: point)?s?|notes?|preferences?|"
    r"customer preference|contact preference|competitors?|current system|incumbent|next steps?|"
    r"timeline|deadline|budget|stakeholders?|deal stage|stage|update|fyi|"
    r"需求|要求|痛点|备注|客户偏好|联系偏好|偏好|竞争|竞品|竞争对手|现状|现有系统|下一步|时间|截止时间|预算|"
    r"阶段|补充|背景|更正)$",
    re.I,
)
_PUNCT = re.compile(r"[\W_]+")


def _core(text: str) -> tuple[str, list[str]]:
    """A text without its leading labels ("客户偏好：- 许振华：要求…"), in a comparable
    form, and the labels."""
    labels: list[str] = []
    while (m := _LEAD_LABEL.match(text)) and len(labels) < 3:
        labels.append(m.group(1).strip().lower())
        text = text[m.end() :]
    return _PUNCT.sub("", text.lower()), labels


def restates(old: MemoryRecord, new: MemoryRecord) -> bool:
    """Whether one text says all the other says, in its own words around it ("许振华: 要求
    "一个平台管到底"" and "客户偏好：- 许振华：要求"一个平台管到底"，不要多家拼凑"): what cosine
    misses when one side is longer and came labelled otherwise (another extractor, the
    profile). Texts labelled alike are left to cosine. Labels must agree (a person named in one is named in
    the other), the shorter's figures be in the longer, and keyed values not differ."""
    (a, la), (b, lb) = _core(old.content), _core(new.content)
    if la == lb:
        return False  # the same form: cosine judges it (``_is_near_dup``)
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    cjk = re.search(r"[\u3400-\u9fff]", short) is not None
    if len(short) < (6 if cjk else 16) or short not in long_:
        return False
    whole_a, whole_b = _PUNCT.sub("", old.content.lower()), _PUNCT.sub("", new.content.lower())
    for label, other in [*((x, whole_b) for x in la), *((x, whole_a) for x in lb)]:
        if not _GENERIC_LABELS.match(label) and _PUNCT.sub("", label) not in other:
            return False
    s_text, l_text = (old.content, new.content) if len(a) <= len(b) else (new.content, old.content)
    if not numbers(s_text) <= numbers(l_text):
        return False
    return old.value is None or new.value is None or same_value(old.value, new.value)
