"""A correction that names the old value but not the attribute versions that memory.

"改一下，不是80万，是120万" after "预算80万", "Sorry, it's 1.4M not 1.2M": the sentence says
which value is no longer true (``Candidate.replaces``), not which attribute it was. The
active memory of the scope that holds exactly that value is the one corrected: the new
record takes its key, so the ordinary versioning closes the old value. When no memory or
more than one holds it, nothing is guessed and the figure is stored under its own key.
"""

from __future__ import annotations

from langgraph.store.base import BaseStore

from memagent.memory.records import MemoryRecord
from memagent.memory.write_cas import PENDING_PREFIX, _find
from memagent.memory.write_match import same_value

SCAN = 500
"""Active records read to find the one holding the old value (a customer's facts)."""


def anchored(store: BaseStore, ns: tuple[str, ...], rec: MemoryRecord, old: str) -> MemoryRecord:
    """``rec`` under the key of the one active memory whose value is ``old``, else as is."""
    holders = {
        (i.value.get("entity"), i.value.get("attribute"))
        for i in _find(store, ns, {"status": "active"}, SCAN)
        if not i.key.startswith(PENDING_PREFIX)
        and i.value.get("attribute") != rec.attribute
        and same_value(str(i.value.get("value") or ""), old)
    }
    if len(holders) != 1:
        return rec
    entity, attribute = next(iter(holders))
    return rec.model_copy(update={"entity": entity, "attribute": attribute})
