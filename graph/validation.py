"""Checks of what a user types, before anything is sent or stored.

Pure and cheap to import (no LangGraph): the CLI runs them before it starts or asks the
service, and ``arun_turn`` runs them again for library callers. User and customer ids
are checked where every store access gets its namespace (``memagent.memory.namespaces``,
via ``Crm.check_scope``).
"""

from __future__ import annotations

import re
import unicodedata

MAX_MESSAGE_CHARS = 32_000
MAX_SESSION_LEN = 200
_SURROGATE = re.compile("[\ud800-\udfff]")


class InvalidMessageError(ValueError):
    """An empty or oversized user message (nothing was sent or stored)."""


def _check_unicode(name: str, value: str, error: type[Exception]) -> None:
    """Reject a lone surrogate (undecodable terminal bytes kept by surrogateescape): it
    cannot be encoded as UTF-8, so the tokenizer, the checkpointer, the model request and
    the store would each fail on it later, mid-turn."""
    bad = _SURROGATE.search(value)
    if bad is not None:
        raise error(f"{name} is not valid Unicode text (lone surrogate at character {bad.start()})")


def validate_session(session: str | None) -> None:
    """A session id a person can type back (``None`` starts a new session): not blank, at
    most ``MAX_SESSION_LEN`` characters, no control characters, valid Unicode; raises
    ``InvalidScopeError``."""
    from memagent.memory.namespaces import InvalidScopeError, check_text_id

    if session is None:
        return
    check_text_id("session id", session, max_len=MAX_SESSION_LEN)
    bad = next((i for i, c in enumerate(session) if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise InvalidScopeError(f"session id must not contain control characters (at {bad})")


def validate_message(message: str) -> str:
    if not message or not message.strip():
        raise InvalidMessageError("the message is empty")
    if len(message) > MAX_MESSAGE_CHARS:
        raise InvalidMessageError(
            f"the message has {len(message)} characters; the limit is {MAX_MESSAGE_CHARS}"
        )
    _check_unicode("the message", message, InvalidMessageError)
    return message


MAX_MEMORY_CHARS = 4000
"""Longest text ``memories add`` takes (what the write path condenses into a record)."""


def validate_memory_text(text: str) -> str:
    """A manual memory's text: not blank, at most ``MAX_MEMORY_CHARS``, valid Unicode;
    raises ``InvalidMessageError``."""
    if not text or not text.strip():
        raise InvalidMessageError("the memory text is empty")
    if len(text) > MAX_MEMORY_CHARS:
        raise InvalidMessageError(
            f"the memory text has {len(text)} characters; the limit is {MAX_MEMORY_CHARS}"
        )
    _check_unicode("the memory text", text, InvalidMessageError)
    return text
