"""One memory per person: a stakeholder's facts fold into one record.

A note says several things of one person in several places ("Met Karen Oduya, VP
Operations ... She's our champion", an attendee list and then "邓总是最终拍板人"), and the
extractors keep each under its own key (``stakeholder:<person>:role``, a stance keyed by
its text, ``decision_maker``). Stored apart they are two memories of one person: recall
shows half of what is known of them, and a stale half can outlive a correction.

So a new stakeholder fact about a person who already has an active person memory is
folded into that memory as a ``Part``: the memory is written as a new version of its key
(the old version closed, history kept) whose content lists the parts in the order they
were said ("Karen Oduya: VP Operations; She's our champion"). A part keeps the key it was
written under, so a later fact of the same key (a corrected role) replaces that part
instead of adding a stale one. The decision maker is single-valued: when it names a
person with a memory, that memory folds into the decision-maker record; when a later
decision maker names someone else, the former one's other parts are written back as
their own memory (``split_parts``), so nothing said of them is lost.

Who a record is about: its key's person (``stakeholder:<person>:...``, the decision
maker's value), or failing that the known person named first in its text (the LLM
extractor keys stakeholders by their text). Pure functions; the store reads and writes
are ``write_path``'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memagent.memory.records import MAX_CONTENT_CHARS, MemoryRecord, Part
from memagent.memory.write_match import same_value
from memagent.memory.write_types import Candidate

DECISION_MAKER = "decision_maker"
_HASH = re.compile(r"[0-9a-f]{8}")
_CJK = re.compile(r"[\u3400-\u9fff]")
_TAIL = " .。;；,，"


def is_person_record(rec: MemoryRecord) -> bool:
    """A stakeholder fact or the decision maker: a record about one person."""
    return rec.attribute.split(":", 1)[0] in ("stakeholder", DECISION_MAKER)


def key_form(text: str) -> str:
    """Lowercase words joined by "_" ("Dr. Michael Brandt" -> "dr_michael_brandt")."""
    return re.sub(r"[^\w]+", "_", text.strip().lower()).strip("_")


def person_of(rec: MemoryRecord) -> str | None:
    """The person a record's key names, in key form, else None."""
    head, _, rest = rec.attribute.partition(":")
    if head == "stakeholder" and rest:
        who = rest.split(":", 1)[0]
        return None if _HASH.fullmatch(who) else who
    if head == DECISION_MAKER and rec.value:
        return key_form(rec.value) or None
    return None


def _position(name: str, text: str) -> int | None:
    """Where ``name`` (key form) is named in ``text``, else None."""
    hay = key_form(text)
    if _CJK.search(name):
        pos = hay.find(name)
        return pos if pos >= 0 else None
    pos = f"_{hay}_".find(f"_{name}_")
    return pos if pos >= 0 else None


_TITLE = re.compile(
    r"^([\u4e00-\u9fff])(?:总|主任|经理|董|工|总监|科长|部长|处长|院长|老师|博士|教授|律师|总工)$"
)
_FULL = re.compile(r"^[\u4e00-\u9fff]{2,3}$")


def alias_of(a: str, b: str) -> bool:
    """Whether one Chinese person key is the other's surname and title ("陈主任", "陈立新")."""
    for x, y in ((a, b), (b, a)):
        if (m := _TITLE.match(x)) and _FULL.match(y) and not _TITLE.match(y) and y[0] == m.group(1):
            return True
    return False


ALIAS_RANK = 1000
"""The rank of a match by surname and title alone: taken only when no name matches."""


def _rank(new: MemoryRecord, old: MemoryRecord) -> int | None:
    """How surely ``new`` is about the person of ``old`` (lower is surer), else None."""
    mine, theirs = person_of(new), person_of(old)
    if mine and mine == theirs:
        return -1
    ranks = []
    if theirs and (pos := _position(theirs, new.content)) is not None:
        ranks.append(pos)
    if mine and _position(mine, old.content) is not None:
        ranks.append(0)
    if not ranks and mine and theirs and alias_of(mine, theirs):
        # and the title fits what is said of the other: "陈主任" and "陈立新：信息科主任"
        alias, other = (mine, old) if _TITLE.match(mine) else (theirs, new)
        if alias[1:] in key_form(f"{other.content} {other.value or ''}"):
            return ALIAS_RANK
    return min(ranks) if ranks else None


def person_record(new: MemoryRecord, olds: Iterable[MemoryRecord]) -> MemoryRecord | None:
    """The active person memory ``new`` is about: the surest match, the decision maker
    first on a tie; None when there is none or ``new`` is not about a person."""
    if not is_person_record(new):
        return None
    olds = list(olds)
    best: tuple[int, int, MemoryRecord] | None = None
    for old in olds:
        if old is new or not is_person_record(old) or old.key == new.key:
            continue
        if old.entity != new.entity or (rank := _rank(new, old)) is None:
            continue
        order = (rank, 0 if old.attribute == DECISION_MAKER else 1)
        if best is None or order < best[:2]:
            best = (*order, old)
    if best is not None and best[0] == ALIAS_RANK:
        # "陈主任" is 陈立新 only when no one else known has that surname
        keys = {p for o in olds if is_person_record(o) and (p := person_of(o))}
        keys.add(person_of(new) or "")
        if len({k for k in keys if _FULL.match(k) and not _TITLE.match(k)
                and k[0] == (person_of(new) or "?")[0]}) > 1:  # fmt: skip
            return None
    return best[2] if best else None


def parts_of(rec: MemoryRecord) -> list[Part]:
    """A record's parts: its folded ones, or the record itself as its only part."""
    if rec.parts:
        return list(rec.parts)
    return [
        Part(
            attribute=rec.attribute,
            value=rec.value,
            text=rec.content,
            message_ids=rec.source.message_ids[-50:],
        )  # fmt: skip
    ]


def _strip_name(text: str, first: str) -> str:
    """``text`` without a leading "<name>:" / "<name>（role）：" when the memory's first part
    already names that person (an alias keeps its own name: "陈立新：信息科主任")."""
    m = re.match(r"\s*([^:：]{1,40}?)\s*(?:\([^)]*\)|（[^）]*）)?\s*[:：]\s*(?=\S)", text)
    if m and (label := key_form(m.group(1))) and label in key_form(first):
        return text[m.end() :]
    return text


def render(parts: list[Part]) -> str:
    """The content of a person memory: its parts in order, the person named once."""
    first = parts[0].text.strip().rstrip(_TAIL)
    texts = [first] + [_strip_name(p.text, first).strip().rstrip(_TAIL) for p in parts[1:]]
    sep = "；" if any(_CJK.search(t) for t in texts) else "; "
    return sep.join(t for t in texts if t)


def _same_text(a: str, b: str) -> bool:
    return key_form(a) == key_form(b)


def fold(anchor: MemoryRecord, new: MemoryRecord) -> MemoryRecord | None:
    """``anchor`` with the parts of ``new`` folded in (each replacing, in place, the part
    of its key if there is one, else added last), as the next version of ``anchor``'s key;
    None when the result would not fit one memory."""
    parts = parts_of(anchor)
    for part in parts_of(new):
        at = next((i for i, p in enumerate(parts) if p.attribute == part.attribute), None)
        if at is None:
            parts.append(part)
        else:
            parts[at] = part
    content = render(parts)
    if len(content) > MAX_CONTENT_CHARS or len(parts) > 12:
        return None
    return anchor.model_copy(update={"content": content, "parts": parts})


def taken_in(decision: MemoryRecord, person: MemoryRecord) -> MemoryRecord | None:
    """The decision-maker record ``decision`` holding the person's memory ``person`` too
    (their parts first, in the order said); None when it would not fit one memory."""
    merged = fold(person, decision)
    if merged is None:
        return None
    return decision.model_copy(update={"content": merged.content, "parts": merged.parts})


def has_part(anchor: MemoryRecord, new: MemoryRecord) -> bool:
    """Whether ``anchor`` already holds ``new`` (a retried or repeated write)."""
    return any(
        p.attribute == new.attribute
        and (
            _same_text(p.text, new.content)
            or (new.value is not None and same_value(p.value, new.value))
        )  # fmt: skip
        for p in parts_of(anchor)
    )


def carried(old: MemoryRecord, new: MemoryRecord) -> MemoryRecord:
    """``new`` (the next version of ``old``'s key) with the parts of ``old`` it does not
    replace, when both are about the same person; else ``new`` as is."""
    if not old.parts or not same_person(old, new):
        return new
    merged = fold(old, new)
    if merged is None:
        return new
    return new.model_copy(update={"content": merged.content, "parts": merged.parts})


def same_person(a: MemoryRecord, b: MemoryRecord) -> bool:
    """Whether two versions of a person key are about one person."""
    if a.attribute != DECISION_MAKER:
        return True
    return same_value(a.value, b.value) or _rank(b, a) is not None


def decision_part(rec: MemoryRecord) -> MemoryRecord:
    """A decision-maker record as it was said, without the person's parts folded in."""
    own = next((p for p in rec.parts if p.attribute == rec.attribute), None)
    return rec.model_copy(update={"content": own.text, "parts": []}) if own else rec


def without_message(rec: MemoryRecord, message_id: str) -> MemoryRecord | None:
    """A person memory without the parts only ``message_id`` said (a retracted message);
    ``rec`` itself when it has none of them, None when nothing else is left."""
    left = [p for p in rec.parts if set(p.message_ids) != {message_id}]
    if len(left) == len(rec.parts):
        return rec
    if not left:
        return None
    ids = list(dict.fromkeys(m for p in left for m in p.message_ids))
    own = next((p for p in left if p.attribute == rec.attribute), left[0])
    return rec.model_copy(
        update={
            "content": render(left) if len(left) > 1 else own.text,
            "parts": left if len(left) > 1 else [],
            "attribute": rec.attribute if own.attribute == rec.attribute else own.attribute,
            "value": own.value if own.attribute != rec.attribute else rec.value,
            "source": rec.source.model_copy(
                update={"message_ids": ids[-200:] or rec.source.message_ids}
            ),
        }
    )


def split_parts(old: MemoryRecord, new: MemoryRecord) -> list[Candidate]:
    """The former decision maker's other facts, to write back as their own memory when
    ``new`` (the next decision maker) names someone else (their role said in the
    decision-maker sentence itself is ``write_roles.former_role``'s)."""
    if old.attribute != DECISION_MAKER or not old.parts or same_person(old, new):
        return []
    # the message naming the new decision maker is a source too: it is why they are
    # written back (and a closed record of the same text is not mistaken for this write)
    ids = old.source.message_ids + [
        m for m in new.source.message_ids if m not in old.source.message_ids]  # fmt: skip
    return [
        Candidate(
            content=p.text,
            type="fact",
            entity=old.entity,
            attribute=p.attribute,
            value=p.value,
            importance=old.importance,
            confidence=old.confidence,
            message_ids=ids[-200:],
        )
        for p in old.parts
        if p.attribute != DECISION_MAKER
    ]
