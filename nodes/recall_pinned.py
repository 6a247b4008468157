"""Recall's pinned items: the profile and open commitments at a session start, the
account's key facts for a broad question, and the unconfirmed facts for a query.

Split out of ``memagent.nodes.recall``; pinned items skip the score threshold.
"""

from __future__ import annotations

from datetime import datetime

from langgraph.store.base import BaseStore, GetOp, Item

from memagent.memory.namespaces import namespace
from memagent.memory.scoring import ScoreWeights
from memagent.nodes.recall_items import RecalledItem, RecallResult, score_candidate
from memagent.nodes.recall_overview import overview_keys
from memagent.nodes.recall_pending import pending_matches

MAX_PROFILE_ITEMS = 3
"""Top facts of the customer profile (``memagent.memory.profile``) pinned at session start."""
MAX_COMMITMENTS = 3
"""Open commitments shown at session start, before any question is asked."""
MAX_OVERVIEW_ITEMS = 10
"""Current facts pinned for a broad question about the account (``recall_overview``)."""
MAX_BROAD_ITEMS = 12
"""Items a broad question's recall returns (the pinned facts, then what its words found):
its reply lists them without the model (``brief_reply``, up to 12); a prompt for the model
still shows at most ``briefing.MAX_BRIEFING_ITEMS``."""
MAX_PENDING_ITEMS = 2
"""Unconfirmed facts (the speaker said "maybe", "可能") shown beside the confirmed ones."""


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


def _pinned_step(
    store: BaseStore,
    user_id: str,
    customer_id: str,
    query: str,
    result: RecallResult,
    broad: bool,
    new_session: bool,
    weights: ScoreWeights,
    now: datetime,
) -> tuple[list[RecalledItem], list[RecalledItem]]:
    """The pinned items (overview for a broad question, else profile and commitments at
    a session start) and the pending facts for ``query``; a store failure flags
    ``result`` degraded."""
    pinned: list[RecalledItem] = []
    pending: list[RecalledItem] = []
    facts = namespace(user_id, customer_id, "facts")
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
    return pinned, pending
