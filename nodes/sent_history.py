"""The conversation as the model was sent it: each earlier user message in the prompt's
history carries the briefing (and any cut) it was sent with, so the next turn's prompt
only appends to the previous one and the local server reuses its evaluated prefix.

The stored conversation (``messages``: ``sessions show``, Studio) keeps the user's own
words. The as-sent copies live in the checkpointed ``prompt`` of the last turn (same id
as the stored message), marked in their metadata with the briefing lines they quote and
a digest of the words they were made from; a stored message edited since (a Studio
fork) no longer matches its digest and is shown as stored. Deleting a memory that a
prompt quotes clears that ``prompt`` (``memagent.graph.session_scrub``), so a deleted
memory is not carried on in the history either.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

from langchain_core.messages import BaseMessage, HumanMessage

from memagent.llm.tokens import content_text, count_message_tokens
from memagent.nodes.messages import META_KEY, meta

BRIEFED = "briefed"
"""Metadata key of an as-sent copy: the briefing lines it quotes."""
SOURCE = "sent_from"
"""Metadata key of an as-sent copy: digest of the stored words it was made from."""


def _digest(message: BaseMessage) -> str:
    return hashlib.sha256(content_text(message.content).encode()).hexdigest()[:16]


def mark_sent(copy: BaseMessage, stored: BaseMessage, lines: Sequence[str]) -> BaseMessage:
    """``copy`` (the prompt's version of ``stored``) marked as sent: the briefing ``lines``
    it quotes, the digest of ``stored``'s words, and its own token count."""
    data = {
        **meta(copy),
        BRIEFED: list(lines),
        SOURCE: _digest(stored),
        "tokens": count_message_tokens(copy),
    }
    return copy.model_copy(update={"additional_kwargs": {**copy.additional_kwargs, META_KEY: data}})


def sent_copies(prompt: Iterable[BaseMessage]) -> dict[str, BaseMessage]:
    """The marked user messages of a previous prompt, by id."""
    return {
        m.id: m
        for m in prompt
        if isinstance(m, HumanMessage) and m.id and isinstance(meta(m).get(SOURCE), str)
    }


def as_sent(history: Sequence[BaseMessage], sent: Mapping[str, BaseMessage]) -> list[BaseMessage]:
    """``history`` with each user message replaced by its as-sent copy when there is one
    made from the same words."""
    out: list[BaseMessage] = []
    for m in history:
        copy = sent.get(m.id) if m.id else None
        if copy is not None and meta(copy).get(SOURCE) == _digest(m):
            out.append(copy)
        else:
            out.append(m)
    return out


def briefed_lines(messages: Iterable[BaseMessage]) -> set[str]:
    """The briefing lines quoted by the as-sent copies among ``messages``."""
    lines: set[str] = set()
    for m in messages:
        value = meta(m).get(BRIEFED)
        if isinstance(value, list):
            lines.update(v for v in value if isinstance(v, str))
    return lines


def stored(messages: Sequence[BaseMessage], originals: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` (some maybe as-sent copies) as stored: by id from ``originals``."""
    by_id = {m.id: m for m in originals if m.id}
    return [by_id.get(m.id, m) if m.id else m for m in messages]
