"""English job titles split from the name they stand beside, and the label before a name
that says what part the person plays.

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


_STAKE_LABEL = re.compile(
    r"^\s*(?:[-*•]\s*)?(?P<lab>(?i:champion|champ|eb|econ(?:omic)? buyer|decision[- ]maker|dm|(?:exec(?:utive)? )?sponsor|blocker|"
    r"influencer|pic|coach|gatekeeper|signer|detractor)|决策人|拍板人|对接人|联系人|影响者|内线|支持者|反对者|窗口|決策人|對接人)"
    r"\s*[:：=]\s*(?:[\w.'’/&-]+\s*){0,1}$"
)
"""A note's label that says what part a person plays ("EB: Paul Whitcombe (Managing Partner)",
"Champion: Nadia Farouk", "对接人：王芳"), before their role."""


def role_label(text: str, start: int) -> str | None:
    """The part a label gives the person named at ``start`` of ``text``, or None."""
    m = _STAKE_LABEL.match(re.split(r"[\n；;。]", text[:start])[-1])
    return m.group("lab") if m else None


_DECIDER = re.compile(
    r"(?i)(?:final )?decision[- ]?maker|dm\b|eb\b|econ(?:omic)? buyer|signer|final say|signs? off|决策人|拍板|決策人"
)


def labelled_decider(text: str, start: int) -> bool:
    """Whether a label names the person at ``start`` as the one who decides ("Decision maker:
    Our CFO, Tomás Reyes"; a Q/A transcript's "Who signs off?" reads as that label)."""
    return _DECIDER.match(role_label(text, start) or "") is not None
