"""Query rewrite: a standalone search query for recall, from the message and recent turns.

Three implementations, one chosen at build time: ``rules`` (deterministic, no model),
``llm`` (the small model, falling back to rules when it fails) and ``off`` (the message
as is). Each also opens the turn: a fresh trace id, the turn counter, and a cleared
``degraded`` list.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State, fresh_notes
from memagent.llm.tokens import truncate_to_tokens
from memagent.nodes.query_rewrite_rules import cut_at_word, join_unique, rewrite_query
from memagent.nodes.recall import refers_back
from memagent.prompts.query_rewrite import QUERY_REWRITE_PROMPT

logger = memagent_logger(__name__)

SHORT_MESSAGE_CHARS = 40
MAX_QUERY_CHARS = 300
MAX_REWRITE_INPUT_TOKENS = 1000
"""Most of the message the small model sees when it rewrites the query."""
RECENT_TURNS = 4
PRONOUNS = re.compile(
    r"\b(it|its|that|this|they|them|their|he|him|his|she|her|those|these|there)\b"
    r"|他们|她们|它们|他|她|它|这个|那个|这些|那些|这件事|那件事",
    re.IGNORECASE,
)


class Rewriter(Protocol):
    """The query-rewrite slot, the first node of a turn: writes ``query``, ``trace_id``,
    ``turn`` and resets ``degraded`` (``fresh_notes``)."""

    async def __call__(self, state: State, runtime: Runtime[Context]) -> dict[str, Any]: ...


def message_text(message: AnyMessage) -> str:
    return str(message.text)


def current_messages(state: State) -> list[AnyMessage]:
    """The user messages this turn answers: the last one, and any unanswered ones right
    before it (a message sent while the model was down joins the next turn)."""
    out: list[AnyMessage] = []
    for message in reversed(state.messages):
        if not isinstance(message, HumanMessage):
            if out:
                break
            continue
        out.append(message)
    return out[::-1]


def current_message(state: State) -> str:
    return "\n".join(message_text(m) for m in current_messages(state))


def turn_number(state: State) -> int:
    """This turn's number. Consecutive user messages are one turn (an unanswered message
    that a later one joined), so a failed turn run again does not count twice; never
    below the previous turn's number, which working-memory versions rely on."""
    groups, previous_human = 0, False
    for message in state.messages:
        is_human = isinstance(message, HumanMessage)
        groups += is_human and not previous_human
        previous_human = is_human
    joins = len(current_messages(state)) > 1
    return max(groups, state.turn if joins else state.turn + 1)


def recent_turns(state: State, n: int = RECENT_TURNS) -> list[str]:
    """The last ``n`` user/assistant texts before the current message, oldest first."""
    texts = [
        f"{m.type}: {message_text(m)}"
        for m in state.messages[:-1]
        if m.type in ("human", "ai") and message_text(m).strip()
    ]
    return texts[-n:]


def needs_context(message: str) -> bool:
    """Short, pronoun-y or back-referencing messages do not stand on their own."""
    return (
        len(message.strip()) < SHORT_MESSAGE_CHARS
        or bool(PRONOUNS.search(message))
        or refers_back(message)
    )


def working_terms(working: dict[str, Any]) -> list[str]:
    """Values of the working-memory slots that name what the task is about (facts,
    goals, constraints; see ``memagent.memory.working_memory``)."""
    terms: list[str] = []
    for category in ("facts", "goals", "constraints"):
        slots = working.get(category) or {}
        for slot in slots.values() if isinstance(slots, dict) else []:
            value = slot.get("value") if isinstance(slot, dict) else None
            if isinstance(value, str) and value.strip():
                terms.append(value)
    return terms[:4]


def _rules_rewrite(text: str) -> str:
    """The rule-based rewrite (question words and relative times dropped), or the text
    itself when nothing is left of it."""
    rewritten = rewrite_query(text)
    return rewritten if rewritten.strip() else text


def rules_query(message: str, recent: list[str], working: dict[str, Any]) -> str:
    """Standalone query: the rewritten message, plus the previous user turn and working
    memory terms when the message does not stand on its own; each sentence once (the
    previous turn and working memory often repeat the message), cut between words."""
    parts = [_rules_rewrite(message.strip())]
    if needs_context(message):
        previous = [t.split(": ", 1)[1] for t in recent if t.startswith("human: ")]
        if previous:
            parts.append(previous[-1])
        parts.extend(working_terms(working))
    return cut_at_word(join_unique(parts), MAX_QUERY_CHARS)


def _opening(state: State, query: str, *notes: str) -> dict[str, Any]:
    """The first update of a turn: new trace id and turn number, ``degraded`` reset."""
    return {
        "query": query,
        "trace_id": uuid.uuid4().hex[:16],
        "turn": turn_number(state),
        "degraded": fresh_notes(*notes),
    }


def make_rules_rewriter() -> Rewriter:
    async def query_rewrite(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        message = current_message(state)
        return _opening(state, rules_query(message, recent_turns(state), state.working))

    return query_rewrite


def make_off_rewriter() -> Rewriter:
    async def query_rewrite(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        return _opening(state, cut_at_word(current_message(state), MAX_QUERY_CHARS))

    return query_rewrite


def make_llm_rewriter(small_model: Callable[[], BaseChatModel]) -> Rewriter:
    """Rewrite with the small model; on any model failure use the rules and flag it."""

    async def query_rewrite(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        message = current_message(state)
        recent = recent_turns(state)
        shown = truncate_to_tokens(message, MAX_REWRITE_INPUT_TOKENS)  # a 32k message fits
        prompt = QUERY_REWRITE_PROMPT.format(recent="\n".join(recent) or "(none)", message=shown)
        try:
            reply = await small_model().ainvoke([HumanMessage(prompt)])
            query = " ".join(str(reply.text).strip().splitlines()[:1]).strip().strip('"')
        except Exception as exc:  # the rewrite is an optimisation, never a failure
            logger.warning("llm rewrite failed, using rules: %s", exc)
            return _opening(state, rules_query(message, recent, state.working), "rewriter")
        return _opening(state, cut_at_word(query or message, MAX_QUERY_CHARS))

    return query_rewrite


def make_rewriter(
    kind: Literal["llm", "rules", "off"], *, small_model: Callable[[], BaseChatModel]
) -> Rewriter:
    """The rewriter chosen by ``MEMAGENT_REWRITER``."""
    if kind == "llm":
        return make_llm_rewriter(small_model)
    if kind == "rules":
        return make_rules_rewriter()
    if kind == "off":
        return make_off_rewriter()
    raise ValueError(f"unknown rewriter {kind!r}; expected llm, rules or off")
