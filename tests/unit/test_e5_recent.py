"""E5Embeddings answers a passage it embedded moments ago from a small cache: the poisoning
screen embeds a memory just before the store indexes the same text, and that second call
must not run the model again."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memagent.stores import embeddings as emb_mod
from memagent.stores.embeddings import E5Embeddings


class CountingModel:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def passage(self, texts: list[str]) -> Any:
        self.calls.append(list(texts))
        return np.array([[float(len(t)), float(i)] for i, t in enumerate(texts)], dtype=np.float32)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> CountingModel:
    model = CountingModel()
    monkeypatch.setattr(E5Embeddings, "_model", model)
    monkeypatch.setattr(E5Embeddings, "_model_variant", "original")
    monkeypatch.setattr(E5Embeddings, "_recent", type(E5Embeddings._recent)())
    return model


def test_a_recent_passage_is_not_embedded_twice(counting: CountingModel) -> None:
    e = E5Embeddings()
    first = e.embed_documents(["Budget is 40k EUR."])
    again = e.embed_documents(["Prefers email.", "Budget is 40k EUR."])
    assert again[1] == first[0]
    assert counting.calls == [["Budget is 40k EUR."], ["Prefers email."]]


def test_the_cache_is_bounded(counting: CountingModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emb_mod, "RECENT_PASSAGES", 3)
    e = E5Embeddings()
    texts = [f"note {i}" for i in range(5)]
    assert len(e.embed_documents(texts)) == 5
    assert len(E5Embeddings._recent) == 3
    e.embed_documents(["note 0"])  # evicted: embedded again
    assert counting.calls[-1] == ["note 0"]
