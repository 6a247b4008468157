"""People of holdout 8's notes the rules missed, by cause, each on fresh wording:

- a role in brackets that goes on with a stance ("(Head of Finance – sceptical, thinks the
  rollout is too fast)") used to be too long to be read as a role, and the title words were
  then taken for a name ("Plant Services: Manager.");
- a business unit ("Client Onboarding Operations", "Infrastructure Services") is never a
  person's name: "VP, Client Onboarding Operations" under a signature named nobody;
- "Name – Title" in a CRM paste ("Primary contact: Jonas Berg – Head of Fleet"), while
  "Acme Foods - Head of IT, Jo Lee" still names Jo Lee;
- "MD" and "FD" are titles ("our MD Mr Anand Rao", "Their FD, Clara Holt").
"""

from __future__ import annotations

import pytest
from rules_run import candidate_text as _text
from rules_run import run_rules as _run

from memagent.memory.write_path import Candidate


def _roles(cands: list[Candidate]) -> dict[str, str]:
    """Role facts, and the decision-maker memory that stands in for one when it names the
    person with their role ("our MD Mr Anand Rao will take the final call": one memory per
    person, ``extract_aliases.without_restated_roles``)."""
    return {
        c.attribute: _text(c)
        for c in cands
        if c.attribute.endswith(":role") or c.attribute == "decision_maker"
    }


@pytest.mark.parametrize(
    ("text", "name", "words"),
    [
        (
            "Attendees: Omar Said (Head of Finance – sceptical, thinks the rollout is too fast), "
            "Lena Fischer (plant manager, very keen, wants it before winter)",
            "omar said",
            ("head of finance", "sceptical"),
        ),
        (
            "Attendees: Omar Said (Head of Finance – sceptical, thinks the rollout is too fast), "
            "Lena Fischer (plant manager, very keen, wants it before winter)",
            "lena fischer",
            ("plant manager", "keen"),
        ),
        (
            "Spoke with Joanna Pike (Manager, Plant Services) on Monday.",
            "joanna pike",
            ("manager",),
        ),
        ("Kind regards,\nDaniel Ortiz\nVP, Client Onboarding Operations", "daniel ortiz", ("vp",)),
        ("Primary contact: Jonas Berg – Head of Fleet", "jonas berg", ("head of fleet",)),
        ("Acme Foods - Head of IT, Jo Lee, wants a demo.", "jo lee", ("head of it",)),
        ("Their FD, Clara Holt, joins the next call.", "clara holt", ("fd",)),
        ("our MD Mr Anand Rao will take the final call.", "anand rao", ("md",)),
    ],
)
def test_the_person_and_their_role_are_found(text: str, name: str, words: tuple[str, ...]) -> None:
    roles = _roles(_run(text))
    assert any(name in t and all(w in t for w in words) for t in roles.values()), roles


@pytest.mark.parametrize(
    "text",
    [
        "Spoke with Joanna Pike (Manager, Plant Services) on Monday.",
        "Kind regards,\nDaniel Ortiz\nVP, Client Onboarding Operations",
        "Acme Foods - Head of IT, Jo Lee, wants a demo.",
    ],
)
def test_a_business_unit_or_company_is_no_person(text: str) -> None:
    roles = _roles(_run(text))
    assert not [a for a in roles if any(w in a for w in ("services", "operations", "acme"))], roles
