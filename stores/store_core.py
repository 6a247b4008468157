"""The engine side of ``QdrantStore``: its state, ``batch``/``abatch``, reads, writes,
TTL sweeps and ``close``.

``StoreCore`` is LangGraph's ``BaseStore`` over one ``Engine``: it plans a batch
(``store_plan``, no I/O), embeds its texts in one call, then runs the reads against the
state before the batch and applies the puts. It sets every attribute the store has;
``StoreExtensions`` (``store_extensions``) adds the ``MemoryStoreExtensions`` Protocol
on top of it and ``QdrantStore`` (``qdrant_store``) opening and setup. The behaviour it
implements is described in ``qdrant_store``'s docstring.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)

from memagent.stores import store_ops as ops_
from memagent.stores.embeddings import score_floor
from memagent.stores.engines import (
    DISTANCES,
    INDEXED,
    Distance,
    Engine,
    HasId,
    PointData,
    Range,
    Where,
    WriteMode,
)
from memagent.stores.fusion import HybridConfig, SearchMode
from memagent.stores.hybrid_search import HybridSearcher, ScoredItem
from memagent.stores.store_plan import Plan, Planner, doc_vectors, index_embeddings
from memagent.stores.tokenize import tokenize
from memagent.stores.ttl_sweeper import TTLSweeper

_FACET_LIMIT = 1_000_000
Refresh = dict[float, dict[str, str]]
"""Items a batch read that get their TTL extended: ttl minutes -> {point id: write token}."""


def index_distance(index: IndexConfig | dict[str, Any]) -> Distance:
    """The index's ``distance_type`` (default cosine); anything else is refused."""
    distance = index.get("distance_type") or "cosine"
    if distance not in DISTANCES:
        raise ValueError(
            f"unsupported distance_type {distance!r}; QdrantStore supports "
            + ", ".join(repr(d) for d in DISTANCES)
        )
    return distance  # type: ignore[no-any-return]


def _value_indexes(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` checked: value fields (dotted paths allowed) to give a keyword index."""
    if isinstance(names, str):
        raise ValueError(f"value_indexes must be a sequence of field names, got {names!r}")
    out = tuple(names)
    for name in out:
        if not isinstance(name, str) or not all(ops_.simple_key(p) for p in name.split(".")):
            raise ValueError(f"value_indexes: not a plain field name: {name!r}")
    return out


class StoreCore(BaseStore):
    """LangGraph's ``BaseStore`` on one Qdrant engine with hybrid dense + BM25 search."""

    supports_ttl = True

    def __init__(
        self,
        engine: Engine,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        hybrid: HybridConfig | None = None,
        value_indexes: Sequence[str] = ops_.VALUE_INDEXES,
    ) -> None:
        self.engine = engine
        self.value_indexes = _value_indexes(value_indexes)
        self.ttl_config = ttl
        self.index_config: dict[str, Any] | None = dict(index) if index else None
        self.embeddings: Embeddings | None = None
        fields: list[str] = []
        if index:
            distance = index_distance(index)
            if distance != engine.distance:
                raise ValueError(
                    f"index distance_type {distance!r} but the engine compares by "
                    f"{engine.distance!r}; open it with QdrantStore.from_location"
                )
            self.embeddings, fields = index_embeddings(index, engine.dims)
        floor = score_floor(self.embeddings) if self.embeddings else 0.0
        self.hybrid = (hybrid or HybridConfig()).for_embeddings(floor)
        self._planner = Planner(self.embeddings, fields, self.hybrid)
        self._searcher = HybridSearcher(engine, self.hybrid)
        self._write_lock = threading.RLock()
        self._ns_indexed: set[str] = set()
        self._closed: bool = False  # set by ``close()``; every operation after it raises
        self._setup_pending = False  # the server was down at open: set up on the next call
        self._sweeper: TTLSweeper | None = None  # while ``start_ttl_sweeper``'s thread runs
        # as in LangGraph's SQL stores: a read extends a TTL only when the store's
        # config opts in; ``refresh_ttl=True`` on a read alone does not
        self._refresh_on_read = bool((ttl or {}).get("refresh_on_read", False))

    # ------------------------------------------------------------ batch

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        plan = self._planner.plan(ops)
        emb = self.embeddings
        qvecs: dict[str, list[float]] = {q: emb.embed_query(q) for q in plan.queries} if emb else {}
        dvecs: list[list[float]] = (
            emb.embed_documents(plan.doc_texts) if emb and plan.doc_texts else []
        )
        return self._execute(plan, qvecs, dvecs)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        plan = self._planner.plan(ops)
        emb = self.embeddings
        qvecs: dict[str, list[float]] = {}
        dvecs: list[list[float]] = []
        if emb and plan.queries:
            got = await asyncio.gather(*(emb.aembed_query(q) for q in plan.queries))
            qvecs = dict(zip(plan.queries, got, strict=True))
        if emb and plan.doc_texts:
            dvecs = await emb.aembed_documents(plan.doc_texts)
        return await asyncio.to_thread(self._execute, plan, qvecs, dvecs)

    def _prepare_put(self, op: PutOp) -> tuple[Plan, dict[str, Sequence[float]]]:
        """Plan and embed one put (no engine I/O), for ``put_if``."""
        plan, emb = self._planner.plan([op]), self.embeddings
        dvecs = emb.embed_documents(plan.doc_texts) if emb and plan.doc_texts else []
        return plan, doc_vectors(plan, dvecs)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the store is closed")
        if self._setup_pending:  # the server was down at open: set up now, or fail fast
            self.setup()

    def setup(self) -> None:
        """Set the store up on its engine (``QdrantStore.setup``)."""

    def _execute(
        self,
        plan: Plan,
        qvecs: dict[str, list[float]],
        dvecs: Sequence[Sequence[float]],
    ) -> list[Result]:
        self._check_open()
        with self.engine.session():
            return self._execute_ops(plan, qvecs, dvecs)

    def _execute_ops(
        self,
        plan: Plan,
        qvecs: dict[str, list[float]],
        dvecs: Sequence[Sequence[float]],
    ) -> list[Result]:
        now = ops_.utcnow()
        refresh: Refresh = {}
        results: list[Result] = []
        mode = self.hybrid.default_mode
        for op in plan.ops:
            if isinstance(op, GetOp):
                results.append(self._get(op, now, refresh))
            elif isinstance(op, SearchOp):
                found = self._search(op, qvecs.get(op.query or ""), mode, now, refresh)
                results.append([s.item for s in found])
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op, now))
            else:
                results.append(None)
        self._refresh(refresh, now)
        if plan.puts:
            self._apply_puts(plan, doc_vectors(plan, dvecs), now)
        return results

    # ------------------------------------------------------------ reads

    def _visible_after(self, now: datetime) -> float:
        """Reads return items whose ``expires_at`` is later than this (epoch seconds):
        now, or 0 (every item, expired or not) under ``omit_expired=False``."""
        omit = (self.ttl_config or {}).get("omit_expired", True)
        return now.timestamp() if omit is not False else 0.0

    def _get(self, op: GetOp, now: datetime, refresh: Refresh) -> Item | None:
        pid = ops_.point_id(op.namespace, op.key)
        recs = self.engine.retrieve([pid], ops_.ITEM_FIELDS)
        if not recs or not ops_.alive(recs[0].payload, self._visible_after(now)):
            return None
        payload = recs[0].payload
        if op.refresh_ttl and self._refresh_on_read:
            self._mark_refresh(refresh, pid, payload)
        return ops_.to_item(payload)

    @staticmethod
    def _mark_refresh(refresh: Refresh, pid: str, payload: dict[str, Any]) -> None:
        ttl = ops_.doc(payload).get("ttl")
        if ttl is not None:
            refresh.setdefault(float(ttl), {})[pid] = str(payload.get(ops_.REV) or "")

    def _refresh(self, refresh: Refresh, now: datetime) -> None:
        """Extend the TTL of the item versions the batch read, and only those.

        One conditional update per TTL: a point that another thread or the sweeper
        deleted since the read, or that a put rewrote (another write token), is left
        as the other write made it. An unconditional update would fail the whole read
        on a deleted point (``No point with id``; ``KeyError`` on qdrant-client) or
        give a rewritten item the expiry of the version it replaced.
        """
        for ttl, revs in refresh.items():
            read = tuple(
                Where(must=(HasId((pid,)), *ops_.rev_where(rev).must)) for pid, rev in revs.items()
            )
            self.engine.set_payload(
                sorted(revs),
                {"expires_at": ops_.expiry(ttl, now.timestamp())},
                where=Where(should=read),
            )

    def _search(
        self,
        op: SearchOp,
        qvec: list[float] | None,
        mode: SearchMode,
        now: datetime,
        refresh: Refresh,
        *,
        fill: bool = True,
    ) -> list[ScoredItem]:
        if op.limit <= 0:
            return []
        if op.query and self.embeddings and (qvec is not None or mode == "keyword"):
            found = self._searcher.ranked(op, qvec, mode, self._visible_after(now))
            if fill and len(found) < op.limit:  # the reference fills the tail with unindexed items
                rest = op.limit - len(found)
                unindexed = self._list(op.namespace_prefix, op.filter, 0, rest, now, unindexed=True)
                found += [(ScoredItem(ops_.to_search_item(p, None), 0.0), p) for p in unindexed]
        else:
            found = [
                (ScoredItem(ops_.to_search_item(p, None), 0.0), p)
                for p in self._list(op.namespace_prefix, op.filter, op.offset, op.limit, now)
            ]
        if op.refresh_ttl and self._refresh_on_read:
            for s, p in found:
                self._mark_refresh(refresh, ops_.point_id(s.item.namespace, s.item.key), p)
        return [s for s, _ in found]

    def _list(
        self,
        prefix: Sequence[str],
        flt: dict[str, Any] | None,
        offset: int,
        limit: int,
        now: datetime,
        *,
        unindexed: bool = False,
    ) -> list[dict[str, Any]]:
        """Visible items under ``prefix`` matching ``flt``, newest update first."""
        where = ops_.data_where(prefix, flt, self._visible_after(now))
        if unindexed:
            where = Where(where.must, (*where.must_not, INDEXED))
        fields = ops_.ITEM_FIELDS
        if not flt:
            return [r.payload for r in self.engine.page(where, limit, offset, "updated_ts", fields)]
        out: list[dict[str, Any]] = []
        want, start, size = offset + limit, 0, max(64, 2 * (offset + limit))
        while len(out) < want:
            recs = self.engine.page(where, size, start, "updated_ts", fields)
            out.extend(r.payload for r in recs if ops_.matches_filter(r.payload["value"], flt))
            if len(recs) < size:
                break
            start, size = start + size, size * 2
        return out[offset:want]

    def _list_namespaces(self, op: ListNamespacesOp, now: datetime) -> list[tuple[str, ...]]:
        must: list[Any] = [ops_.live(self._visible_after(now))]
        for cond in op.match_conditions or ():
            if cond.match_type == "prefix":
                must.extend(ops_.namespace_conds(cond.path, wildcard=True))
        facets = self.engine.facet("ns", Where(must=tuple(must)), _FACET_LIMIT)
        found = (ops_.split_ns(str(v)) for v, _ in facets)
        return ops_.list_namespaces_result(
            found, op.match_conditions or (), op.max_depth, op.limit, op.offset
        )

    # ------------------------------------------------------------ writes

    def _apply_puts(
        self,
        plan: Plan,
        vectors: dict[str, Sequence[float]],
        now: datetime,
        *,
        cond: tuple[Where | None, WriteMode] | None = None,
    ) -> dict[str, str]:
        """Write the plan's puts (with ``cond``: as one conditional upsert); the new write
        token of each written point id."""
        tok = self.hybrid.tokenizer
        with self._write_lock:
            live_keys = [k for k, op in plan.puts.items() if op.value is not None]
            ids = {k: ops_.point_id(*k) for k in plan.puts}
            old = {
                r.id: r.payload for r in self.engine.retrieve([ids[k] for k in live_keys], ["doc"])
            }
            points: list[PointData] = []
            for seq, k in enumerate(live_keys):
                op = plan.puts[k]
                assert op.value is not None
                texts = plan.texts.get(k, [])
                vecs = [list(map(float, vectors[t])) for t in texts]
                for v in vecs:
                    if len(v) != self.engine.dims:
                        raise ValueError(
                            f"embedding has {len(v)} dims, the store expects {self.engine.dims}"
                        )
                text = "\n".join([*texts, *plan.keyword_texts.get(k, [])])
                payload = ops_.item_payload(
                    k[0],
                    k[1],
                    op.value,
                    created_at=ops_.doc(old.get(ids[k], {})).get("created_at") or now.isoformat(),
                    now=now,
                    ttl=op.ttl,
                    text=text,
                    kw=ops_.pack_kw(tok.signature, tokenize(text, tok)) if vecs else "",
                    seq=seq,
                    rev=ops_.new_rev(),
                )
                points.append(PointData(ids[k], vecs or None, payload))
            self._ensure_ns_indexes(max((len(k[0]) for k in live_keys), default=0))
            deletes = [ids[k] for k, op in plan.puts.items() if op.value is None]
            self.engine.delete(deletes)
            bumps = self._bump_points(k[0] for k in plan.puts)
            if cond is None:
                self.engine.upsert(points + bumps)
            else:  # item first, then the version bump (see bm25_index)
                self.engine.upsert_if(points, where=cond[0], mode=cond[1])
                self.engine.upsert(bumps)
        return {p.id: p.payload[ops_.REV] for p in points}

    def _ensure_ns_indexes(self, depth: int) -> None:
        for i in range(depth):
            name = f"ns_{i}"
            if name not in self._ns_indexed:
                self.engine.create_index(name, "keyword")
                self._ns_indexed.add(name)

    @staticmethod
    def _bump_points(
        namespaces: Iterable[Sequence[str]], kind: str = ops_.KW_VERSION
    ) -> list[PointData]:
        """New version token for every prefix of every written namespace (see bm25_index)."""
        todo = {p for ns in namespaces for p in ops_.prefixes(ns)}
        payload = {"token": uuid.uuid4().hex}
        return [PointData(ops_.meta_id(kind, p), None, payload) for p in todo]

    # ------------------------------------------------------------ TTL and closing

    def sweep_ttl(self) -> int:
        """Delete expired items now; returns how many were removed."""
        self._check_open()
        now = time.time()
        with self.engine.session(), self._write_lock:  # session, then lock (as puts)
            expired = list(self.engine.scan(Where(must=(Range("expires_at", lte=now),)), ["ns"]))
            if not expired:
                return 0
            self.engine.delete([r.id for r in expired])
            self.engine.upsert(self._bump_points({ops_.split_ns(r.payload["ns"]) for r in expired}))
        return len(expired)

    async def asweep_ttl(self) -> int:
        return await asyncio.to_thread(self.sweep_ttl)

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> cf.Future[None]:
        """Sweep in a daemon thread every ``sweep_interval_minutes`` (default from ttl config)."""
        if self._sweeper is None:
            minutes = sweep_interval_minutes or (self.ttl_config or {}).get(
                "sweep_interval_minutes"
            )
            self._sweeper = TTLSweeper(self.sweep_ttl, float(minutes or 5))
        return self._sweeper.start()

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; True if it stopped (or never ran)."""
        if self._sweeper is None:
            return True
        stopped = self._sweeper.stop(timeout)
        self._sweeper = None
        return stopped

    def session(self) -> contextlib.AbstractContextManager[None]:
        """Several calls on this thread as one unit on the engine: a shared embedded
        store loads its shard and takes its directory lock once for all of them instead
        of once per call (each load and flush costs tens to hundreds of milliseconds of
        disk syncs). Keep it short, with no model call inside: other processes wait for
        it. A no-op on a server or a store opened by one process; never a transaction."""
        self._check_open()
        return self.engine.session()

    def close(self) -> None:
        """Stop the sweeper, flush and release the engine (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.stop_ttl_sweeper()
        self.engine.close()
