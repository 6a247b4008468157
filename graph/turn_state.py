"""What a session's checkpoint says about its last turn: whether its run stopped before
the end, and which user message still waits for a reply (``arun_turn`` resumes or joins
it instead of appending a copy)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.types import StateSnapshot


def unfinished(snapshot: StateSnapshot) -> bool:
    """Whether the session's last run stopped before its end: a task still to run, or
    one that ran but whose writes were never folded into a checkpoint (a process killed
    between a node's saved writes and the next checkpoint). ``snapshot.next`` misses the
    second kind: it lists only tasks without saved writes."""
    return bool(snapshot.tasks)


def unanswered(snapshot: StateSnapshot) -> str | None:
    """The text of a session's last user message when its turn stopped before a reply."""
    if not unfinished(snapshot):
        return None
    messages: list[BaseMessage] = list((snapshot.values or {}).get("messages", []))
    for m in reversed(messages):
        if isinstance(m, AIMessage) and not m.tool_calls:
            return None
        if isinstance(m, HumanMessage):
            return str(m.text)
    return None


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())
