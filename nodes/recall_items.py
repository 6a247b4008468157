"""Recalled items: one memory in the briefing, its score, and the choice of the briefing.

``score_candidate`` scores one stored value; ``select`` fuses pinned and found items
into the briefing; ``with_pending`` adds the unconfirmed facts after them. Split out of
``memagent.nodes.recall``, which re-exports every public name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

from memagent.memory.extract_triggers import chatter
from memagent.memory.scoring import ScoreWeights, score

FACT_SLOTS = 3
"""Briefing slots episodes may not take while that many facts qualify, so quotes of
what was said never crowd out what is known (``select``)."""

FOUND = ("search", "episode")
"""Origins of items the search found (pinned and pending items are added, not found)."""

Origin = Literal["search", "profile", "commitment", "overview", "pending", "episode"]
"""Why an item is in the briefing: found by the search, pinned at session start (profile,
commitments), pinned for a broad question (overview), an unconfirmed fact (pending), or
what the user said in an earlier turn (episode)."""


@dataclass
class RecalledItem:
    """One memory in the briefing, with the parts of its score (for ``/why`` and --json)."""

    key: str
    content: str
    type: str
    origin: Origin
    relevance: float
    recency: float
    importance: float
    confidence: float
    score: float
    dense: float | None = None
    keyword: float | None = None
    status: Literal["active", "unconfirmed"] = "active"
    """``unconfirmed``: a pending fact, held until a second mention; the briefing says so."""
    at: str | None = None
    """When an episode was said (ISO 8601); None for facts."""
    message_ids: list[str] = field(default_factory=list)
    """The messages the item came from (a fact's sources, an episode's own message)."""
    slot: str | None = None
    """A fact's versioning key (``customer:decision_maker``); the briefing labels the
    fact with it (``memagent.nodes.briefing_labels``). None for episodes."""
    value: str | None = None
    """A fact's structured value (``li wei``, ``1200000 CNY``), when it has one."""


@dataclass
class RecallResult:
    """What recall found for one query, and how (the recall trace)."""

    items: list[RecalledItem] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    mode: str = "hybrid"
    searched: bool = False
    candidates: int = 0
    elapsed_ms: float = 0.0
    degraded: bool = False
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def briefing(self) -> list[dict[str, Any]]:
        """The items as injected into the prompt (content, type, score)."""
        return [
            {
                "content": i.content,
                "type": i.type,
                "score": round(i.score, 4),
                "key": i.key,
                "origin": i.origin,
                "status": i.status,
            }
            | ({"date": i.at} if i.at else {})
            | ({"slot": i.slot} if i.slot else {})
            | ({"value": i.value} if i.value else {})
            for i in self.items
        ]

    def trace(self) -> dict[str, Any]:
        """JSON-friendly trace written into state."""
        data = asdict(self)
        data["elapsed_ms"] = round(self.elapsed_ms, 1)
        return data


def _parse_time(value: Any, default: datetime) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return default
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return default


def _as_float(value: Any, default: float) -> float:
    try:
        return min(1.0, max(0.0, float(value)))
    except (TypeError, ValueError):
        return default


def score_candidate(
    value: dict[str, Any],
    key: str,
    *,
    relevance: float,
    origin: Origin,
    weights: ScoreWeights,
    now: datetime,
    dense: float | None = None,
    keyword: float | None = None,
) -> RecalledItem | None:
    """Score one stored value; ``None`` when it is not an active record with content (a
    pending one passes when ``origin`` is ``pending``)."""
    content = value.get("content") or value.get("summary")
    if not isinstance(content, str) or not content.strip():
        return None
    if value.get("status", "active") != "active" and origin != "pending":
        return None
    parts = score(
        relevance=relevance,
        last_accessed_at=_parse_time(value.get("last_accessed_at"), now),
        importance=_as_float(value.get("importance"), 0.5),
        confidence=_as_float(value.get("confidence"), 0.8),
        now=now,
        weights=weights,
    )
    text = " ".join(content.split())
    if len(text) > weights.max_chars:
        text = text[: weights.max_chars - 1] + "…"
    return RecalledItem(
        key=key,
        content=text,
        type=str(value.get("type", "fact")),
        origin=origin,
        relevance=round(parts.relevance, 4),
        recency=round(parts.recency, 4),
        importance=round(parts.importance, 4),
        confidence=round(parts.confidence, 4),
        score=round(parts.score, 4),
        dense=dense,
        keyword=keyword,
        status="unconfirmed" if origin == "pending" else "active",
        at=str(value["at"]) if origin == "episode" and value.get("at") else None,
        message_ids=_sources(value),
        slot=_slot(value) if origin != "episode" else None,
        value=_text(value.get("value")) if origin != "episode" else None,
    )


def _slot(value: dict[str, Any]) -> str | None:
    """A stored record's versioning key (``entity:attribute``, as ``MemoryRecord.key``)."""
    entity, attribute = _text(value.get("entity")), _text(value.get("attribute"))
    return f"{entity}:{attribute}" if entity and attribute else _text(value.get("key"))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _sources(value: dict[str, Any]) -> list[str]:
    if value.get("type") == "episode":
        return [str(value["message_id"])] if value.get("message_id") else []
    source = value.get("source")
    ids = source.get("message_ids") if isinstance(source, dict) else None
    return [str(m) for m in ids] if isinstance(ids, list) else []


def _plain(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def select(
    pinned: list[RecalledItem],
    found: list[RecalledItem],
    weights: ScoreWeights,
    *,
    fact_slots: int = FACT_SLOTS,
) -> list[RecalledItem]:
    """Pinned items (profile, commitments) first, then found facts and episodes above the
    threshold in one list by score (a fact before an episode on a tie); one entry per key,
    at most ``weights.max_items``, of which episodes leave ``fact_slots`` to facts while
    that many facts qualify.

    One entry per message: a quote (episode) of a message a chosen fact came from is
    dropped, and a fact found after the quote of its only message takes that quote's
    place (``_own_quote``), so the slot goes to the next item."""
    by_key = {i.key: i for i in found}
    # The search's real relevance wins; the origin stays "profile"/"commitment", so the
    # trace says why the item is in the briefing whatever its score.
    pinned = [replace(by_key[p.key], origin=p.origin) if p.key in by_key else p for p in pinned]
    above = sorted(
        (i for i in found if i.score >= weights.threshold),
        key=lambda i: (_only_asks(i), -i.score, i.origin == "episode"),
    )
    facts = {i.key: _plain(i.content) for i in [*pinned, *above] if i.origin != "episode"}
    episode_cap = weights.max_items - min(fact_slots, len(facts))
    seen: set[str] = set()
    quoted: set[str] = set()  # messages a chosen fact came from
    out: list[RecalledItem] = []
    episodes = 0
    for item in [*pinned, *above]:
        if item.key in seen:
            continue
        at = _own_quote(out, item)
        if at is not None:  # no new slot: the fact takes its quote's place
            seen.add(item.key)
            quoted.update(item.message_ids)
            out[at] = item
            episodes -= 1
            continue
        if len(out) >= weights.max_items:
            continue
        if item.origin == "episode":
            # A quote of a message a chosen fact came from, or that only repeats a
            # fact's sentence, adds nothing to the briefing.
            if (
                episodes >= episode_cap
                or _plain(item.content) in facts.values()
                or quoted.intersection(item.message_ids)
            ):
                continue
            episodes += 1
        else:
            quoted.update(item.message_ids)
        seen.add(item.key)
        out.append(item)
    return out


def _only_asks(item: RecalledItem) -> bool:
    """A quote that states nothing, only questions or small talk ("What is Acme's budget
    now?", ``chatter``): what the user asked says nothing about the customer, so it only
    fills slots no statement wants (the salesperson's earlier questions crowded out the fact
    they asked about)."""
    return item.origin == "episode" and chatter(item.content)


def _own_quote(chosen: list[RecalledItem], fact: RecalledItem) -> int | None:
    """Where in ``chosen`` the quote of ``fact``'s only message sits (None: no such quote,
    or the fact came from several messages, whose quotes each say more than it does)."""
    if fact.origin == "episode" or len(set(fact.message_ids)) != 1:
        return None
    for at, item in enumerate(chosen):
        if item.origin == "episode" and set(fact.message_ids) <= set(item.message_ids):
            return at
    return None


def with_pending(
    items: list[RecalledItem], pending: list[RecalledItem], weights: ScoreWeights
) -> list[RecalledItem]:
    """``items`` plus the unconfirmed facts. A pending fact whose message's quote (an
    episode) is among ``items`` takes that quote's place: the search ranked what was said
    there, and the fact says the same, labelled unconfirmed (sent last, a quote found
    first fell to the end of the briefing, or out of it). The other pending facts come
    after the found items; when the list is full, the weakest (last-ranked) found items,
    facts and episodes alike, make room (pinned items never do)."""
    if not pending:
        return items
    kept = list(items)
    rest: list[RecalledItem] = []
    for fact in pending:
        said = set(fact.message_ids)
        quotes = [
            j for j, i in enumerate(kept) if i.origin == "episode" and said & set(i.message_ids)
        ]
        if not quotes:
            rest.append(fact)
            continue
        kept[quotes[0]] = fact
        # any other quote of its messages says the same thing, unlabelled
        kept = [i for j, i in enumerate(kept) if j not in quotes[1:]]
    room = weights.max_items - len(rest)
    while len(kept) > room and any(i.origin in FOUND for i in kept):
        # found items are in rank order (``select``): the last is the weakest, also when
        # a fact took its quote's better place
        weakest = next(i for i in reversed(kept) if i.origin in FOUND)
        kept.remove(weakest)
    return [*kept, *rest][: weights.max_items]
