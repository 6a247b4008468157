"""A reply that repeats an earlier reply of the conversation (word for word, or nearly).

The bundled 1.5B model copies an earlier assistant reply from the prompt's history
when the new question is broad: in Studio, "What do you know about Acme?" right after
the note that stated the facts was answered with the note turn's reply ("I'm sorry, but
I don't have enough information …"), the facts quoted beside the question unused; with
any other first reply ("Noted: …") it copied that one, or nearly ("I'm sorry, but I don't
have any information about Acme in my notes. Can you please provide me with more context
…", the first reply with one clause changed). Moving the briefing (before or
after the question, or into the system message) did not stop it; the same prompt
without the copied reply was answered from the facts. So the llm node asks again,
once, with the reply it copied left out of the prompt (``without_replies``); the
user's messages and every other reply stay.

``repeated`` is the check the node makes: the reply's words, in order, match an earlier
reply's for at least ``NEAR`` of both (difflib's ratio over words; a reply that only shares
a fact with an earlier one, "… budget of 2 million CNY. Li Wei, the decision maker …",
scores 0.4 against it, the near copy above 0.76). ``same_start`` is the check the CLI's
token stream makes while a reply is still coming (``memagent.graph.turn_run``): a word
for word copy that is asked again is not shown. Both read whitespace-collapsed,
case-folded text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

from langchain_core.messages import AIMessage, BaseMessage

NEAR = 0.7
"""Share of words (difflib's ratio over the two replies' words) from which a reply counts
as a copy of an earlier one."""


def flat(text: str) -> str:
    """``text`` as the comparison sees it: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def _reply_text(message: BaseMessage) -> str | None:
    """The text of an assistant reply (not a tool call turn), or None."""
    if not isinstance(message, AIMessage) or message.tool_calls:
        return None
    return str(message.text)


def earlier_replies(messages: Iterable[BaseMessage]) -> list[str]:
    """The assistant replies among ``messages``, flattened (empty ones left out)."""
    texts = (_reply_text(m) for m in messages)
    return [flat(t) for t in texts if t is not None and t.strip()]


def repeated(reply: BaseMessage, prompt: Sequence[BaseMessage]) -> list[int]:
    """Positions in ``prompt`` of the earlier replies ``reply`` repeats (``NEAR``)."""
    text = _reply_text(reply)
    if text is None or not text.strip():
        return []
    mine = flat(text).split()
    return [
        i
        for i, m in enumerate(prompt)
        if (t := _reply_text(m)) is not None
        and SequenceMatcher(None, mine, flat(t).split(), autojunk=False).ratio() >= NEAR
    ]


def without_replies(prompt: Sequence[BaseMessage], positions: Iterable[int]) -> list[BaseMessage]:
    """``prompt`` without the messages at ``positions`` (the replies a reply copied)."""
    drop = set(positions)
    return [m for i, m in enumerate(prompt) if i not in drop]


def same_start(text: str, replies: Sequence[str]) -> bool:
    """Whether ``text`` (a reply still streaming) is so far the start of one of the
    flattened ``replies``: it may still turn out a copy."""
    start = flat(text)
    return any(r.startswith(start) for r in replies)
