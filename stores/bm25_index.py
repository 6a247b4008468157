"""Per-namespace-prefix BM25 (``rank_bm25_rs``, a bit-identical drop-in for rank_bm25).

BM25 scores only the items under the searched namespace prefix, so term
statistics are those of one user/customer, not of the whole store. Built
corpora are cached per (prefix, filter) in an LRU.

Staleness bound. Every write bumps a random *version token* stored in a meta
point for each prefix of the written namespace (``()``, ``("a",)``, ``("a","b")``
...), in the same engine as the data. A keyword search reads the token of its
prefix (one point lookup) *before* reading the corpus and reuses a cached corpus
only if the token is unchanged. So, also for several processes sharing one
Qdrant server, a search that starts after a write has returned never uses a
corpus older than that write: staleness is bounded by the write itself (zero
after it returns). Items that expire after a corpus was built are dropped
when results are read (every result is re-checked against ``expires_at``).
``QdrantStore.touch`` changes values but no keyword text, so it leaves that token
alone and bumps a second one, ``values``, which only corpora built for a *filtered*
search also read (a filter may test a touched field).

Small corpora. Okapi's idf ``log((N - n + .5) / (n + .5))`` is zero or negative
when a term is in half the documents or more (rank_bm25 then substitutes
``0.25 * mean idf``, itself zero or negative when most terms are that common), so
in a namespace of a few memories a keyword match would score nothing. A corpus of
fewer than ``PAD_BELOW`` (100) documents is padded with N + 1 neutral documents
(one filler token, average length), so every real term has ``n < N'/2`` and a
positive idf; average length, and so length normalisation, are unchanged. From
100 documents on, a term in half of them is as uninformative as a stop word and
rank_bm25's own floor is positive for any natural vocabulary, so the corpus is left
as it is and scores exactly like ``rank_bm25.BM25Okapi`` (the README baselines of
LoCoMo, whose conversations have 369-680 turns, reproduce to the third decimal).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from rank_bm25_rs import BM25Okapi

_FILLER = "\x00"
PAD_BELOW = 100
"""Corpora with fewer documents are padded (see module docstring)."""


@dataclass
class KeywordCorpus:
    """A built BM25 corpus: point ids in corpus order and the scorer (None if empty)."""

    ids: list[str]
    bm25: BM25Okapi | None
    token: str | None

    @property
    def position(self) -> dict[str, int]:
        pos = self.__dict__.get("_pos")
        if pos is None:
            pos = {pid: i for i, pid in enumerate(self.ids)}
            self.__dict__["_pos"] = pos
        return pos


def build_corpus(
    docs: Sequence[tuple[str, Sequence[str]]],
    token: str | None,
    *,
    k1: float = 1.5,
    b: float = 0.75,
    pad_below: int = PAD_BELOW,
) -> KeywordCorpus:
    """BM25 over ``(point id, tokens)`` pairs; small corpora padded so every idf is positive."""
    ids = [pid for pid, _ in docs]
    if not docs:
        return KeywordCorpus(ids, None, token)
    corpus = [list(toks) for _, toks in docs]
    if len(corpus) < pad_below:
        avg = max(1, round(sum(len(t) for t in corpus) / len(corpus)))
        filler = [_FILLER] * avg
        corpus.extend([filler] * (len(docs) + 1))
    return KeywordCorpus(ids, BM25Okapi(corpus, k1=k1, b=b), token)


def scores(corpus: KeywordCorpus, query: Sequence[str]) -> np.ndarray:
    """BM25 score of every real document for ``query`` (zeros if nothing to score)."""
    n = len(corpus.ids)
    if corpus.bm25 is None or not query:
        return np.zeros(n)
    return np.asarray(corpus.bm25.get_scores(list(query)))[:n]


def top_k(corpus: KeywordCorpus, query: Sequence[str], k: int) -> dict[str, float]:
    """The ``k`` best positive-scoring point ids, best first."""
    return best(corpus, scores(corpus, query), k)


def best(corpus: KeywordCorpus, s: np.ndarray, k: int) -> dict[str, float]:
    """The ``k`` best positive entries of ``s`` (scores in corpus order), best first."""
    hits = np.flatnonzero(s > 0)
    if hits.size == 0:
        return {}
    if hits.size > k:
        hits = hits[np.argpartition(-s[hits], k - 1)[:k]]
    hits = hits[np.argsort(-s[hits], kind="stable")]
    return {corpus.ids[i]: float(s[i]) for i in hits}


class KeywordCache:
    """Thread-safe LRU of built corpora keyed by (prefix, filter key, tokenizer)."""

    def __init__(self, capacity: int = 1024) -> None:
        self.capacity = capacity
        self._data: OrderedDict[Hashable, KeywordCorpus] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, token: str | None) -> KeywordCorpus | None:
        with self._lock:
            corpus = self._data.get(key)
            if corpus is None or corpus.token != token:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return corpus

    def put(self, key: Hashable, corpus: KeywordCorpus) -> None:
        with self._lock:
            self._data[key] = corpus
            self._data.move_to_end(key)
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
