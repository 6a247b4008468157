"""Switches of system in sales notes ("switched from Salesforce to HubSpot", "已经从企业微信
切到飞书了"): the new system's incumbent names the old one it replaces, so the write path
versions that memory (``write_anchor``). Moved out of ``extract_rules``.
"""

from __future__ import annotations

import re

from memagent.core.types import Turn
from memagent.memory.extract_corrections import switched
from memagent.memory.extract_detectors import _clip
from memagent.memory.extract_keys import text_hash
from memagent.memory.write_types import Candidate


def _switched(c: Candidate, moved: tuple[str, str] | None) -> Candidate:
    """The incumbent of a sentence saying they moved from one system to another names
    the one it replaces, so the write path versions that memory (``write_anchor``)."""
    if moved is None or c.attribute.split(":")[0] not in ("incumbent", "current_vendor"):
        return c
    if moved[1].lower() not in c.content.lower():
        return c  # another system of the same message
    return c.model_copy(update={"replaces": moved[0], "value": moved[1]})


def with_switch(s: str, turn: Turn, found: list[Candidate]) -> list[Candidate]:
    """A sentence's candidates when the message says they moved from one system to another
    (``switched``): the new system's incumbent names the old one it replaces."""
    moved = switched(turn.content)
    found = [_switched(c, moved) for c in found]
    return found + _switch_fact(s, moved, turn, found)


def _switch_fact(s: str, moved: tuple[str, str] | None, turn: Turn,
                 found: list[Candidate]) -> list[Candidate]:  # fmt: skip
    """The incumbent a sentence sets by saying they moved to another system ("已经从企业微信
    切到飞书了", "switched from Salesforce to HubSpot"), when no clause of it was read as
    one: the switch is what closes the old system's memory."""
    if moved is None or moved[1] not in s or any(
            c.attribute.split(":")[0] in ("incumbent", "current_vendor") for c in found):  # fmt: skip
        return []
    piece = next((p.strip() for p in re.split(r"[，,;；。.!?！？]", s) if moved[1] in p), s)
    return [_switched(Candidate(content=_clip(piece), attribute=f"incumbent:{text_hash(piece)}",
                                importance=0.6, confidence=0.9, correction=True,
                                message_ids=[turn.id] if turn.id else []), moved)]  # fmt: skip
