"""Recall: long-term memories for this turn, scored, filtered and budgeted.

``recall_memories`` is a plain function (the eval harness and the isolation tests call
it without a graph); ``make_recall_node`` wraps it as the graph's recall node for one
search mode chosen at build time. Failures of the store or the embedder never fail the
turn: the result is flagged ``degraded`` and the briefing is empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, GetOp, Item, PutOp

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State
from memagent.memory.namespaces import namespace
from memagent.memory.scoring import ScoreWeights
from memagent.nodes.recall_expand import RecallTuning
from memagent.nodes.recall_items import (
    FACT_SLOTS,
    Origin,
    RecalledItem,
    RecallResult,
    score_candidate,
    select,
    with_pending,
)
from memagent.nodes.recall_overview import is_overview
from memagent.nodes.recall_pinned import (
    MAX_BROAD_ITEMS,
    MAX_COMMITMENTS,
    MAX_OVERVIEW_ITEMS,
    MAX_PENDING_ITEMS,
    MAX_PROFILE_ITEMS,
    _pinned_step,
)
from memagent.nodes.recall_search import (
    Hit,
    SearchMode,
    _expand,
    _focus,
    _origin,
    _recallable,
    _scored,
    _search,
    _search_text,
)
from memagent.stores.protocols import MemoryStoreExtensions, store_session

__all__ = [
    "DEFAULT_TUNING",
    "DEFAULT_WEIGHTS",
    "FACT_SLOTS",
    "AccessLog",
    "MAX_COMMITMENTS",
    "MAX_OVERVIEW_ITEMS",
    "MAX_PENDING_ITEMS",
    "MAX_PROFILE_ITEMS",
    "Hit",
    "LockFactory",
    "Origin",
    "RecallNode",
    "RecallResult",
    "RecalledItem",
    "SearchMode",
    "arecall_memories",
    "make_recall_node",
    "recall_memories",
    "refers_back",
    "score_candidate",
    "select",
    "should_search",
    "touch_records",
    "with_pending",
]

logger = memagent_logger(__name__)

LockFactory = Callable[[str], AbstractContextManager[object]]
"""A named lock, as the write path takes it (``JobQueue.lock`` across processes)."""
DEFAULT_WEIGHTS = ScoreWeights()
DEFAULT_TUNING = RecallTuning()

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


class RecallNode(Protocol):
    """The recall slot: reads the query, writes ``recall_trace`` and ``briefing``."""

    async def __call__(self, state: State, runtime: Runtime[Context]) -> dict[str, Any]: ...


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
    if broad is None:
        broad = bool(query.strip()) and is_overview(query, customer_id)
    found: list[RecalledItem] = []
    with _one_session(store):  # a shared embedded store: one shard load per recall
        pinned, pending = _pinned_step(
            store, user_id, customer_id, query, result, broad, new_session, weights, now
        )
        if query.strip() and (force_search or should_search(query)):
            ns = namespace(user_id, customer_id, None if episodes else "facts")
            found = _search_step(store, ns, query, result, mode, weights, now, tuning)
    if broad:  # the account's key facts, each kind first (recall_pinned.MAX_OVERVIEW_ITEMS)
        weights = dataclasses.replace(weights, max_items=max(weights.max_items, MAX_BROAD_ITEMS))
    result.items = with_pending(select(pinned, found, weights), pending, weights)
    result.elapsed_ms = (time.perf_counter() - start) * 1000.0
    if result.degraded:
        result.items = []
        logger.warning("recall degraded: %s", "; ".join(result.errors))
    return result


@contextlib.contextmanager
def _one_session(store: BaseStore) -> Iterator[None]:
    """The recall's store calls in one store session (``store_session``) when it can be
    had; when it cannot (a store busy or down), each call tries on its own and a failure
    degrades the recall, as without it."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(store_session(store))
        except Exception as exc:
            logger.debug("recall without one store session: %s", exc)
        yield


def _search_step(
    store: BaseStore,
    ns: tuple[str, ...],
    query: str,
    result: RecallResult,
    mode: SearchMode,
    weights: ScoreWeights,
    now: datetime,
    tuning: RecallTuning,
) -> list[RecalledItem]:
    """The facts and episodes under ``ns`` found by the search, scored; a store or
    embedder failure flags ``result`` degraded. One search over the customer's facts and
    episodes together: one query vector, one BM25 corpus, so their relevances are on one
    scale and fuse into one list."""
    result.searched = True
    hits: list[Hit]
    try:
        text, searched = _search_text(store, ns, query, mode, tuning, result)
        if searched is None:
            searched = _search(store, ns, text, mode, result, tuning.candidates)
        hits = _recallable(searched)
        if tuning.expands and mode != "dense" and isinstance(store, MemoryStoreExtensions):
            hits = _recallable(_expand(store, ns, text, hits, tuning, result))
        hits = _focus(query, hits, tuning, result)
    except Exception as exc:
        result.degraded = True
        result.errors.append(f"search: {type(exc).__name__}: {exc}")
        hits = []
    result.candidates = len(hits)
    found: list[RecalledItem] = []
    origins: tuple[Origin, ...] = ("search", "episode")
    for origin in origins:
        found += _scored([h for h in hits if _origin(h[0]) == origin], origin, weights, now)
    return found


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
    """Recalled keys collected during a turn and written after it by a background task.

    One writer task per store at a time: turns that end while it writes queue their
    keys for its next round, and each round touches every queued namespace in one store
    session (a shared embedded store loads its shard once for many turns, not once per
    turn)."""

    def __init__(self, *, lock: LockFactory | None = None) -> None:
        self.lock = lock
        self._pending: dict[tuple[str, ...], set[str]] = {}
        self._queued: dict[int, tuple[BaseStore, dict[tuple[str, ...], set[str]]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def record(self, user_id: str, customer_id: str, items: Iterable[RecalledItem]) -> None:
        keys = {i.key for i in items if i.origin != "episode"}
        if keys:
            self._pending.setdefault(namespace(user_id, customer_id, "facts"), set()).update(keys)

    def flush(self, store: BaseStore | None) -> None:
        """Queue the write for the background writer; the caller does not wait for it."""
        pending, self._pending = self._pending, {}
        if store is None or not pending:
            return
        running = id(store) in self._queued
        queued = self._queued.setdefault(id(store), (store, {}))[1]
        for ns, keys in pending.items():
            queued.setdefault(ns, set()).update(keys)
        if running:
            return
        task = asyncio.get_running_loop().create_task(self._write(store))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write(self, store: BaseStore) -> None:
        try:
            while self._queued[id(store)][1]:
                pending = self._queued[id(store)][1]
                self._queued[id(store)] = (store, {})
                await asyncio.to_thread(self._touch_all, store, pending)
        finally:
            del self._queued[id(store)]

    def _touch_all(self, store: BaseStore, pending: dict[tuple[str, ...], set[str]]) -> None:
        now = datetime.now(UTC)
        try:
            with store_session(store):
                for ns, keys in pending.items():
                    try:
                        touch_records(store, ns, keys, now, lock=self.lock)
                    except Exception as exc:  # access stats are best effort
                        logger.warning("could not update access stats in %s: %s", ns, exc)
        except Exception as exc:  # the store busy or down: these stats are lost
            logger.warning("could not update access stats: %s", exc)

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
        # small talk searches nothing, whatever context the rewriter added to it
        query = state.query or message if should_search(message) else ""
        result = await arecall_memories(
            runtime.store,
            ctx.user_id,
            ctx.customer_id,
            query,
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
