"""``QdrantStore`` beyond ``BaseStore``: the ``MemoryStoreExtensions`` Protocol.

``StoreExtensions`` implements the Protocol (``protocols``) directly on the store's
core (``store_core``): no collaborator objects, no delegating methods. The async twins
of ``get_rev``/``put_if``/``touch`` come with the Protocol (each runs its sync twin in
a thread); ``asearch_scored`` is the store's own, so the query is embedded with the
embedder's async call, as ``abatch`` does.

Compare-and-set: ``get_rev`` reads an item with its write token, ``put_if`` writes only
if the token is unchanged (or only if the item is absent). Qdrant decides it per point
(a conditional upsert), so it holds across processes and hosts without any lock; the
write path builds on it (``memagent.memory.write_cas``).

``touch(namespace, keys, at=...)`` records reads (``last_accessed_at``, ``access_count``
in the value) as a payload-only update conditioned on the same write token: nothing is
re-embedded, ``updated_at`` and the listing order stay, and the item stays in both
search sides.

``search_scored()`` runs the same search as ``search()`` with a query, but returns
``ScoredItem``s carrying the fused relevance and the dense and keyword side scores, in
a mode chosen per call (``hybrid``, ``dense`` or ``keyword``); the write path uses the
dense score to find near-duplicates. ``keyword_idf()`` gives the BM25 idf of a text's
terms under a namespace prefix; the agent's recall picks expansion terms with it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from langgraph.store.base import (
    NOT_PROVIDED,
    GetOp,
    InvalidNamespaceError,
    Item,
    NotProvided,
    PutOp,
    SearchOp,
    validate_op_namespace,
)

from memagent.stores import store_ops as ops_
from memagent.stores.engines import Range, Where, WriteMode
from memagent.stores.fusion import SearchMode
from memagent.stores.hybrid_search import ScoredItem
from memagent.stores.protocols import MemoryStoreExtensions
from memagent.stores.store_core import StoreCore
from memagent.stores.tokenize import tokenize_cached

_TOUCH_ATTEMPTS = 3


class StoreExtensions(StoreCore, MemoryStoreExtensions):
    """Compare-and-set, ``touch``, scored search and keyword idf on the store's core."""

    # ------------------------------------------------------------ compare-and-set

    def get_rev(self, namespace: tuple[str, ...], key: str) -> tuple[Item, str] | None:
        """The item and its write token, read together (``None`` if absent or expired).

        The token is ``""`` for an item written before tokens existed; ``put_if``
        accepts that too. Never extends a TTL.
        """
        validate_op_namespace(GetOp(tuple(namespace), str(key)))
        self._check_open()
        pid = ops_.point_id(tuple(namespace), str(key))
        recs = self.engine.retrieve([pid], ops_.ITEM_FIELDS)
        if not recs or not ops_.alive(recs[0].payload, time.time()):
            return None
        return ops_.to_item(recs[0].payload), str(recs[0].payload.get(ops_.REV) or "")

    def put_if(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        *,
        expect: str | None,
        index: Literal[False] | list[str] | None = None,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> str | None:
        """``put`` only if nobody wrote the item since ``get_rev`` returned ``expect``;
        with ``expect=None`` only if there is no (live) item. Returns the new write
        token, or ``None`` when another write came first (then nothing was written).

        Why the read-back: the engine skips a failed conditional write silently, and
        only the fresh token in the stored point tells which write won. A later write
        by someone else also reads as ``None`` (the caller re-reads and finds its own
        write merged in), never the other way round.
        """
        self._check_open()
        if value is None:
            raise ValueError("put_if needs a value; delete with delete()")
        minutes = (
            (self.ttl_config or {}).get("default_ttl") if isinstance(ttl, NotProvided) else ttl
        )
        ns = tuple(namespace)
        plan, vectors = self._prepare_put(PutOp(ns, str(key), value, index=index, ttl=minutes))
        now = ops_.utcnow()
        cond: tuple[Where | None, WriteMode]
        if expect is None:  # absent (inserted), or present but expired (replaced)
            cond = (Where(must=(Range("expires_at", lte=now.timestamp()),)), "upsert")
        else:
            cond = (ops_.rev_where(expect), "update")
        pid = ops_.point_id(ns, str(key))
        with self.engine.session():
            mine = self._apply_puts(plan, vectors, now, cond=cond)[pid]
            back = self.engine.retrieve([pid], [ops_.REV])
        return mine if back and back[0].payload.get(ops_.REV) == mine else None

    # ------------------------------------------------------------ access stats

    def touch(
        self, namespace: tuple[str, ...], keys: Iterable[str], *, at: datetime | None = None
    ) -> int:
        """Record that items were used: ``last_accessed_at = at`` (ISO, default now) and
        ``access_count + 1`` in each value. Returns how many items were touched.

        Why not a put: recall touches what it injects on every turn, and a put would
        re-embed the text and invalidate the namespace's keyword corpus. This rewrites the
        ``value`` payload only: vectors, BM25 tokens, ``updated_at`` and the listing order
        stay, and the keyword version is not bumped (the keyword text did not change);
        only corpora cached for *filtered* searches are refreshed, as a filter may test
        the touched fields. Missing and expired keys are skipped. Each item is rewritten
        only if unchanged since it was read (its write token, renewed here), re-read and
        retried otherwise, so a touch never undoes a concurrent ``put``/``put_if``, even
        from another process; an item that keeps changing under it is left untouched.
        """
        ns = tuple(namespace)
        if not ns:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        if isinstance(keys, str):
            raise TypeError("keys must be an iterable of keys, not one string")
        wanted = sorted({str(k) for k in keys})
        validate_op_namespace(GetOp(ns, ""))
        if not wanted:
            return 0
        self._check_open()
        when = (at or ops_.utcnow()).isoformat()
        touched = 0
        with (
            self.engine.session(),
            self._write_lock,
        ):  # the order of every write: session, then lock
            todo = [ops_.point_id(ns, k) for k in wanted]
            for _ in range(_TOUCH_ATTEMPTS):
                wrote = self._touch_once(todo, when)
                back = {r.id: r.payload.get(ops_.REV) for r in self.engine.retrieve(list(wrote))}
                touched += sum(back.get(pid) == rev for pid, rev in wrote.items())
                todo = [pid for pid, rev in wrote.items() if back.get(pid) != rev]
                if not todo:
                    break
            if touched:
                self.engine.upsert(self._bump_points([ns], ops_.VALUES_VERSION))
        return touched

    def _touch_once(self, ids: list[str], when: str) -> dict[str, str]:
        """One conditional value update per live item (skipped if it changed since read)."""
        now_ts = time.time()
        wrote: dict[str, str] = {}
        for rec in self.engine.retrieve(ids, ["value", "expires_at", ops_.REV]):
            if not ops_.alive(rec.payload, now_ts):
                continue
            value = ops_.touched_value(rec.payload.get("value") or {}, when)
            rev = wrote[rec.id] = ops_.new_rev()
            expect = ops_.rev_where(str(rec.payload.get(ops_.REV) or ""))
            self.engine.set_payload([rec.id], {"value": value, ops_.REV: rev}, where=expect)
        return wrote

    # ------------------------------------------------------------ scored search

    def keyword_idf(self, namespace_prefix: tuple[str, ...], text: str) -> dict[str, float]:
        """Keyword terms of ``text`` (the store's tokenizer) with their BM25 idf under
        ``namespace_prefix``; terms no item there contains are left out. The agent's
        recall uses it to pick expansion terms from its first results."""
        self._check_open()
        prefix = tuple(namespace_prefix)
        validate_op_namespace(SearchOp(prefix))
        terms = list(dict.fromkeys(tokenize_cached(text, self.hybrid.tokenizer)))
        return self._searcher.idf(prefix, terms, self._visible_after(ops_.utcnow()))

    def search_scored(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str,
        mode: SearchMode | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[ScoredItem]:
        """Search with relevance and side scores; ``mode`` defaults to the store's."""
        op, mode_ = self._scored_op(
            namespace_prefix, query, mode, filter, limit, offset, refresh_ttl
        )
        qvec = (
            self.embeddings.embed_query(query) if self.embeddings and mode_ != "keyword" else None
        )
        return self._run_scored(op, qvec, mode_)

    async def asearch_scored(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str,
        mode: SearchMode | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[ScoredItem]:
        op, mode_ = self._scored_op(
            namespace_prefix, query, mode, filter, limit, offset, refresh_ttl
        )
        emb = self.embeddings
        qvec = await emb.aembed_query(query) if emb and mode_ != "keyword" else None
        return await asyncio.to_thread(self._run_scored, op, qvec, mode_)

    def _scored_op(
        self,
        prefix: tuple[str, ...],
        query: str,
        mode: SearchMode | None,
        flt: dict[str, Any] | None,
        limit: int,
        offset: int,
        refresh_ttl: bool | None,
    ) -> tuple[SearchOp, SearchMode]:
        mode_ = mode or self.hybrid.default_mode
        if mode_ not in ("hybrid", "dense", "keyword"):
            raise ValueError(f"mode must be 'hybrid', 'dense' or 'keyword', got {mode_!r}")
        if not self.embeddings:
            raise ValueError("search_scored needs a store opened with an index config")
        if not isinstance(query, str) or not query.strip():
            raise ValueError("search_scored needs a non-empty query")
        refresh = (
            refresh_ttl
            if refresh_ttl is not None
            else (self.ttl_config or {}).get("refresh_on_read", True)
        )
        op = SearchOp(tuple(prefix), flt, limit, offset, query, bool(refresh))
        validate_op_namespace(op)
        ops_.validate_filter(flt)
        return op, mode_

    def _run_scored(
        self, op: SearchOp, qvec: list[float] | None, mode: SearchMode
    ) -> list[ScoredItem]:
        self._check_open()
        now = ops_.utcnow()
        refresh: dict[float, dict[str, str]] = {}
        with self.engine.session():
            found = self._search(op, qvec, mode, now, refresh, fill=False)
            self._refresh(refresh, now)
        return found
