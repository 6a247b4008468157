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
(``protocols.py``): compare-and-set (``get_rev``/``put_if``), ``touch``,
``search_scored`` and ``keyword_idf``; their docstrings say why they exist.

The class is built in three steps, each a module with one concern: ``StoreCore``
(``store_core``: the state, ``batch``, reads, writes, TTL sweeps and ``close``),
``StoreExtensions`` (``store_extensions``: the Protocol) and ``QdrantStore`` here:
opening a location and setting the collection up.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

from langgraph.store.base import IndexConfig, TTLConfig

from memagent.stores import store_ops as ops_
from memagent.stores.engine_retry import RetryPolicy, StoreUnavailableError
from memagent.stores.engines import Distance, PointData
from memagent.stores.fusion import HybridConfig
from memagent.stores.hybrid_search import ScoredItem
from memagent.stores.store_core import index_distance
from memagent.stores.store_extensions import StoreExtensions
from memagent.stores.store_factory import EngineName, aopen_store, open_engine, open_store

__all__ = ["QdrantStore", "ScoredItem", "aopen_store", "open_engine", "open_store"]


class QdrantStore(StoreExtensions):
    """LangGraph ``BaseStore`` on a Qdrant engine with hybrid dense + BM25 search."""

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
        value_indexes: Sequence[str] = ops_.VALUE_INDEXES,
    ) -> Iterator[QdrantStore]:
        """Open (and ``setup()``) a store; closed on exit. See ``open_engine``.

        ``api_key`` is the server's key, taken as given: settings are read by the
        caller (``open_store`` passes the settings' ``qdrant_api_key``), never here.
        A TTL config with ``sweep_interval_minutes`` starts the sweeper thread.
        A server that is down at open leaves the store degraded, not unopened: its setup
        runs on the first call after the server answers (``StoreUnavailableError`` until
        then), so an agent starts and replies while the store is away.
        ``value_indexes``: value fields given a keyword payload index, so a filter on them
        is answered from the index (default ``store_ops.VALUE_INDEXES``; an existing store
        gets the missing ones when it is opened).
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
            store = cls(eng, index=index, ttl=ttl, hybrid=hybrid, value_indexes=value_indexes)
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
            *((f"value.{name}", "keyword") for name in self.value_indexes),
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
        distance: Distance = stored.get("distance") or "cosine"  # older stores: cosine
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

    def optimize(self) -> bool:
        """Build vector indexes now (edge engine only; a server optimises by itself)."""
        fn = getattr(self.engine, "optimize", None)
        return bool(fn()) if fn else False
