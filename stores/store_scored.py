"""Scored search on ``QdrantStore``, beyond ``BaseStore``: side scores and keyword idf.

``search_scored()`` runs the same search as ``search()`` with a query, but returns
``ScoredItem``s carrying the fused relevance and the dense and keyword side scores, in
a mode chosen per call (``hybrid``, ``dense`` or ``keyword``); the write path uses the
dense score to find near-duplicates. ``keyword_idf()`` gives the BM25 idf of a text's
terms under a namespace prefix; the agent's recall picks expansion terms with it.

Split from ``qdrant_store`` to keep that module to the ``BaseStore`` itself. This is a
mixin: ``QdrantStore`` inherits it, so the methods are ``QdrantStore``'s as before; the
attributes it relies on are declared for the type checker only.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import SearchOp, TTLConfig, validate_op_namespace

from memagent.stores import store_ops as ops_
from memagent.stores.engines import Engine
from memagent.stores.fusion import HybridConfig, SearchMode
from memagent.stores.hybrid_search import HybridSearcher, ScoredItem
from memagent.stores.tokenize import tokenize_cached


class ScoredSearch:
    """``keyword_idf`` and ``search_scored`` (and its async twin) for ``QdrantStore``."""

    if TYPE_CHECKING:  # provided by QdrantStore
        engine: Engine
        embeddings: Embeddings | None
        ttl_config: TTLConfig | None
        hybrid: HybridConfig
        _searcher: HybridSearcher

        def _search(
            self,
            op: SearchOp,
            qvec: list[float] | None,
            mode: SearchMode,
            now: datetime,
            refresh: dict[float, dict[str, str]],
            *,
            fill: bool = True,
        ) -> list[ScoredItem]: ...

        def _refresh(self, refresh: dict[float, dict[str, str]], now: datetime) -> None: ...

        def _visible_after(self, now: datetime) -> float: ...

    def keyword_idf(self, namespace_prefix: tuple[str, ...], text: str) -> dict[str, float]:
        """Keyword terms of ``text`` (the store's tokenizer) with their BM25 idf under
        ``namespace_prefix``; terms no item there contains are left out. The agent's
        recall uses it to pick expansion terms from its first results."""
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
        now = ops_.utcnow()
        refresh: dict[float, dict[str, str]] = {}
        with self.engine.session():
            found = self._search(op, qvec, mode, now, refresh, fill=False)
            self._refresh(refresh, now)
        return found
