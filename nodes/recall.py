"""Recall: long-term memories for this turn, scored, filtered and budgeted.

``recall_memories`` is a plain function (the eval harness and the isolation tests call
it without a graph); ``make_recall_node`` wraps it as the graph's recall node for one
search mode chosen at build time. Failures of the store or the embedder never fail the
turn: the result is flagged ``degraded`` and the briefing is empty.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, GetOp, Item, PutOp

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State
from memagent.memory.namespaces import namespace
from memagent.memory.scoring import ScoreWeights, score
from memagent.nodes.recall_expand import (
    RecallTuning,
    feedback_terms,
    focus,
    named_entities,
    without_placeholders,
)
from memagent.nodes.recall_overview import is_overview, overview_keys
from memagent.nodes.recall_pending import pending_matches
from memagent.stores.protocols import MemoryStoreExtensions

logger = memagent_logger(__name__)

SearchMode = Literal["hybrid", "dense", "keyword"]
LockFactory = Callable[[str], AbstractContextManager[object]]
"""A named lock, as the write path takes it (``JobQueue.lock`` across processes)."""
DEFAULT_WEIGHTS = ScoreWeights()
DEFAULT_TUNING = RecallTuning()
MAX_PROFILE_ITEMS = 3
"""Top facts of the customer profile (``memagent.memory.profile``) pinned at session start."""
MAX_COMMITMENTS = 3
"""Open commitments shown at session start, before any question is asked."""
MAX_OVERVIEW_ITEMS = 7
"""Current facts pinned for a broad question about the account (``recall_overview``)."""
MAX_PENDING_ITEMS = 2
"""Unconfirmed facts (the speaker said "maybe", "可能") shown beside the confirmed ones."""
FACT_SLOTS = 3
"""Briefing slots episodes may not take while that many facts qualify, so quotes of
what was said never crowd out what is known (``select``)."""

# fmt: off
REFERENCE_MARKERS = (
    "last time", "previous", "as usual", "as always", "as before", "again", "we discussed",
    "we agreed", "remember", "上次", "上回", "之前", "以前", "按老规矩", "老规矩", "老样子",
    "照旧", "还是那样", "记得",
)
"""References to earlier sessions: they trigger recall even on a very short message."""
SMALL_TALK = frozenset((
    "ok", "okay", "k", "thanks", "thank you", "thx", "ok thanks", "hi", "hello", "hey", "yes",
    "no", "sure", "bye", "got it", "好", "好的", "谢谢", "嗯", "你好", "收到", "是的", "不",
    "行", "可以", "再见",
))
"""Whole messages that need no memory search."""
# fmt: on


Origin = Literal["search", "profile", "commitment", "overview", "pending", "episode"]
"""Why an item is in the briefing: found by the search, pinned at session start (profile,
commitments), pinned for a broad question (overview), an unconfirmed fact (pending), or
what the user said in an earlier turn (episode)."""


class RecallNode(Protocol):
    """The recall slot: reads the query, writes ``recall_trace`` and ``briefing``."""

    async def __call__(self, state: State, runtime: Runtime[Context]) -> dict[str, Any]: ...


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
            for i in self.items
        ]

    def trace(self) -> dict[str, Any]:
        """JSON-friendly trace written into state."""
        data = asdict(self)
        data["elapsed_ms"] = round(self.elapsed_ms, 1)
        return data


def refers_back(text: str) -> bool:
    """Whether a message refers to an earlier session ("last time", "上次", "按老规矩")."""
    lowered = text.lower()
    return any(marker in lowered for marker in REFERENCE_MARKERS)


def should_search(query: str) -> bool:
    """Whether a message is worth a memory search: not small talk, unless it refers back."""
    q = " ".join(query.lower().split())
    if not q:
        return False
    if refers_back(q):
        return True
    bare = q.strip(" .,!?~。，！？…")
    return bool(bare) and bare not in SMALL_TALK and len(bare) >= 2


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
    )


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
    that many facts qualify."""
    by_key = {i.key: i for i in found}
    # The search's real relevance wins; the origin stays "profile"/"commitment", so the
    # trace says why the item is in the briefing whatever its score.
    pinned = [replace(by_key[p.key], origin=p.origin) if p.key in by_key else p for p in pinned]
    above = sorted(
        (i for i in found if i.score >= weights.threshold),
        key=lambda i: (-i.score, i.origin == "episode"),
    )
    facts = {i.key: _plain(i.content) for i in [*pinned, *above] if i.origin != "episode"}
    episode_cap = weights.max_items - min(fact_slots, len(facts))
    seen: set[str] = set()
    quoted: set[str] = set()  # messages a chosen fact came from
    out: list[RecalledItem] = []
    episodes = 0
    for item in [*pinned, *above]:
        if item.key in seen or len(out) >= weights.max_items:
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


Hit = tuple[Any, float, float | None, float | None]
"""(item, relevance, dense score, keyword score) of one candidate."""


def _search(
    store: BaseStore,
    ns: tuple[str, ...],
    query: str,
    mode: SearchMode,
    result: RecallResult,
    limit: int,
) -> list[Hit]:
    """Candidates by the store's best search."""
    if isinstance(store, MemoryStoreExtensions):
        hits = store.search_scored(
            ns, query=query, mode=mode, filter={"status": "active"}, limit=limit
        )
        return [(h.item, float(h.relevance), h.dense, h.keyword) for h in hits]
    if mode == "keyword":
        result.notes.append("store has no keyword search; used its default search")
    items = store.search(ns, query=query, filter={"status": "active"}, limit=limit)
    return [(i, max(0.0, float(i.score or 0.0)), i.score, None) for i in items]


def _content(item: Any) -> str:
    value = item.value if isinstance(item.value, dict) else {}
    text = value.get("content") or value.get("summary") or ""
    return text if isinstance(text, str) else ""


def _expand(
    store: MemoryStoreExtensions,
    ns: tuple[str, ...],
    query: str,
    hits: list[Hit],
    tuning: RecallTuning,
    result: RecallResult,
) -> list[Hit]:
    """Feedback expansion (``memagent.nodes.recall_expand``): one keyword search with the
    query plus the rarest terms of the top hits, added at ``feedback_weight``. Needs a
    store with keyword search and ``keyword_idf`` (the caller checks)."""
    if not hits:
        return hits
    keyword_idf, search_scored = store.keyword_idf, store.search_scored
    top = sorted(hits, key=lambda h: -h[1])[: tuning.feedback_docs]
    top_terms = [keyword_idf(ns, without_placeholders(_content(h[0]))) for h in top]
    terms = feedback_terms(keyword_idf(ns, query), top_terms, tuning.feedback_terms)
    if not terms:
        return hits
    expanded = f"{query} {' '.join(terms)}"
    result.queries.append(expanded)
    extra = search_scored(
        ns, query=expanded, mode="keyword", filter={"status": "active"}, limit=tuning.candidates
    )
    w = tuning.feedback_weight
    merged: dict[str, Hit] = {h[0].key: h for h in hits}
    for h in extra:
        item, rel, dense, kw = merged.get(h.item.key, (h.item, 0.0, None, h.keyword))
        merged[h.item.key] = (item, rel + w * float(h.relevance), dense, kw)
    # Rescale so the best candidate keeps the first search's top relevance: the order is
    # the fused one, the scale stays comparable with the score threshold.
    top_before = max(h[1] for h in hits)
    top_after = max(h[1] for h in merged.values())
    scale = top_before / top_after if top_after > 0 else 1.0
    return [(item, rel * scale, dense, kw) for item, rel, dense, kw in merged.values()]


def _focus(query: str, hits: list[Hit], tuning: RecallTuning, result: RecallResult) -> list[Hit]:
    """Entity focus (``memagent.nodes.recall_expand``)."""
    if tuning.entity_focus >= 1.0 or not hits:
        return hits
    entity_of = {
        h[0].key: (h[0].value.get("entity") if isinstance(h[0].value, dict) else None) for h in hits
    }
    named = named_entities(query, entity_of.values())
    if not named:
        return hits
    result.notes.append(f"entity focus: {', '.join(sorted(named))}")
    rel = focus({h[0].key: h[1] for h in hits}, entity_of, named, tuning.entity_focus)
    return [(item, rel[item.key], dense, kw) for item, _, dense, kw in hits]


RECALLED_KINDS = ("facts", "episodes")


def _origin(item: Any) -> Origin:
    return "episode" if tuple(item.namespace)[-1:] == ("episodes",) else "search"


def _recallable(hits: list[Hit]) -> list[Hit]:
    """Facts and episodes only (a customer prefix also holds profiles and transcripts)."""
    return [h for h in hits if tuple(h[0].namespace)[-1:] in {(k,) for k in RECALLED_KINDS}]


def _scored(
    hits: list[Hit], origin: Origin, weights: ScoreWeights, now: datetime
) -> list[RecalledItem]:
    out = []
    for item, relevance, dense, keyword in hits:
        scored = score_candidate(
            item.value,
            item.key,
            relevance=relevance,
            origin=origin,
            weights=weights,
            now=now,
            dense=dense,
            keyword=keyword,
        )
        if scored:
            out.append(scored)
    return out


def _pinned(
    store: BaseStore, user_id: str, customer_id: str, weights: ScoreWeights, now: datetime
) -> list[RecalledItem]:
    """The profile's top facts and the most important open commitments, for a session
    start (before any question narrows the search). Pinned items skip the threshold;
    their relevance is 1.0 by definition, so their score ranks them among themselves."""
    from memagent.memory.profile import load_profile

    facts = namespace(user_id, customer_id, "facts")
    profile = load_profile(store, user_id, customer_id) or {}
    ids = [str(i) for i in profile.get("facts", [])][:MAX_PROFILE_ITEMS]
    found = store.batch([GetOp(facts, i) for i in ids]) if ids else []
    pinned = [
        scored
        for item in found
        if isinstance(item, Item)
        and (
            scored := score_candidate(
                item.value, item.key, relevance=1.0, origin="profile", weights=weights, now=now
            )
        )
    ]
    commitments = [
        scored
        for item in store.search(facts, filter={"type": "commitment", "status": "active"}, limit=50)
        if (
            scored := score_candidate(
                item.value, item.key, relevance=1.0, origin="commitment", weights=weights, now=now
            )
        )
    ]
    commitments.sort(key=lambda i: -i.score)
    return pinned + commitments[:MAX_COMMITMENTS]


def _overview(
    store: BaseStore, ns: tuple[str, ...], weights: ScoreWeights, now: datetime
) -> list[RecalledItem]:
    """The account's most important current facts, for a broad question
    (``memagent.nodes.recall_overview``); relevance 1.0 like every pinned item."""
    found = store.search(ns, filter={"status": "active"}, limit=500)
    values = {i.key: i.value for i in found if isinstance(i.value, dict)}
    keys = overview_keys(values.items(), MAX_OVERVIEW_ITEMS)
    return [
        scored
        for key in keys
        if (
            scored := score_candidate(
                values[key], key, relevance=1.0, origin="overview", weights=weights, now=now
            )
        )
    ]


def _pending(
    store: BaseStore,
    ns: tuple[str, ...],
    query: str,
    everything: bool,
    weights: ScoreWeights,
    now: datetime,
) -> list[RecalledItem]:
    """Unconfirmed facts for ``query`` (``memagent.nodes.recall_pending``), scored."""
    out = []
    for _, item in pending_matches(store, ns, query, everything=everything):
        scored = score_candidate(
            item.value, item.key, relevance=1.0, origin="pending", weights=weights, now=now
        )
        if scored:
            out.append(scored)
    return out[:MAX_PENDING_ITEMS]


def with_pending(
    items: list[RecalledItem], pending: list[RecalledItem], weights: ScoreWeights
) -> list[RecalledItem]:
    """``items`` plus the unconfirmed facts, after them; when the list is full, the
    weakest search results make room (pinned items never do). An episode of the message
    a pending fact came from is dropped, as ``select`` drops one of a chosen fact."""
    if not pending:
        return items
    said = {m for i in pending for m in i.message_ids}
    # The quote of the message a pending fact came from says the same thing, unlabelled.
    kept = [i for i in items if i.origin != "episode" or not said & set(i.message_ids)]
    room = weights.max_items - len(pending)
    while len(kept) > room and any(i.origin == "search" for i in kept):
        weakest = min((i for i in kept if i.origin == "search"), key=lambda i: i.score)
        kept.remove(weakest)
    return [*kept, *pending][: weights.max_items]


def recall_memories(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    query: str,
    *,
    mode: SearchMode = "hybrid",
    weights: ScoreWeights = DEFAULT_WEIGHTS,
    now: datetime | None = None,
    new_session: bool = False,
    force_search: bool = False,
    tuning: RecallTuning = DEFAULT_TUNING,
    broad: bool | None = None,
    episodes: bool = True,
) -> RecallResult:
    """Memories of one user about one customer for ``query`` (never another scope's).

    Facts and ``episodes`` (the user's own turns, ``memagent.memory.episodes``) are
    searched alike and fused into one list by score (``select``).

    ``new_session`` adds the profile and top open commitments; a broad question about
    the account (``recall_overview.is_overview``) adds its most important current facts
    instead (``broad`` says whether the message is one; None: judged from ``query``);
    pending facts that match the query come last, marked ``unconfirmed``.
    ``force_search`` searches even a message that looks like small talk (it referred back
    to an earlier session).
    ``tuning`` sets the candidate depth, feedback expansion and entity focus
    (``memagent.nodes.recall_expand``).
    """
    start = time.perf_counter()
    now = now or datetime.now(UTC)
    result = RecallResult(mode=mode, queries=[query] if query else [])
    pinned: list[RecalledItem] = []
    found: list[RecalledItem] = []
    pending: list[RecalledItem] = []
    facts = namespace(user_id, customer_id, "facts")
    if broad is None:
        broad = bool(query.strip()) and is_overview(query, customer_id)
    try:
        if broad:
            result.notes.append("broad question: the account's key facts are pinned")
            pinned = _overview(store, facts, weights, now)
        elif new_session:
            pinned = _pinned(store, user_id, customer_id, weights, now)
        if query.strip():
            pending = _pending(store, facts, query, broad, weights, now)
    except Exception as exc:  # a broken store must not break the turn
        result.degraded = True
        result.errors.append(f"pinned: {type(exc).__name__}: {exc}")
    if query.strip() and (force_search or should_search(query)):
        result.searched = True
        # One search over the customer's facts and episodes together: one query vector,
        # one BM25 corpus, so their relevances are on one scale and fuse into one list.
        ns = (
            namespace(user_id, customer_id)
            if episodes
            else namespace(user_id, customer_id, "facts")
        )
        try:
            hits = _recallable(_search(store, ns, query, mode, result, tuning.candidates))
            if tuning.expands and mode != "dense" and isinstance(store, MemoryStoreExtensions):
                hits = _recallable(_expand(store, ns, query, hits, tuning, result))
            hits = _focus(query, hits, tuning, result)
        except Exception as exc:
            result.degraded = True
            result.errors.append(f"search: {type(exc).__name__}: {exc}")
            hits = []
        result.candidates = len(hits)
        for origin in ("search", "episode"):
            found += _scored([h for h in hits if _origin(h[0]) == origin], origin, weights, now)
    result.items = with_pending(select(pinned, found, weights), pending, weights)
    result.elapsed_ms = (time.perf_counter() - start) * 1000.0
    if result.degraded:
        result.items = []
        logger.warning("recall degraded: %s", "; ".join(result.errors))
    return result


async def arecall_memories(
    store: BaseStore, user_id: str, customer_id: str, query: str, **kwargs: Any
) -> RecallResult:
    """``recall_memories`` off the event loop (store and embedder calls block)."""
    return await asyncio.to_thread(recall_memories, store, user_id, customer_id, query, **kwargs)


def touch_records(
    store: BaseStore,
    ns: tuple[str, ...],
    keys: Iterable[str],
    now: datetime,
    *,
    lock: LockFactory | None = None,
) -> int:
    """Bump ``last_accessed_at`` and ``access_count`` of recalled records.

    Uses the store's ``touch(namespace, keys, at=...)`` when it has one (a payload-only
    update). Otherwise one batch of reads and one of writes, under the write path's
    scope lock so a concurrent merge or supersede by the worker is never overwritten
    with the stale copy. Those writes re-index the records: ``index=False`` would drop
    them from query search in stores that follow the BaseStore contract literally.
    """
    keys = sorted(set(keys))
    if isinstance(store, MemoryStoreExtensions):
        store.touch(ns, keys, at=now)
        return len(keys)
    from memagent.memory.write_path import local_lock

    with (lock or local_lock)("/".join(ns)):
        puts = []
        for item in store.batch([GetOp(ns, k) for k in keys]):
            if not isinstance(item, Item) or item.value.get("status", "active") != "active":
                continue
            value = dict(item.value)
            value["last_accessed_at"] = now.isoformat()
            value["access_count"] = int(value.get("access_count", 0)) + 1
            puts.append(PutOp(ns, item.key, value))
        if puts:
            store.batch(puts)
    return len(puts)


class AccessLog:
    """Recalled keys collected during a turn and written after it by a background task."""

    def __init__(self, *, lock: LockFactory | None = None) -> None:
        self.lock = lock
        self._pending: dict[tuple[str, ...], set[str]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def record(self, user_id: str, customer_id: str, items: Iterable[RecalledItem]) -> None:
        keys = {i.key for i in items if i.origin != "episode"}
        if keys:
            self._pending.setdefault(namespace(user_id, customer_id, "facts"), set()).update(keys)

    def flush(self, store: BaseStore | None) -> None:
        """Start the write in the background; the caller does not wait for it."""
        pending, self._pending = self._pending, {}
        if store is None or not pending:
            return
        task = asyncio.get_running_loop().create_task(self._write(store, pending))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write(self, store: BaseStore, pending: dict[tuple[str, ...], set[str]]) -> None:
        now = datetime.now(UTC)
        for ns, keys in pending.items():
            try:
                await asyncio.to_thread(touch_records, store, ns, keys, now, lock=self.lock)
            except Exception as exc:  # access stats are best effort
                logger.warning("could not update access stats in %s: %s", ns, exc)

    async def drain(self) -> None:
        """Wait for background writes (on shutdown)."""
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def make_recall_node(
    mode: Literal["hybrid", "dense", "keyword", "off"],
    *,
    weights: ScoreWeights = DEFAULT_WEIGHTS,
    tuning: RecallTuning = DEFAULT_TUNING,
    access_log: AccessLog | None = None,
) -> RecallNode:
    """The recall node for one search mode; ``off`` recalls nothing."""

    async def recall(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context
        if mode == "off":
            return {"recall_trace": RecallResult(mode="off").trace(), "briefing": []}
        if runtime.store is None:
            trace = RecallResult(mode=mode, degraded=True, errors=["no store configured"])
            return {
                "recall_trace": trace.trace(),
                "briefing": [],
                "degraded": ["recall"],
            }
        message = _last_human_text(state)
        result = await arecall_memories(
            runtime.store,
            ctx.user_id,
            ctx.customer_id,
            state.query or message,
            mode=mode,
            weights=weights,
            new_session=state.turn <= 1,
            force_search=refers_back(message),
            tuning=tuning,
            # the user's words, not the rewritten query (which adds context or rephrases)
            broad=is_overview(message, ctx.customer_id),
        )
        if access_log is not None:
            access_log.record(ctx.user_id, ctx.customer_id, result.items)
        update: dict[str, Any] = {"recall_trace": result.trace(), "briefing": result.briefing()}
        if result.degraded:
            update["degraded"] = ["recall"]
        return update

    return recall


def _last_human_text(state: State) -> str:
    for message in reversed(state.messages):
        if message.type == "human":
            return str(message.text)
    return ""
