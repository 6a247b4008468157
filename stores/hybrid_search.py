"""Hybrid ranking: dense candidates from the engine + BM25 over the namespace prefix.

One query: dense top-N from Qdrant (filtered by prefix, value filters, liveness,
"has vectors"), BM25 top-N over the prefix's keyword corpus (cached, see
``bm25_index``), exact dense scores for keyword-only candidates (one ``HasId``
query) and keyword scores for dense-only ones (the corpus scores every item, once),
fused by ``fusion.fuse``. Payloads are read only for the result window.

The ``HasId`` query stays because it is cheap: 0.20 ms p50 / 0.3 ms p95 (~37 ids)
of ~1.4 ms store time per LoCoMo question (680 items a namespace). One engine call
with two prefetches measured no cheaper (0.50 vs 0.47 ms CPU for both lookups), and
scoring in numpy would need every vector in the keyword cache, rebuilt on each write.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langgraph.store.base import SearchItem, SearchOp

from memagent.stores import bm25_index as kw
from memagent.stores import store_ops as ops_
from memagent.stores.engines import INDEXED, Engine, HasId, Where, cosine_like, dense_score
from memagent.stores.fusion import Fused, HybridConfig, SearchMode, fuse
from memagent.stores.tokenize import tokenize, tokenize_cached


@dataclass
class ScoredItem:
    """A search result with its fused relevance in [0, 1] and the side scores: ``dense``
    is LangGraph's similarity score (``dense_score``), ``keyword`` the raw BM25 score."""

    item: SearchItem
    relevance: float
    dense: float | None = None
    keyword: float | None = None


@dataclass(frozen=True)
class _KeywordSide:
    """The keyword side of one search (``HybridSearcher._keyword_side``)."""

    corpus: kw.KeywordCorpus
    query: tuple[str, ...]
    depth: int
    scores: np.ndarray
    best: dict[str, float]


class HybridSearcher:
    """Ranks a ``SearchOp`` with a query on one engine; holds the keyword cache."""

    def __init__(self, engine: Engine, config: HybridConfig) -> None:
        self.engine = engine
        self.config = config
        self.cache = kw.KeywordCache(config.keyword_cache_size)
        self._local = threading.local()

    def ranked(
        self,
        op: SearchOp,
        qvec: list[float] | None,
        mode: SearchMode,
        visible_after: float,
    ) -> list[tuple[ScoredItem, dict[str, Any]]]:
        """Fused ranking window ``[offset, offset + limit)`` with each item's payload,
        over items whose ``expires_at`` is after ``visible_after`` (epoch seconds).

        Dense scores are LangGraph's (``dense_score``: the negated distance for ``l2``);
        fusion sees them on the cosine scale. An item's ``score`` is the fused relevance,
        or its dense score in dense mode or with ``HybridConfig.score="similarity"``.
        """
        cfg = self.config
        use_dense, use_kw = mode != "keyword" and qvec is not None, mode != "dense"
        dense, keyword = self._candidates(op, qvec if use_dense else None, use_kw, visible_after)
        scale = {k: cosine_like(v, self.engine.distance) for k, v in dense.items()}
        fused = fuse(scale, keyword, cfg.fusion, use_dense=use_dense, use_keyword=use_kw)
        similarity = mode == "dense" or (cfg.score == "similarity" and use_dense)
        return self._window(op, fused, dense, similarity, visible_after)

    def _candidates(
        self, op: SearchOp, qvec: list[float] | None, use_kw: bool, visible_after: float
    ) -> tuple[dict[str, float], dict[str, float]]:
        """Dense (with ``qvec``) and keyword (with ``use_kw``) candidates: id -> score.

        Each side gets the other's candidates' scores too: the corpus scores every item,
        and keyword-only candidates get their exact dense score in one ``HasId`` query.
        """
        cfg = self.config
        prefix, flt, query = tuple(op.namespace_prefix), op.filter, op.query or ""
        want = op.offset + op.limit
        dist = self.engine.distance
        where = ops_.data_where(prefix, flt, visible_after).and_(INDEXED)
        slack = 2 if flt else 1  # untranslated filters are checked after the engine
        dense: dict[str, float] = {}
        if qvec is not None:
            depth = max(cfg.dense_candidates, want) * slack
            hits = self.engine.search(qvec, where, depth, [])
            dense = {h.id: dense_score(h.score, dist) for h in hits}
        keyword: dict[str, float] = {}
        if use_kw:
            corpus = self.corpus(prefix, flt, visible_after)
            qtok = tuple(tokenize_cached(query, cfg.tokenizer))
            depth = max(cfg.keyword_candidates, want) * slack
            all_scores, best = self._keyword_side(corpus, qtok, depth)
            keyword = dict(best)
            if dense and keyword:
                pos = corpus.position
                for pid in dense:
                    if pid not in keyword and pid in pos:
                        keyword[pid] = float(all_scores[pos[pid]])
            missing = [pid for pid in keyword if pid not in dense]
            if qvec is not None and missing:
                w = Where(must=(HasId(tuple(missing)), ops_.live(visible_after)))
                hits = self.engine.search(qvec, w, len(missing), [])
                dense.update((h.id, dense_score(h.score, dist)) for h in hits)
        return dense, keyword

    def _keyword_side(
        self, corpus: kw.KeywordCorpus, qtok: tuple[str, ...], depth: int
    ) -> tuple[np.ndarray, dict[str, float]]:
        """BM25 scores of every item of ``corpus`` for ``qtok`` (dense candidates get
        theirs too) and the ``depth`` best. The last ones this thread computed are reused
        for the same corpus (the same object: its version token is unchanged, so nothing
        under the prefix was written since), query and depth: recall's keyword probe and
        the hybrid search after it ask for the same keyword side
        (``memagent.nodes.recall_search``)."""
        last: _KeywordSide | None = getattr(self._local, "keyword", None)
        if last is not None and last.corpus is corpus and (last.query, last.depth) == (qtok, depth):
            return last.scores, last.best
        scores = kw.scores(corpus, qtok)
        best = kw.best(corpus, scores, depth)
        self._local.keyword = _KeywordSide(corpus, qtok, depth, scores, best)
        return scores, best

    def _window(
        self,
        op: SearchOp,
        fused: list[Fused],
        dense: dict[str, float],
        similarity: bool,
        visible_after: float,
    ) -> list[tuple[ScoredItem, dict[str, Any]]]:
        """The window ``[offset, offset + limit)`` of the fused ranking with payloads.

        Payloads only for the window (the binding's payload conversion is the slow part),
        fetched in chunks until the window is full of live, filter-matching items. A
        filter the engine checked whole (``engine_checks_all``) drops next to nothing
        here, so no payloads are read ahead for it.
        """
        flt, want = op.filter, op.offset + op.limit
        slack = 1 if ops_.engine_checks_all(flt) else 2
        kept: list[tuple[ScoredItem, dict[str, Any]]] = []
        start = 0
        while len(kept) < want and start < len(fused):
            chunk = fused[start : start + (want - len(kept)) * slack + 2]
            start += len(chunk)
            got = {
                r.id: r.payload
                for r in self.engine.retrieve([str(f.id) for f in chunk], ops_.ITEM_FIELDS)
            }
            for f in chunk:
                p = got.get(str(f.id))
                if (
                    p is None
                    or not ops_.alive(p, visible_after)
                    or not ops_.matches_filter(p["value"], flt)
                ):
                    continue
                sim = dense.get(str(f.id))
                item = ops_.to_search_item(p, sim if similarity else f.relevance)
                kept.append((ScoredItem(item, f.relevance, sim, f.keyword), p))
                if len(kept) >= want:
                    break
        return kept[op.offset : want]

    def corpus(
        self, prefix: tuple[str, ...], flt: dict[str, Any] | None, visible_after: float
    ) -> kw.KeywordCorpus:
        tok = self.config.tokenizer
        # a corpus that keeps expired items (``omit_expired=False``) is another corpus
        key = (prefix, ops_.filter_key(flt), tok.signature, visible_after > 0)
        token = self.version(prefix, filtered=bool(flt))  # before the corpus: see bm25_index
        cached = self.cache.get(key, token)
        if cached is not None:
            return cached
        where = ops_.data_where(prefix, flt, visible_after).and_(INDEXED)
        fields = [*ops_.KW_FIELDS, "doc", "value"] if flt else [*ops_.KW_FIELDS, "doc"]
        sig = tok.signature
        docs: list[tuple[str, Sequence[str]]] = []
        for r in self.engine.scan(where, fields):
            p = r.payload
            if flt and not ops_.matches_filter(p.get("value", {}), flt):
                continue
            toks = ops_.unpack_kw(p.get("kw", ""), sig)
            if toks is None:
                toks = tokenize(ops_.doc(p).get("text", ""), tok)
            docs.append((r.id, toks))
        corpus = kw.build_corpus(docs, token)
        self.cache.put(key, corpus)
        return corpus

    def idf(
        self, prefix: tuple[str, ...], terms: Sequence[str], visible_after: float
    ) -> dict[str, float]:
        """BM25 idf of ``terms`` (already tokenized) in the prefix's keyword corpus; terms
        the corpus has never seen are left out. Query expansion weighs candidate terms by it."""
        corpus = self.corpus(prefix, None, visible_after)
        if corpus.bm25 is None:
            return {}
        table = corpus.bm25.idf
        return {t: float(table[t]) for t in terms if t in table}

    def version(self, prefix: Sequence[str], *, filtered: bool = False) -> str | None:
        """Version token of the prefix's keyword corpus; a filtered corpus also depends on
        the values (``touch`` changes values without changing keyword texts)."""
        prefix = tuple(prefix)
        ids = [ops_.meta_id(ops_.KW_VERSION, prefix)]
        if filtered:
            ids.append(ops_.meta_id(ops_.VALUES_VERSION, prefix))
        tokens = {r.id: r.payload.get("token") for r in self.engine.retrieve(ids, ["token"])}
        got = [str(tokens.get(i)) for i in ids]
        return None if not tokens else "|".join(got)
