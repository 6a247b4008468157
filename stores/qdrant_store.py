"""``QdrantStore``: LangGraph's ``BaseStore`` on Qdrant (dense) + BM25 (keyword).

One class for every location: ``":memory:"`` or a directory run Qdrant's engine
in-process (qdrant-edge), an ``http(s)://`` URL talks to a server (qdrant-client);
only the ``Engine`` behind it differs. Behaviour follows LangGraph's
``InMemoryStore`` (the reference), with deliberate differences, all fixes:
``put`` keeps ``created_at``; identical texts in one batch are embedded once
instead of raising; range filters on a missing field do not match instead of
raising ``TypeError``; a namespace whose items are all deleted is no longer
listed; values that are not JSON (sets, NaN, objects) are rejected with a
``ValueError`` before anything is written. Without a query, results are ordered
most recently updated first (as LangGraph's SQL stores do), not by insertion.

Search with a query runs, per the store's mode (``HybridConfig.default_mode``):
dense candidates from Qdrant and BM25 candidates over the items under the same
namespace prefix, fused (``fusion.py``). ``search_scored()`` also returns the side
scores.

**Scores differ from LangGraph's stores in hybrid mode** (the default): there
``SearchItem.score`` is the fused relevance in [0, 1], not the vector similarity
``InMemoryStore`` and the SQL stores return, so a threshold tuned on their scores
(``score > 0.8``) keeps other items here. ``HybridConfig(score="similarity")``
reports the similarity instead (the ranking stays hybrid); ``default_mode="dense"``
ranks and scores by similarity alone, as LangGraph's stores do.

An index's ``distance_type`` is honoured as in LangGraph's Postgres store:
``"cosine"`` (default), ``"inner_product"`` (score = dot product) or ``"l2"``
(score = negated Euclidean distance); anything else is refused. The distance is
fixed when the collection is created: reopening with another one is an error.
Hybrid fusion reads non-cosine scores on the cosine scale (exact for unit-length
embeddings, which most embedders return).

Items put with ``index=False`` (or whose indexed fields are absent) are neither
in the dense nor in the keyword side: "not indexed" means not searchable by a
query. Like the reference, they still list, and they fill the tail of a query
search (score ``None``) when fewer than ``limit`` indexed items match.

Keyword-only fields (``HybridConfig.keyword_only_fields``, default ``("context",)``):
the text at those value paths joins an indexed item's BM25 text but is never
embedded, even when a put lists the path in ``index`` (with the ``"$"`` path, the
whole value is embedded without those top-level keys). They hold a memory's
surrounding context, e.g. the session date and the turns before it: "Yes, twice
last year!" is found by keywords only through the question it answers, while the
dense side ranks best on the memory alone (a second vector for the context, or
one vector for both, blurs it). On the LoCoMo dev split (e5, stemming, fusion
defaults) evidence recall@10 is 0.750 with the context as a second vector (MaxSim)
and 0.768 with it keyword-only (bench/locomo_experiments.py). An item whose only
text is keyword-only has no vector and so is not indexed.

TTL follows LangGraph's SQL stores: reads extend an item's TTL only when the
store's ``ttl`` config sets ``refresh_on_read`` (then per-read ``refresh_ttl``
can turn it off); without it, reads never extend a TTL. A refresh extends only the
version of an item that the read returned: if another thread or the sweeper
deleted or rewrote it meanwhile, that write wins and the read still succeeds.

``omit_expired`` (``TTLConfig``) is honoured as in LangGraph's Postgres store, with
one deliberate difference, its default: expired items that the sweeper has not
deleted yet are hidden from ``get``/``search``/``list_namespaces`` unless the
config sets ``omit_expired=False`` (LangGraph defaults to showing them). With
``False`` they stay readable until swept and a refreshing read extends them again,
as in Postgres. The config is read on every operation, as Postgres does, so changing
``store.ttl_config["omit_expired"]`` takes effect at once. ``get_rev``/``put_if``/
``touch`` always treat an expired item as absent.

Within one ``batch``, reads see the state before the batch's writes (as in the
reference); puts to one key are deduplicated (last wins) and all texts of the
batch are embedded in one ``embed_documents`` call.

Beyond ``BaseStore``, ``QdrantStore`` implements ``MemoryStoreExtensions``
(``protocols.py``): compare-and-set (``get_rev``/``put_if``) and ``touch`` are its
``ConditionalWrites`` (``store_cas``), ``search_scored``/``keyword_idf`` its
``ScoredSearch`` (``store_scored``); their docstrings say why they exist.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)

from memagent.stores import store_ops as ops_
from memagent.stores.embeddings import score_floor
from memagent.stores.engine_retry import RetryPolicy, StoreUnavailableError
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
from memagent.stores.store_cas import ConditionalWrites
from memagent.stores.store_factory import EngineName, aopen_store, open_engine, open_store
from memagent.stores.store_plan import Plan, Planner, doc_vectors, index_embeddings
from memagent.stores.store_scored import ScoredSearch
from memagent.stores.tokenize import tokenize
from memagent.stores.ttl_sweeper import TTLSweeper

__all__ = ["QdrantStore", "ScoredItem", "aopen_store", "open_engine", "open_store"]
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


class QdrantStore(BaseStore):
    """LangGraph ``BaseStore`` on a Qdrant engine with hybrid dense + BM25 search."""

    supports_ttl = True

    def __init__(
        self,
        engine: Engine,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        hybrid: HybridConfig | None = None,
    ) -> None:
        self.engine = engine
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
        self._sweeper: TTLSweeper | None = None
        self._closed = False
        self._setup_pending = False
        # as in LangGraph's SQL stores: a read extends a TTL only when the store's
        # config opts in; ``refresh_ttl=True`` on a read alone does not
        self._refresh_on_read = bool((ttl or {}).get("refresh_on_read", False))
        self._cas = ConditionalWrites(
            engine,
            write_lock=self._write_lock,
            prepare=self._prepare_put,
            apply=self._apply_puts,
            bump=self._bump_points,
            check_open=self._check_open,
            ttl_config=ttl,
        )
        self._scored = ScoredSearch(
            engine,
            searcher=self._searcher,
            hybrid=self.hybrid,
            embeddings=self.embeddings,
            ttl_config=ttl,
            search=self._search,
            refresh=self._refresh,
            visible_after=self._visible_after,
        )

    # ------------------------------------------------------------ lifecycle

    @classmethod
    @contextmanager
    def from_location(
        cls,
        location: str,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        hybrid: HybridConfig | None = None,
        engine: EngineName = "auto",
        api_key: str | None = None,
        collection: str = "memagent",
        search_threads: int | None = 1,
        shared: bool = False,
        read_only: bool = False,
        timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
    ) -> Iterator[QdrantStore]:
        """Open (and ``setup()``) a store; closed on exit. See ``open_engine``.

        ``api_key`` is the server's key, taken as given: settings are read by the
        caller (``open_store`` passes the settings' ``qdrant_api_key``), never here.
        A TTL config with ``sweep_interval_minutes`` starts the sweeper thread.
        A server that is down at open leaves the store degraded, not unopened: its setup
        runs on the first call after the server answers (``StoreUnavailableError`` until
        then), so an agent starts and replies while the store is away.
        """
        dims = int(index["dims"]) if index and "dims" in index else None
        distance = index_distance(index) if index else "cosine"
        eng = open_engine(
            location,
            dims,
            engine=engine,
            api_key=api_key,
            collection=collection,
            search_threads=search_threads,
            shared=shared,
            distance=distance,
            read_only=read_only,
            timeout_s=timeout_s,
            retry=retry,
        )
        try:
            store = cls(eng, index=index, ttl=ttl, hybrid=hybrid)
        except Exception:
            eng.close()
            raise
        try:
            store.setup(defer_outage=not getattr(eng, "local", True))
            if ttl and ttl.get("sweep_interval_minutes"):
                store.start_ttl_sweeper()
            yield store
        finally:
            store.close()

    def setup(self, *, defer_outage: bool = False) -> None:
        """Create payload indexes and check the store's recorded dims (idempotent, also
        when several processes set one store up at once). ``defer_outage``: a server that
        is down leaves the setup pending, for the first call after it is back."""
        try:
            with self.engine.session():
                self._setup()
            self._setup_pending = False
        except StoreUnavailableError:
            if not defer_outage:
                raise
            self._setup_pending = True

    def _setup(self) -> None:
        have = self.engine.indexed_fields()
        wanted: list[tuple[str, Literal["keyword", "integer", "float"]]] = [
            *((f"ns_{i}", "keyword") for i in range(ops_.NS_INDEXED_DEPTH)),
            ("ns", "keyword"),
            ("updated_ts", "float"),
            ("expires_at", "float"),
        ]
        for name, kind in wanted:
            if name not in have:
                self.engine.create_index(name, kind)
        self._ns_indexed = {n for n, _ in wanted if n.startswith("ns_")} | have
        info_id = ops_.meta_id("store")
        fields = ["dims", "indexed", "distance"]
        recs = self.engine.retrieve([info_id], fields)
        if not recs:
            # Insert-only: of processes setting up a new store at once, the first record
            # stands and every process checks itself against the one that stood.
            payload = {
                "meta": "store",
                "dims": self.engine.dims,
                "indexed": self.index_config is not None,
                "distance": self.engine.distance,
                "schema": 1,
            }
            self.engine.upsert_if([PointData(info_id, None, payload)], mode="insert")
            recs = self.engine.retrieve([info_id], fields)
        if recs:
            self._check_recorded(recs[0].payload)

    def _check_recorded(self, stored: dict[str, Any]) -> None:
        """Check this store's index config against the one the store was created with."""
        indexed = self.index_config is not None
        distance = stored.get("distance") or "cosine"  # stores from before it was kept
        if stored.get("indexed") and not indexed:
            self.engine.dims = int(stored.get("dims") or self.engine.dims)
            self.engine.distance = distance
            return  # opening an indexed store without index: plain key-value access
        if stored.get("indexed") and stored.get("dims") != self.engine.dims:
            raise ValueError(
                f"store has {stored.get('dims')}-dim vectors, opened with {self.engine.dims}"
            )
        if stored.get("indexed") and distance != self.engine.distance:
            raise ValueError(
                f"store compares vectors by {distance!r}, opened with distance_type "
                f"{self.engine.distance!r}; the distance cannot change"
            )
        if not stored.get("indexed") and indexed:
            raise ValueError(
                "this store was created without an index config; its vector size cannot "
                "change. Create a new store (or location) to use semantic search."
            )

    def close(self) -> None:
        """Stop the sweeper, flush and release the engine (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.stop_ttl_sweeper()
        self.engine.close()

    def optimize(self) -> bool:
        """Build vector indexes now (edge engine only; a server optimises by itself)."""
        fn = getattr(self.engine, "optimize", None)
        return bool(fn()) if fn else False

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

    # ------------------------------------------------------------ TTL

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

    # ------------------------------------------------------------ extensions

    def get_rev(self, namespace: tuple[str, ...], key: str) -> tuple[Item, str] | None:
        return self._cas.get_rev(namespace, key)

    async def aget_rev(self, namespace: tuple[str, ...], key: str) -> tuple[Item, str] | None:
        return await self._cas.aget_rev(namespace, key)

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
        return self._cas.put_if(namespace, key, value, expect=expect, index=index, ttl=ttl)

    async def aput_if(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        *,
        expect: str | None,
        index: Literal[False] | list[str] | None = None,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> str | None:
        return await self._cas.aput_if(namespace, key, value, expect=expect, index=index, ttl=ttl)

    def touch(
        self, namespace: tuple[str, ...], keys: Iterable[str], *, at: datetime | None = None
    ) -> int:
        return self._cas.touch(namespace, keys, at=at)

    async def atouch(
        self, namespace: tuple[str, ...], keys: Iterable[str], *, at: datetime | None = None
    ) -> int:
        return await self._cas.atouch(namespace, keys, at=at)

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
        self._check_open()
        return self._scored.search_scored(
            namespace_prefix,
            query=query,
            mode=mode,
            filter=filter,
            limit=limit,
            offset=offset,
            refresh_ttl=refresh_ttl,
        )

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
        if self._setup_pending:
            await asyncio.to_thread(self._check_open)
        return await self._scored.asearch_scored(
            namespace_prefix,
            query=query,
            mode=mode,
            filter=filter,
            limit=limit,
            offset=offset,
            refresh_ttl=refresh_ttl,
        )

    def keyword_idf(self, namespace_prefix: tuple[str, ...], text: str) -> dict[str, float]:
        self._check_open()
        return self._scored.keyword_idf(namespace_prefix, text)
