"""Episodes: every user turn as one recallable item, indexed with its context.

Facts are what extraction understood; an episode is what the salesperson actually wrote,
so nothing said is lost when the extractor misses it. One item per user turn, in the
customer's ``episodes`` namespace (beside the session transcripts ``write_episode`` keeps
for audit, which have no ``status`` and so never match recall's ``status: active``
filter). Why each choice:

- **User turns only.** The assistant's words are not statements about the customer; they
  appear only in an episode's ``context`` (what the turn answered).
- **Redacted and screened** by the same hooks as the write path: PII becomes keyed
  placeholders, and a turn the injection screen flags (rules and n-gram judge, see ``SCREEN_DEEP``)
  is kept for audit with status ``flagged`` and ``index=False``: never searchable, never
  recalled.
- **Indexed the way the LoCoMo work found best** (``bench/locomo_experiments.py``): the
  turn is the ``content`` (one vector, BM25), its session date and the ``CONTEXT_TURNS``
  turns before it in the same session are a ``context`` field that the store indexes for
  keywords only (``HybridConfig.keyword_only_fields``).
- **Attributed**: a pasted dialog line ("Li Wei: we need SSO") is about its speaker
  (``speaker_of``), so recall's entity focus prefers it when a question names that person.
- **Idempotent by message id**: the key derives from the message id, so a replayed or
  re-run job finds the episode and writes nothing.
- **Outdated, not overriding**: when a fact is superseded, the episodes of the messages
  it came from get status ``outdated`` (``mark_outdated``) and leave recall, so an old
  quote never contradicts the newer fact; export and audit still show them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import BaseStore

from memagent.memory.extract_triggers import chatter
from memagent.memory.namespaces import namespace
from memagent.memory.write_cas import derived_id
from memagent.memory.write_path import WriteConfig, _instruction_reason, _redact

CONTEXT_TURNS = 2
"""Previous turns indexed with a turn. Dev recall@10 of the winning LoCoMo recipe with
1/2/3/4/6 previous turns: 0.753/0.768/0.771/0.761/0.754 (bench/locomo_experiments.py); 2 is
as good as 3 with shorter texts."""
SCREEN_DEEP = False
"""Episodes are screened by the injection rules and the n-gram judge (as the write config's
``instruction_model`` says), never the e5 probe: it read 49 of LoCoMo conv-26's 419 turns as
orders at p=1.00. The n-gram judge trains on LoCoMo chat turns of the other conversations
and reads none of conv-26's as orders (``bench/poison_loso.py``). An episode is quoted in
the briefing as the user's own dated words, inside the data block."""
EPISODE_TYPE = "episode"
INDEX_FIELDS = ["content", "context"]
EPISODE_IMPORTANCE = 0.5
EPISODE_CONFIDENCE = 0.8
"""The default confidence of an extracted fact: at equal relevance a fact and an episode
score the same, and recall's tie-break puts the fact first."""


_SPEAKER = re.compile(
    r"^\s*(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}|[\u3400-\u9fff]{2,3})\s*[:：]\s*\S"
)
_LABELS = (
    "note notes re subject update todo action summary budget deadline next steps ps q a fyi"
    " 备注 预算 时间 需求 客户 总结 下一步 问题 回答 地点 联系人 要求"
)
NOT_SPEAKERS = frozenset(_LABELS.split())
"""Labels that start a line like a speaker name but name no one."""


def speaker_of(text: str) -> str | None:
    """The person a pasted dialog line is attributed to (``"Li Wei: we need SSO"``), so
    recall's entity focus can prefer what that person said; None for any other text."""
    m = _SPEAKER.match(text)
    if m is None:
        return None
    name = m.group("name")
    return None if name.lower() in NOT_SPEAKERS or name.split()[0].lower() in NOT_SPEAKERS else name


_REQUEST = re.compile(
    r"^(?:(?:please|pls|kindly|ok(?:ay)?|so|now|hey|hi)\b[\s,]*)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:brief|debrief|tell|show|give|catch|fill|update|walk|get|bring|prep|prepare)"
    r"\s+(?:me|us)\b(?!\s+to\b)|remind\s+(?:me|us)\s+(?:about|of|what|who|when|how|where)\b"
    r"|(?:summari[sz]e|recap|list|look\s+up|explain|describe|what\s+about|how\s+about)\b)"
    r"|^(?:请|麻烦)?你?(?:帮我|给我|替我|跟我|和我)?(?:介绍|说说|讲讲|说一下|讲一下|总结|梳理"
    r"|汇总|回顾|概括|查一下|查查|看看|看一下|告诉我)",
    re.IGNORECASE,
)
"""A request for information addressed to the assistant ("brief me", "tell me about",
"介绍一下", "帮我梳理"); a to-do ("remind me to email Li Wei", "帮我约李伟") is not one."""
_CLAIM = re.compile(r"\b(?:that|since|because|which)\b|\d|[:：]|因为|所以", re.IGNORECASE)
_PIECES = re.compile(r"(?<=[.!?。！？；;\n])\s*|[,，;；]\s*")
_FILLER = re.compile(
    r"^(?:please|pls|thanks|thank you|ok(?:ay)?|now|then|again|quickly|谢谢|好吗|可以吗|行吗)$",
    re.IGNORECASE,
)


def asks_only(text: str) -> bool:
    """True when ``text`` only asks the assistant for something and states nothing about
    the customer: questions and small talk (``chatter``), and requests for information
    addressed to the assistant ("Brief me before the call with Acme Logistics.", "Tell
    me about Acme", "介绍一下这个客户", "帮我总结一下华信的情况"). Every piece (sentence or
    comma-separated clause) must be one of them, so "Brief me, they moved the demo to
    Friday" states something; a request that carries a claim ("remind me that the
    budget is 2M", a figure, a colon) is a statement too. The briefing quotes no such
    episode: what the user asked says nothing the notes do not."""
    pieces = [p.strip() for p in _PIECES.split(text)]
    pieces = [p for p in pieces if p.strip(" .!?~。！？") and not _FILLER.match(_bare(p))]
    if not pieces:
        return chatter(text)
    return all(chatter(p) or _request(_bare(p)) for p in pieces)


def _bare(piece: str) -> str:
    return piece.strip(" .!?~。！？")


def _request(piece: str) -> bool:
    return bool(_REQUEST.match(piece)) and not _CLAIM.search(piece)


def day_label(at: datetime) -> str:
    """``"8 May, 2023"``: the day as LoCoMo writes session dates, so "in May 2023" and
    "on 8 May" match by keyword."""
    return f"{at.day} {at:%B}, {at.year}"


def episode_context(day: str, previous: Sequence[str], before: int = CONTEXT_TURNS) -> str:
    """What makes a turn findable beyond its own words: ``[day]`` and the ``before`` turns
    it answers (oldest first), one per line. Only earlier turns, so it is known at
    ingestion time."""
    parts = [f"[{day}]"] if day else []
    parts += list(previous[-before:]) if before > 0 else []
    return "\n".join(parts)


def episode_key(message_id: str, *, thread_id: str = "", content: str = "", at: str = "") -> str:
    """The episode's key: from the message id (a replay finds it), else from where and
    when the text was said."""
    if message_id:
        return derived_id("episode", message_id)
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]
    return derived_id("episode", thread_id, at, digest)


def parse_at(value: str, default: datetime) -> datetime:
    if not value:
        return default
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return default
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass
class EpisodeReport:
    """What ``write_turn_episodes`` did with the user turns of one job."""

    indexed: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, int]:
        return {
            "indexed": len(self.indexed),
            "flagged": len(self.flagged),
            "existing": len(self.existing),
        }


def episode_value(
    turn: Any,
    *,
    thread_id: str,
    previous: Sequence[str],
    now: datetime,
    config: WriteConfig,
) -> tuple[dict[str, Any], bool]:
    """The stored value of one user turn and whether it may be indexed (not flagged)."""
    raw = str(getattr(turn, "content", ""))
    text, found = _redact(raw, config.redaction_key) if config.redact else (raw, [])
    reason = (
        _instruction_reason(raw, config.instruction_model, deep=SCREEN_DEEP)
        if config.check_instructions
        else None
    )
    at = parse_at(str(getattr(turn, "at", "") or ""), now)
    value: dict[str, Any] = {
        "type": EPISODE_TYPE,
        "role": "user",
        "content": text,
        "context": episode_context(day_label(at), previous),
        "message_id": str(getattr(turn, "id", "") or ""),
        "thread_id": thread_id,
        "at": at.isoformat(),
        "entity": speaker_of(text) or "customer",
        "importance": EPISODE_IMPORTANCE,
        "confidence": EPISODE_CONFIDENCE,
        "created_at": now.isoformat(),
        "last_accessed_at": now.isoformat(),
        "status": "flagged" if reason else "active",
        "redacted": found,
    }
    if config.check_instructions:
        value["screen"] = screen_name(config)
    if reason:
        value["flag_reason"] = reason
    return value, reason is None


SCREENS = ("rules", "rules+ngram")
"""The injection screens an episode's verdict can come from, weakest first (``SCREEN_DEEP``
is off, so the e5 probe never screens an episode)."""


def screen_name(config: WriteConfig) -> str:
    """The screen ``config`` runs on an episode: the rules, plus the n-gram judge when the
    learned screen is on (``instruction_model``)."""
    return SCREENS[1] if config.instruction_model else SCREENS[0]


def stored_verdicts(
    store: BaseStore, user_id: str, customer_id: str, *, config: WriteConfig
) -> Callable[[str], bool | None]:
    """The injection screen's verdict on a message, as its episode stored it: True when the
    episode was flagged, False when it passed, None when there is no episode of that message
    or its screen was weaker than the one ``config`` runs (the caller screens it then).
    Episodes are screened when they are written, so a later job that shows the message
    again (``extract_context``) need not run the screen a second time."""
    ns = namespace(user_id, customer_id, "episodes")
    needed = SCREENS.index(screen_name(config))

    def verdict(message_id: str) -> bool | None:
        item = store.get(ns, episode_key(message_id)) if message_id else None
        value = item.value if item is not None else {}
        screen = value.get("screen")
        if value.get("type") != EPISODE_TYPE or screen not in SCREENS:
            return None
        if SCREENS.index(screen) < needed:
            return None
        return value.get("status") == "flagged"

    return verdict


def write_turn_episodes(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    thread_id: str,
    turns: Sequence[Any],
    *,
    transcript: Sequence[dict[str, Any]] = (),
    now: datetime | None = None,
    config: WriteConfig | None = None,
) -> EpisodeReport:
    """Store every user turn of ``turns`` as an episode (once per message id).

    ``transcript`` is the session's redacted transcript (``write_episode``'s turns): a
    turn's context is the ``CONTEXT_TURNS`` entries before it there, or, for a turn not in
    it, the turns before it in ``turns``.
    """
    cfg = config or WriteConfig()
    now = now or datetime.now(UTC)
    ns = namespace(user_id, customer_id, "episodes")
    report = EpisodeReport()
    texts = [str(t.get("content", "")) for t in transcript]
    position = {str(t.get("id")): i for i, t in enumerate(transcript) if t.get("id")}
    for i, turn in enumerate(turns):
        if getattr(turn, "role", "") != "user" or not str(getattr(turn, "content", "")).strip():
            continue
        mid = str(getattr(turn, "id", "") or "")
        key = episode_key(
            mid, thread_id=thread_id, content=str(turn.content), at=str(getattr(turn, "at", ""))
        )
        if store.get(ns, key) is not None:
            report.existing.append(key)
            continue
        if mid in position:
            previous = texts[: position[mid]]
        else:
            previous = [str(t.content) for t in turns[:i] if str(getattr(t, "content", "")).strip()]
        value, indexable = episode_value(
            turn, thread_id=thread_id, previous=previous, now=now, config=cfg
        )
        store.put(ns, key, value, index=INDEX_FIELDS if indexable else False)
        (report.indexed if indexable else report.flagged).append(key)
    return report


def mark_outdated(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    message_ids: Iterable[str],
    *,
    by: Sequence[str],
    now: datetime | None = None,
) -> list[str]:
    """Episodes of ``message_ids`` leave recall: a fact they produced was superseded by
    one from the messages ``by`` (message ids, not memory ids, so deleting that memory
    leaves no trace here). Returns the keys marked (an episode already outdated is left)."""
    ns = namespace(user_id, customer_id, "episodes")
    now = now or datetime.now(UTC)
    marked = []
    for mid in dict.fromkeys(m for m in message_ids if m):
        key = episode_key(mid)
        item = store.get(ns, key)
        if item is None or item.value.get("status") != "active":
            continue
        value = {**item.value, "status": "outdated", "outdated_by": list(by),
                 "outdated_at": now.isoformat()}  # fmt: skip
        store.put(ns, key, value, index=INDEX_FIELDS)
        marked.append(key)
    return marked


def outdate_superseded(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    versioned: Iterable[tuple[str, str]],
) -> list[str]:
    """For each ``(new fact key, superseded fact key)``: mark the episodes of the messages
    the superseded fact came from, except messages the new fact also came from."""
    facts = namespace(user_id, customer_id, "facts")
    marked: list[str] = []
    for new_key, old_key in versioned:
        old, new = store.get(facts, old_key), store.get(facts, new_key)
        if old is None:
            continue
        old_ids = _message_ids(old.value)
        keep = set(_message_ids(new.value)) if new is not None else set()
        marked += mark_outdated(
            store, user_id, customer_id, [m for m in old_ids if m not in keep], by=sorted(keep)
        )
    return marked


def _message_ids(value: dict[str, Any]) -> list[str]:
    source = value.get("source") or {}
    return [str(m) for m in source.get("message_ids") or []]


def delete_turn_episodes(
    store: BaseStore, user_id: str, customer_id: str, message_ids: Iterable[str]
) -> int:
    """Delete the episodes of ``message_ids`` (a memory deleted with what it came from)."""
    ns = namespace(user_id, customer_id, "episodes")
    removed = 0
    for mid in dict.fromkeys(m for m in message_ids if m):
        key = episode_key(mid)
        if store.get(ns, key) is not None:
            store.delete(ns, key)
            removed += 1
    return removed
