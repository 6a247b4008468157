"""Per-namespace BM25: padding of small corpora, exact rank_bm25 scores for large ones."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from memagent.stores import bm25_index as kw


def _corpus(n: int, seed: int = 0) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(40)] + ["common"] * 20
    return [(f"id{i}", rng.choices(words, k=rng.randint(3, 12))) for i in range(n)]


def test_large_corpus_scores_exactly_like_rank_bm25() -> None:
    docs = _corpus(kw.PAD_BELOW)
    corpus = kw.build_corpus(docs, None)
    reference = BM25Okapi([toks for _, toks in docs])
    for query in (["w1"], ["common", "w7"], ["w3", "w3", "missing"]):
        assert np.allclose(kw.scores(corpus, query), reference.get_scores(query), atol=1e-9)


def test_small_corpus_is_padded_so_a_shared_term_still_scores() -> None:
    docs = [("a", ["quote", "turbine"]), ("b", ["quote", "valve"])]
    found = kw.top_k(kw.build_corpus(docs, None), ["quote"], 5)
    assert set(found) == {"a", "b"} and all(s > 0 for s in found.values())
    # unpadded, Okapi's idf of a term in every document is negative: nothing would match
    assert max(BM25Okapi([t for _, t in docs]).get_scores(["quote"])) <= 0


def test_padding_threshold() -> None:
    small, large = _corpus(kw.PAD_BELOW - 1), _corpus(kw.PAD_BELOW)
    assert kw.build_corpus(small, None).bm25.corpus_size == 2 * len(small) + 1
    assert kw.build_corpus(large, None).bm25.corpus_size == len(large)
    no_pad = kw.build_corpus(small, None, pad_below=0)
    assert no_pad.bm25.corpus_size == len(small)


@pytest.mark.parametrize("n", [1, 5, kw.PAD_BELOW - 1])
def test_padding_keeps_every_matching_term_positive(n: int) -> None:
    docs = [(f"d{i}", ["shared", f"own{i}"]) for i in range(n)]
    corpus = kw.build_corpus(docs, None)
    assert (kw.scores(corpus, ["shared"]) > 0).all()
    assert kw.top_k(corpus, ["own0"], 3) == {"d0": pytest.approx(kw.scores(corpus, ["own0"])[0])}
