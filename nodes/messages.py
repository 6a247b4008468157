"""Per-message metadata: when, which turn, which channel, how many tokens.

Stored under ``additional_kwargs["memagent"]`` because that survives the
checkpointer's serialisation and ChatOpenAI does not send unknown keys of it to
the endpoint. Messages are never mutated in place: ``stamp`` returns a copy
with the same id, so returning it from a node replaces the stored message
(``add_messages`` merges by id).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage

from memagent.llm.tokens import count_message_tokens

META_KEY = "memagent"

Channel = Literal["chat", "tool", "system", "cli", "api", "email"]

M = TypeVar("M", bound=BaseMessage)


def meta(message: BaseMessage) -> dict[str, Any]:
    """The memagent metadata of a message ({} when it was never stamped)."""
    value = message.additional_kwargs.get(META_KEY)
    return value if isinstance(value, dict) else {}


def is_stamped(message: BaseMessage) -> bool:
    return bool(meta(message))


def default_channel(message: BaseMessage) -> Channel:
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, SystemMessage):
        return "system"
    return "chat"


def stamp(
    message: M,
    *,
    turn: int,
    channel: Channel | None = None,
    now: datetime | None = None,
    **extra: Any,
) -> M:
    """A copy of ``message`` carrying timestamp, turn id, channel and token count.

    Gives the message an id when it has none, so later updates and the
    summary's ``summarized_ids`` can refer to it.
    """
    if turn < 0:
        raise ValueError(f"turn must be >= 0, got {turn}")
    at = (now or datetime.now(UTC)).isoformat()
    data = {
        "at": at,
        "turn": turn,
        "channel": channel or default_channel(message),
        "tokens": count_message_tokens(message),
        **extra,
    }
    kwargs = {**message.additional_kwargs, META_KEY: data}
    return message.model_copy(
        update={"additional_kwargs": kwargs, "id": message.id or str(uuid.uuid4())}
    )


def stamp_missing(
    messages: Sequence[BaseMessage], *, turn: int, now: datetime | None = None
) -> list[BaseMessage]:
    """Stamped copies of the messages that carry no metadata yet, in order.

    ``turn`` is the turn of the last HumanMessage; earlier messages get it minus
    the number of HumanMessages that follow them (a reply stamped one turn late
    still gets its own turn).
    """
    out: list[BaseMessage] = []
    later_humans = 0
    for m in reversed(messages):
        if not is_stamped(m):
            out.append(stamp(m, turn=max(0, turn - later_humans), now=now))
        if isinstance(m, HumanMessage):
            later_humans += 1
    return out[::-1]


def turn_of(message: BaseMessage) -> int | None:
    value = meta(message).get("turn")
    return value if isinstance(value, int) else None


def tokens_of(message: BaseMessage) -> int:
    """Stamped token count, or a fresh count for unstamped messages."""
    value = meta(message).get("tokens")
    return value if isinstance(value, int) else count_message_tokens(message)
