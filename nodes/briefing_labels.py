"""Labels of briefing lines: what a recalled fact is about, read from its versioning key.

A record's key says what it is (``customer:decision_maker`` = ``li wei``,
``customer:stakeholder:li_wei:role`` = ``cto``, ``customer:contact_preference:li_wei:channel``
= ``email``). The bundled 1.5B model misreads bare quotes that lead with a pronoun ("Their
CTO Li Wei is the decision maker", "He hates phone calls"): it answered "the customer is
the decision maker". A short label before the quote names the kind of fact, the person it
is about and its value, so the quote is read as what it answers.

Safety: a label is words from ``FACT_LABELS`` plus text the quoted note itself holds (a
person or value is shown only when the note's own words contain it, in the note's
spelling), so a label says nothing the screened, quoted note does not. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memagent.prompts.prompt_assembly import FACT_LABELS, LABEL_VALUE, LABEL_WHO

MAX_LABEL_PART = 40
"""Longest person or value a label repeats from its note."""
_HASH = re.compile(r"^[0-9a-f]{8}$")
_PERSON_KINDS = ("stakeholder", "contact_preference")
"""Kinds whose key names a person (``<kind>:<person>:…``)."""


def in_note(part: str, content: str) -> str | None:
    """``part`` (a key part, ``li_wei``, or a value, ``li wei``) as the note spells it
    ("Li Wei"), or None when the note does not say it."""
    words = " ".join(part.replace("_", " ").split())
    if not words or len(words) > MAX_LABEL_PART:
        return None
    found = re.search(re.escape(words).replace(r"\ ", r"[\s_-]+"), content, re.IGNORECASE)
    if found is None:
        return None
    edge = r"[\w]"  # a whole word or name, not "li" inside "delivery"
    start, end = found.span()
    if words.isascii() and (
        (start and re.match(edge, content[start - 1]))
        or (end < len(content) and re.match(edge, content[end]))
    ):
        return None
    return found.group(0)


def fact_kind(item: Mapping[str, Any]) -> str:
    """The kind of a recalled fact from its key (``contact_preference``), "" if none."""
    slot = item.get("slot")
    return _kind_parts(slot)[0] if isinstance(slot, str) else ""


def _kind_parts(slot: str) -> tuple[str, list[str]]:
    """(kind, the key parts after it): ``customer:contact_preference:li_wei:channel`` ->
    (``contact_preference``, [``li_wei``, ``channel``])."""
    parts = slot.split(":")
    if parts and parts[0] not in FACT_LABELS:
        parts = parts[1:]  # the entity ("customer")
    return (parts[0], parts[1:]) if parts else ("", [])


def person_of(item: Mapping[str, Any], content: str) -> str | None:
    """The person a fact is about, as its note spells it: the person its key names
    (``stakeholder:li_wei:…``), or the decision maker it states; None otherwise."""
    slot = item.get("slot")
    if not isinstance(slot, str):
        return None
    kind, rest = _kind_parts(slot)
    if kind in _PERSON_KINDS and rest and rest[0] != "customer":
        return in_note(rest[0], content)
    value = item.get("value")
    if kind == "decision_maker" and isinstance(value, str):
        return in_note(value, content)
    return None


def fact_label(item: Mapping[str, Any], content: str) -> str | None:
    """``decision maker, Li Wei`` / ``Li Wei, role, CTO`` / ``deadline (decision),
    2027-03-31``: the label of a fact's line, None for a fact with no known kind."""
    slot = item.get("slot")
    if not isinstance(slot, str):
        return None
    kind, rest = _kind_parts(slot)
    label = FACT_LABELS.get(kind)
    if label is None:
        return None
    who = person_of(item, content)
    subject = [p for p in (rest[1:] if kind in _PERSON_KINDS else rest) if not _HASH.match(p)]
    if kind in ("deadline", "timeline", "commitment") and subject:
        label = f"{label} ({subject[0].replace('_', ' ')})"
    elif kind == "stakeholder" and subject:
        label = subject[0].replace("_", " ")  # "role"
    if who and kind != "decision_maker":
        label = LABEL_WHO.format(who=who, label=label)
    value = item.get("value")
    shown = in_note(value, content) if isinstance(value, str) else None
    if shown and shown != who:
        label = LABEL_VALUE.format(label=label, value=shown)
    elif kind == "decision_maker" and who:
        label = LABEL_VALUE.format(label=label, value=who)
    return label
