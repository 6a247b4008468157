"""Scores as LangGraph's stores give them: ``distance_type`` and the similarity switch.

Found by running LangGraph's own store tests against ``QdrantStore``: an index's
``distance_type`` was silently ignored (cosine always), and in hybrid mode
``SearchItem.score`` is the fused relevance, so code thresholding on ``score`` behaves
differently from ``InMemoryStore``. ``HybridConfig(score="similarity")`` is the switch.
Every backend x sync/async; the reference compares by cosine only.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from store_contract_helpers import is_persistent

from memagent.stores.fusion import HybridConfig

NS = ("scores",)
# vectors chosen so cosine, inner product and L2 rank the three items differently
VECTORS = {
    "q": [1.0, 0.0, 0.0],
    "a": [3.0, 0.0, 0.0],  # cos 1, dot 3, l2 2
    "b": [0.8, 0.6, 0.0],  # cos 0.8, dot 0.8, l2 0.632
    "c": [0.5, 0.0, 0.0],  # cos 1, dot 0.5, l2 0.5
}


class FixedEmbeddings(Embeddings):
    """Each text is one of ``VECTORS``' keys; its vector is the table's (not normalised)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [VECTORS[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return VECTORS[text]


def _expected(distance: str, key: str) -> float:
    q, v = np.array(VECTORS["q"]), np.array(VECTORS[key])
    if distance == "cosine":
        return float(q @ v / (np.linalg.norm(q) * np.linalg.norm(v)))
    if distance == "inner_product":
        return float(q @ v)
    return -float(np.linalg.norm(q - v))


def _index(distance: str | None) -> dict:
    index = {"dims": 3, "embed": FixedEmbeddings(), "fields": ["t"]}
    if distance:
        index["distance_type"] = distance
    return index


@pytest.mark.parametrize("distance", ["cosine", "inner_product", "l2"])
def test_distance_type_scores_and_ranks_as_langgraph(make_store, api, backend, distance) -> None:
    if backend == "reference" and distance != "cosine":
        pytest.skip("InMemoryStore compares by cosine whatever distance_type says")
    with make_store(index=_index(distance), hybrid=HybridConfig(default_mode="dense")) as store:
        s = api(store)
        for key in ("a", "b", "c"):
            s.put(NS, key, {"t": key})
        found = s.search(NS, query="q")
        want = sorted("abc", key=lambda k: -_expected(distance, k))
        if distance == "cosine":  # a and c tie at 1.0: either order
            assert [i.key for i in found][2] == want[2]
        else:
            assert [i.key for i in found] == want
        for item in found:
            assert item.score == pytest.approx(_expected(distance, item.key), abs=1e-4)


def test_distance_type_in_hybrid_mode_ranks_by_that_distance(make_store, api, backend) -> None:
    if backend == "reference":
        pytest.skip("InMemoryStore compares by cosine whatever distance_type says")
    with make_store(index=_index("l2"), hybrid=HybridConfig(score="similarity")) as store:
        s = api(store)
        for key in ("a", "b", "c"):
            s.put(NS, key, {"t": key})
        found = s.search(NS, query="q")
        assert [i.key for i in found] == ["c", "b", "a"]
        assert [i.score for i in found] == pytest.approx([_expected("l2", k) for k in "cba"])


def test_unknown_distance_type_is_refused(make_store, backend) -> None:
    if backend == "reference":
        pytest.skip("InMemoryStore ignores distance_type")
    with (
        pytest.raises(ValueError, match="unsupported distance_type 'hamming'"),
        make_store(index=_index("hamming")),
    ):
        pass


def test_reopening_with_another_distance_type_fails_clearly(make_store, backend) -> None:
    if not is_persistent(backend):
        pytest.skip("needs a store that persists")
    with make_store(index=_index("l2")) as store:
        store.put(NS, "a", {"t": "a"})
    with pytest.raises(ValueError, match="distance"), make_store(index=_index("cosine")):
        pass
    with make_store(index=_index("l2")) as store:  # the same distance reopens fine
        assert store.get(NS, "a") is not None


# ------------------------------------------------------------------ the score switch


def _cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


DOCS = {
    "k1": "the budget is twenty thousand dollars",
    "k2": "Dana prefers calls on Tuesday mornings",
    "k3": "budget approval needs the CFO",
    "k4": "the office moved to Berlin",
}


def test_similarity_switch_reports_the_scores_inmemorystore_reports(
    make_store, api, index, embeddings
) -> None:
    with make_store(index=index, hybrid=HybridConfig(score="similarity")) as store:
        s = api(store)
        for key, text in DOCS.items():
            s.put(NS, key, {"text": text})
        query = "what is the budget"
        found = s.search(NS, query=query, limit=4)
        assert {i.key for i in found} == set(DOCS)
        qvec = embeddings.inner.embed_query(query)
        for item in found:
            want = _cos(qvec, embeddings.inner.embed_query(DOCS[item.key]))
            assert item.score == pytest.approx(want, abs=1e-4), item.key
        # a threshold keeps what it keeps on InMemoryStore
        cut = sorted(i.score for i in found)[1]
        kept = {i.key for i in found if i.score > cut}
        assert kept == {
            k for k, t in DOCS.items() if _cos(qvec, embeddings.inner.embed_query(t)) > cut
        }


def test_default_hybrid_score_is_the_fused_relevance(make_store, api, index, backend) -> None:
    """The documented difference: without the switch, hybrid scores are fused relevances."""
    if backend == "reference":
        pytest.skip("the reference has no hybrid mode")
    with make_store(index=index) as store:
        s = api(store)
        for key, text in DOCS.items():
            s.put(NS, key, {"text": text})
        found = s.search(NS, query="budget", limit=4)
        scored = {h.item.key: h for h in store.search_scored(NS, query="budget", limit=4)}
        for item in found:
            assert item.score == pytest.approx(scored[item.key].relevance)
            assert 0.0 <= item.score <= 1.0
        assert any(not math.isclose(i.score, scored[i.key].dense, abs_tol=1e-6) for i in found)


def test_unknown_score_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown score 'cosine'"):
        HybridConfig(score="cosine")  # type: ignore[arg-type]
