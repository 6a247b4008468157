"""A correction that names the old value but not the attribute versions that memory.

"改一下，不是80万，是120万" after "预算80万", "Sorry, it's 1.4M not 1.2M": the sentence says
which value is no longer true (``Candidate.replaces``), not which attribute it was. The
active memory of the scope that holds exactly that value is the one corrected: the new
record takes its key, so the ordinary versioning closes the old value. When no memory or
more than one holds it, nothing is guessed and the figure is stored under its own key.
The same goes for a system they moved away from ("switched from Salesforce to HubSpot"):
the one incumbent memory that names it is the one replaced.
"""

from __future__ import annotations

import re

from langgraph.store.base import BaseStore

from memagent.memory.records import MemoryRecord
from memagent.memory.write_cas import PENDING_PREFIX, _find
from memagent.memory.write_match import same_value

NAMED = ("incumbent", "current_vendor")
"""Families whose memories name what they hold in their text rather than their value."""

SCAN = 500
"""Active records read to find the one holding the old value (a customer's facts)."""


def names(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (a whole word; any place in Chinese)."""
    if not name.strip():
        return False
    if re.search(r"[\u3400-\u9fff]", name):
        return name in text
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.I) is not None


def anchored(store: BaseStore, ns: tuple[str, ...], rec: MemoryRecord, old: str) -> MemoryRecord:
    """``rec`` under the key of the one active memory whose value is ``old``, else as is."""
    holders = {
        (i.value.get("entity"), i.value.get("attribute"))
        for i in _find(store, ns, {"status": "active"}, SCAN)
        if not i.key.startswith(PENDING_PREFIX)
        and i.value.get("attribute") != rec.attribute
        and same_value(str(i.value.get("value") or ""), old)
    }
    if not holders and rec.attribute.split(":", 1)[0] in NAMED:
        # a system they moved away from is named, not valued: "Salesforce" in the
        # memory "They run Salesforce as their CRM"
        holders = {
            (i.value.get("entity"), i.value.get("attribute"))
            for i in _find(store, ns, {"status": "active"}, SCAN)
            if not i.key.startswith(PENDING_PREFIX)
            and str(i.value.get("attribute") or "").split(":", 1)[0] in NAMED
            and names(str(i.value.get("content") or ""), old)
        }
    if len(holders) != 1:
        return rec
    entity, attribute = next(iter(holders))
    return rec.model_copy(update={"entity": entity, "attribute": attribute})
