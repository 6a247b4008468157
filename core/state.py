"""Graph state: what one session (thread) checkpoints between turns.

Plain JSON-friendly values (dicts, lists, strings) so that the SQLite
checkpointer, Studio and ``--json`` all show the same thing. The shapes of the
dict fields are defined by the Pydantic models in ``memagent.memory`` that own them
(``working``: ``memagent.memory.working_memory.WorkingMemory``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Final

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from memagent.core.reducers import reduce_working

RESET: Final = "__reset__"
"""Leading marker of a ``degraded`` update that starts a new turn's list (see ``add_notes``)."""


def add_notes(current: Sequence[str] | None, update: Sequence[str] | None) -> list[str]:
    """Channel reducer for per-turn note lists such as ``State.degraded``.

    Nodes return only the notes they add; the reducer appends them in order and
    drops repeats, so nodes that run in one turn never overwrite each other. The
    channel is checkpointed with the thread, so without a reset it would grow over
    every turn: an update that starts with ``RESET`` (``fresh_notes``) replaces the
    list instead. The first node of every turn sends one, so the list names only
    the current turn's failures.
    """
    items = list(update or [])
    if items and items[0] == RESET:
        return list(dict.fromkeys(n for n in items[1:] if n != RESET))
    return list(dict.fromkeys([*(current or []), *(n for n in items if n != RESET)]))


def fresh_notes(*notes: str) -> list[str]:
    """A ``degraded`` update that starts this turn's list with ``notes``."""
    return [RESET, *notes]


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
