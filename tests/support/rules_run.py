"""The rules extractor on a few user messages, as the detection test files call it."""

from __future__ import annotations

from memagent.core.types import Turn
from memagent.memory.extract_rules import extract_rules
from memagent.memory.write_path import Candidate

AT = "2026-10-12T10:00:00+08:00"


def run_rules(*messages: str, at: str = AT) -> list[Candidate]:
    """The candidates the rules read from ``messages``, each a user turn at ``at``."""
    turns = [Turn(role="user", content=m, id=f"m{i}", at=at) for i, m in enumerate(messages)]
    return extract_rules(turns)[0]


def candidate_text(c: Candidate) -> str:
    """A candidate's content and value, lowercased: what the cases search for words."""
    return f"{c.content} {c.value or ''}".lower()
