"""The graph's first node: a turn's new user messages pass ``validate_message`` or the
run fails, and a rejected message is kept nowhere.

The CLI and ``arun_turn`` check a message before they send it; Studio and any other
LangGraph client put it straight into the graph, whose input is already in the thread's
state when the first node runs. Session 12 made such a run fail at once (an empty message
had got a model reply, a 44,000-character one two 120 s model timeouts) by raising in
``query_rewrite``; but a failing node writes nothing, so the rejected message stayed in
the thread, and the next turn's extraction job (``latest_turn`` joins the unanswered
user messages before a reply), summary and prompt took it in with that turn's message.
Now ``check_message`` removes the rejected messages from the thread in the same step
that routes to ``reject_message``, which fails the run with the CLI's own one-line error.
A run whose context names a customer id that breaks ``CUSTOMER_ID_RULE`` is rejected
the same way, before anything is stored under that id.
"""

from __future__ import annotations

from typing import Any, Final

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.runtime import Runtime
from langgraph.types import Command, Send

from memagent.core.context import Context
from memagent.core.state import State
from memagent.graph.validation import InvalidMessageError, validate_message
from memagent.memory.namespaces import InvalidScopeError, check_customer_id

CHECK_MESSAGE: Final = "check_message"
REJECT_MESSAGE: Final = "reject_message"


def _rejected(state: State, context: Context | None) -> tuple[list[str], Exception | None]:
    """The ids of this turn's user messages (those after the last assistant message) that
    fail ``validate_message``, and the first one's error. When the run's customer id
    breaks ``CUSTOMER_ID_RULE`` (a Studio assistant's context; the CLI checks it before it
    sends anything): the run's own message, the last one, and that error."""
    try:
        check_customer_id((context or Context()).customer_id)
    except InvalidScopeError as exc:
        turn = _this_turn(state)
        return ([str(turn[-1].id)] if turn and turn[-1] is state.messages[-1] else []), exc
    ids: list[str] = []
    first: Exception | None = None
    for message in reversed(_this_turn(state)):
        try:
            validate_message(str(message.text))
        except InvalidMessageError as exc:
            ids.append(str(message.id))
            first = exc  # walking backwards: the earliest one's error wins
    return ids, first


def _this_turn(state: State) -> list[HumanMessage]:
    """The user messages after the last assistant message."""
    turn: list[HumanMessage] = []
    for message in reversed(state.messages):
        if isinstance(message, AIMessage):
            break
        if isinstance(message, HumanMessage):
            turn.append(message)
    return turn[::-1]


def make_check_message(next_node: str) -> Any:
    """The ``check_message`` node: on to ``next_node``, or (a rejected message) the
    message removed and on to ``reject_message`` with the error."""

    async def check_message(state: State, runtime: Runtime[Context]) -> Command[Any]:
        ids, error = _rejected(state, runtime.context)
        if error is None:
            return Command(goto=next_node)
        scope = isinstance(error, InvalidScopeError)
        return Command(
            update={"messages": [RemoveMessage(id=i) for i in ids]},
            goto=Send(REJECT_MESSAGE, {"error": str(error), "scope": scope}),
        )

    return check_message


async def reject_message(arg: Any) -> dict[str, Any]:
    """Fail the run with the rejected message's error (the message is gone already);
    ``arg`` is ``check_message``'s ``Send`` payload, ``{"error": ..., "scope": bool}``."""
    error = str((arg.get("error") if isinstance(arg, dict) else None) or "rejected")
    if isinstance(arg, dict) and arg.get("scope"):
        raise InvalidScopeError(error)
    raise InvalidMessageError(error)
