"""English job titles split from the name they stand beside.

A title written before a name ("the GM Operations Darren Pike") or after it ("Karim Haddad,
our GM Revenue") may carry a function word that the name or title pattern leaves on the
wrong side: the person is "Darren Pike", GM Operations, not "Operations Darren Pike", GM.
"""

from __future__ import annotations

import re

_FUNCTION = (
    r"Operations|Revenue|Sales|Finance|Marketing|IT|HR|Engineering|Procurement|Risk|Supply Chain"
    r"|Maintenance|Quality|Production|Security|Technology|Digital|Commercial|Strategy|Legal"
    r"|Compliance|Logistics|Manufacturing|Retail|Nursing|Clinical|Treasury"
)


def function_moved(name: str, role: str, after: str) -> tuple[str, str]:
    """A function word read into the wrong half: "the GM Operations Darren Pike" is Darren
    Pike, GM Operations; "Karim Haddad, our GM Revenue" is GM Revenue, not GM."""
    lead = re.match(rf"({_FUNCTION}) (?=\S+ \S+)", name)
    if lead:
        return name[lead.end() :], f"{role} {lead.group(1)}"
    if re.fullmatch(r"(?i:gm|vp|svp|evp|head|director)", role) and (
        tail := re.match(rf" ({_FUNCTION})\b", after)
    ):
        return name, f"{role} {tail.group(1)}"
    return name, role
