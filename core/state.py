"""Graph state: what one session (thread) checkpoints between turns.

Plain JSON-friendly values (dicts, lists, strings) so that the SQLite
checkpointer, Studio and ``--json`` all show the same thing. The shapes of the
dict fields are defined by the Pydantic models in ``memagent.memory`` that own them
(``working``: ``memagent.memory.working_memory.WorkingMemory``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from memagent.core.reducers import RESET, add_notes, fresh_notes, reduce_working

__all__ = ["RESET", "InputState", "State", "add_notes", "fresh_notes", "reduce_working"]


@dataclass
class InputState:
    """What a caller sends for one turn."""

    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    """The conversation; a turn appends one HumanMessage."""


@dataclass
class State(InputState):
    """Everything one session keeps between turns."""

    trace_id: str = ""
    """Id of the current turn, logged by every node."""

    turn: int = 0
    """Turn counter of this session (1 for the first user message)."""

    query: str = ""
    """Standalone search query written by query_rewrite for recall."""

    recall_trace: dict[str, Any] = field(default_factory=dict)
    """Why each memory was recalled: queries, items and their score parts."""

    briefing: list[dict[str, Any]] = field(default_factory=list)
    """The recalled memories injected into this turn's prompt."""

    summary: str = ""
    """Running summary of turns evicted from the recent window."""

    summarized_ids: list[str] = field(default_factory=list)
    """Ids of messages already folded into ``summary``."""

    working: Annotated[dict[str, Any], reduce_working] = field(default_factory=dict)
    """Working memory (must-keep slots); a stale version never overwrites a newer one."""

    prompt: list[AnyMessage] = field(default_factory=list)
    """The prompt prompt_assembly built for this turn (system, slots, briefing,
    summary, recent window, current input); the llm node sends it plus this
    turn's tool calls and results."""

    prompt_tokens: int = 0
    """Measured tokens of the assembled prompt of this turn."""

    degraded: Annotated[list[str], add_notes] = field(default_factory=list)
    """Parts that failed this turn (store, embedder, extraction) and were skipped. Nodes
    return only what they add; the first node of a turn resets it (``fresh_notes``)."""
