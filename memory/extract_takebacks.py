"""Take-backs in a job's turns ("forget what I just said", "作废", ``retracts_previous``):
the rules read them as one retraction each, and no extractor model ever sees them, since
a model files them as notes about the customer."""

from __future__ import annotations

from collections.abc import Sequence

from memagent.core.types import Turn
from memagent.memory.extract_corrections import retracts_previous
from memagent.memory.extract_rules import extract_rules
from memagent.memory.write_retract import RETRACTION
from memagent.memory.write_types import Candidate


def take_backs(turns: Sequence[Turn]) -> tuple[list[Turn], list[Candidate]]:
    """The turns without the user's take-backs, and the retraction candidates of those
    (put after the other turns' facts, so a job holding a message and its take-back
    closes what that message wrote)."""
    backs = [t for t in turns if t.role == "user" and retracts_previous(t.content)]
    if not backs:
        return list(turns), []
    found = extract_rules(backs)[0]
    return [t for t in turns if t not in backs], [c for c in found if c.attribute == RETRACTION]
