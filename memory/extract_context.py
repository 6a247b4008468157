"""The session's earlier user messages as read-only context of an extraction job.

One job carries one user message, so "He prefers email" or "王总说预算可以再加" cannot be
attributed when the person was named a message earlier, and "no, make that 2 million"
lacks its topic. The extractor is given the session's earlier user messages as
context: the rules read names, the topic and dated events from them, the model's prompt
shows them, and every fact still comes from the new message only (a context fact is
dropped by its message id, so nothing is extracted twice).

Context is what the store already keeps: redacted, and screened by the injection rules
like an episode (a flagged message is never shown to the extractor). A message's episode
was screened when it was stored, so its verdict is reused (``stored``) rather than the
screen run again on every later job of the session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memagent.core.types import Turn
from memagent.memory.episodes import SCREEN_DEEP
from memagent.memory.extract_corrections import retracts_previous
from memagent.memory.extract_cues import self_note
from memagent.memory.write_path import _instruction_reason, _redact
from memagent.memory.write_types import Candidate, WriteConfig

CONTEXT_MESSAGES = 3
"""Earlier user messages a job sees: the person or topic a message refers back to is
almost always named in the last two or three."""
CONTEXT_CHARS = 600
"""Most characters of context: the model reads ~100 prompt tokens a second."""
CONTEXT_ID = "context:"
"""Message-id prefix of a context turn inside the extractor: facts carrying it are the
context's own and are never returned."""


def _field(turn: Mapping[str, Any] | Turn, name: str) -> str:
    value = turn.get(name, "") if isinstance(turn, Mapping) else getattr(turn, name, "")
    return str(value or "")


def session_context(
    earlier: Sequence[Mapping[str, Any] | Turn],
    new: Sequence[Turn],
    *,
    config: WriteConfig | None = None,
    limit: int = CONTEXT_MESSAGES,
    chars: int = CONTEXT_CHARS,
    stored: Callable[[str], bool | None] | None = None,
) -> list[Turn]:
    """The user messages of ``earlier`` (a stored transcript, or the turns a run carries)
    said before the job's ``new`` turns: the last ``limit`` of them within ``chars``,
    redacted, and none the injection screen flags or the user marked not for memory, nor
    one the user took back ("Scratch that, wrong account", "刚才那条作废": its memories are
    closed, ``write_retract``) or the take-back itself.
    Where a new turn's id is in ``earlier``, only what precedes it counts.
    ``stored``: the screen's verdict kept with a message id (``episodes.stored_verdicts``:
    True flagged, None unknown); a message without one is screened here."""
    cfg = config or WriteConfig()
    new_ids = {t.id for t in new if t.id}
    ids = [_field(t, "id") for t in earlier]
    first = next((i for i, mid in enumerate(ids) if mid and mid in new_ids), len(earlier))
    picked: list[Turn] = []
    used = 0
    opener = next((t.content for t in new if t.role == "user" and t.content.strip()), "")
    taken_back = retracts_previous(opener)
    for turn in reversed(earlier[:first]):
        text = _field(turn, "content").strip()
        if _field(turn, "role") != "user" or not text:
            continue
        if retracts_previous(text):  # "Scratch that, wrong account": it and the message
            taken_back = True  # before it say nothing about this customer
            continue
        if taken_back or self_note(text):
            taken_back = False
            continue
        if cfg.check_instructions and _flagged(text, _field(turn, "id"), cfg, stored):
            continue  # a flagged message is kept for audit, never read as context
        if cfg.redact:
            text = _redact(text, cfg.redaction_key)[0]
        if picked and used + len(text) > chars:
            break
        text = text[-chars:]
        used += len(text)
        picked.append(Turn("user", text, _field(turn, "id"), _field(turn, "at")))
        if len(picked) >= limit:
            break
    return picked[::-1]


def _flagged(
    text: str, message_id: str, cfg: WriteConfig, stored: Callable[[str], bool | None] | None
) -> bool:
    known = stored(message_id) if stored is not None and message_id else None
    if known is not None:
        return known
    return _instruction_reason(text, cfg.instruction_model, deep=SCREEN_DEEP) is not None


def as_context(context: Sequence[Turn]) -> list[Turn]:
    """Context turns as the extractor reads them: user turns whose ids mark them."""
    return [Turn("user", t.content, f"{CONTEXT_ID}{i}", t.at) for i, t in enumerate(context)]


def from_context(cand: Candidate) -> bool:
    """A fact read in a context turn (``as_context``), not in the job's own message."""
    return any(m.startswith(CONTEXT_ID) for m in cand.message_ids)
