"""Helpers shared by the store contract tests (imported by name: tests/ is not a package)."""

from __future__ import annotations

import pytest
from langchain_core.embeddings import Embeddings

from memagent.stores.embeddings import hash_embeddings

DIMS = 64


class CountingEmbeddings(Embeddings):
    """Hash embeddings that record every call (to check batching and dedup)."""

    def __init__(self, dims: int = DIMS) -> None:
        self.inner = hash_embeddings(dims)
        self.document_calls: list[list[str]] = []
        self.query_calls: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.document_calls.append(list(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.query_calls.append(text)
        return self.inner.embed_query(text)


def reference_fault(backend: str, reason: str) -> None:
    """Mark a case where the reference itself is wrong: xfail for it, required elsewhere."""
    if backend == "reference":
        pytest.xfail(f"known InMemoryStore fault: {reason}")


def is_persistent(backend: str) -> bool:
    return backend in ("edge-dir", "client-local", "server")
