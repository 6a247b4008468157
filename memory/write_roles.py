"""A superseded decision maker keeps their role.

The rules leave out a person's role memory when the decision-maker memory of the same
statement already names them with it ("Their CTO Li Wei is the decision maker",
"老板李总（CEO）拍板"): one memory per person. The decision maker is single-valued, so a
later one supersedes that memory, and with it the only active record of the former
decision maker's role. ``former_role`` gives the role memory to write back then
("Li Wei: CTO."), so what the salesperson said about the person is not lost.
"""

from __future__ import annotations

import re

from memagent.memory.extract_entities import find_people
from memagent.memory.extract_keys import slug
from memagent.memory.records import MemoryRecord
from memagent.memory.write_match import same_value
from memagent.memory.write_types import Candidate

_ZH = re.compile(r"[\u4e00-\u9fff]")


def former_role(old: MemoryRecord, new: MemoryRecord) -> Candidate | None:
    """The role memory of the decision maker ``old`` names, when ``new`` (the record that
    supersedes it) names someone else; else None."""
    if old.attribute != "decision_maker" or not old.value or same_value(old.value, new.value):
        return None
    who = old.value.strip().lower()
    for p in find_people(old.content):
        name = p.name.strip()
        if not name or not (who in name.lower() or name.lower() in who):
            continue
        zh = bool(_ZH.search(p.role) or _ZH.search(name))
        return Candidate(
            content=f"{name}：{p.role}。" if zh else f"{name}: {p.role}.",
            type="fact",
            entity=old.entity,
            attribute=f"stakeholder:{slug(name)}:role",
            value=p.role.lower(),
            importance=old.importance,
            confidence=old.confidence,
            message_ids=old.source.message_ids[-200:],
        )
    return None
