"""Planning of a ``QdrantStore`` batch, before any engine I/O: what to embed.

``Planner.plan`` validates the ops (namespaces, filters, JSON values), deduplicates the
puts of one batch (last wins) and collects every text to embed and every query, so the
store embeds a batch in one ``embed_documents`` call; ``doc_vectors`` then pairs texts
with vectors and refuses an embedder that returned another count. Pure, no I/O: the
sync and async batch paths share it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    ListNamespacesOp,
    Op,
    PutOp,
    SearchOp,
    ensure_embeddings,
    get_text_at_path,
    tokenize_path,
    validate_op_namespace,
)

from memagent.stores import store_ops as ops_
from memagent.stores.embeddings import resolve_embeddings
from memagent.stores.fusion import HybridConfig

PutKey = tuple[tuple[str, ...], str]


@dataclass
class Plan:
    """What one batch needs before any engine I/O: the embedding work."""

    ops: list[Op]
    puts: dict[PutKey, PutOp] = field(default_factory=dict)
    texts: dict[PutKey, list[str]] = field(default_factory=dict)
    keyword_texts: dict[PutKey, list[str]] = field(default_factory=dict)
    doc_texts: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


def duck_embeddings(embed: Any) -> bool:
    """An object with ``embed_documents``/``embed_query`` that is not an ``Embeddings``.

    LangGraph's own store tests pass such an object as ``embed``; without this
    check ``ensure_embeddings`` would take it for a plain callable and fail.
    """
    return (
        not isinstance(embed, Embeddings)
        and callable(getattr(embed, "embed_documents", None))
        and callable(getattr(embed, "embed_query", None))
    )


class DuckEmbeddings(Embeddings):
    """``Embeddings`` over a duck-typed embedder; keeps its ``dims``/``score_floor``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        for attr in ("dims", "score_floor"):
            if hasattr(inner, attr):
                setattr(self, attr, getattr(inner, attr))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(v) for v in self.inner.embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        return list(self.inner.embed_query(text))

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        if hasattr(self.inner, "aembed_documents"):
            return [list(v) for v in await self.inner.aembed_documents(texts)]
        return await super().aembed_documents(texts)

    async def aembed_query(self, text: str) -> list[float]:
        if hasattr(self.inner, "aembed_query"):
            return list(await self.inner.aembed_query(text))
        return await super().aembed_query(text)


def index_embeddings(index: IndexConfig, dims_of_engine: int) -> tuple[Embeddings, list[str]]:
    """The embedder and the embedded value paths of an index config, validated against
    the engine's vector size."""
    dims = index.get("dims")
    if not isinstance(dims, int) or dims <= 0:
        raise ValueError("index config needs 'dims', a positive int")
    if dims != dims_of_engine:
        raise ValueError(f"index dims {dims} != engine dims {dims_of_engine}")
    if index.get("embed") is None:
        raise ValueError("index config needs 'embed' (Embeddings, callable or string)")
    embed = resolve_embeddings(index["embed"])
    if duck_embeddings(embed):
        embed = DuckEmbeddings(embed)
    return ensure_embeddings(embed), list(index.get("fields") or ["$"])


class Planner:
    """Plans batches for one store: its embedder, embedded paths and keyword-only paths."""

    def __init__(
        self, embeddings: Embeddings | None, fields: Sequence[str], hybrid: HybridConfig
    ) -> None:
        self.embeddings = embeddings
        self.default_mode = hybrid.default_mode
        self.fields = [(p, p if p == "$" else tokenize_path(p)) for p in fields]
        self.keyword_only = [(p, tokenize_path(p)) for p in hybrid.keyword_only_fields]

    def plan(self, ops: Iterable[Op]) -> Plan:
        """Validate ``ops`` and collect the texts to embed and the queries."""
        plan = Plan(list(ops))
        queries: dict[str, None] = {}
        for op in plan.ops:
            validate_op_namespace(op)
            if isinstance(op, PutOp):
                if not op.namespace:
                    raise InvalidNamespaceError("Namespace cannot be empty.")
                if op.value is not None:
                    ops_.check_value(op.namespace, op.key, op.value)
                plan.puts[(tuple(op.namespace), str(op.key))] = op
            elif isinstance(op, SearchOp):
                ops_.validate_filter(op.filter)
                if op.query and self.embeddings and self.default_mode != "keyword":
                    queries[op.query] = None
            elif not isinstance(op, GetOp | ListNamespacesOp):
                raise ValueError(f"unknown operation type: {type(op).__name__}")
        plan.queries = list(queries)
        docs: dict[str, None] = {}
        for put_key, op in plan.puts.items():
            texts, keyword_texts = self.texts(op)
            if texts:
                plan.texts[put_key] = texts
                docs.update(dict.fromkeys(texts))
                if keyword_texts:
                    plan.keyword_texts[put_key] = keyword_texts
        plan.doc_texts = list(docs)
        return plan

    def texts(self, op: PutOp) -> tuple[list[str], list[str]]:
        """Texts to embed and keyword-only texts (BM25 only) of one put."""
        if op.value is None or op.index is False or not self.embeddings:
            return [], []
        if op.index is None:
            paths = self.fields
        else:
            paths = [(p, p if p == "$" else tokenize_path(p)) for p in op.index]
        value, skip = op.value, {p for p, _ in self.keyword_only}
        whole = value
        if skip and any(p == "$" for p, _ in paths):  # the whole value, minus keyword-only keys
            whole = {k: v for k, v in value.items() if k not in skip}
        dense = [
            t
            for p, path in paths
            if p not in skip
            for t in get_text_at_path(whole if p == "$" else value, path)
            if t
        ]
        keyword = [t for _, path in self.keyword_only for t in get_text_at_path(value, path) if t]
        return dense, keyword


def doc_vectors(plan: Plan, dvecs: Sequence[Sequence[float]]) -> dict[str, Sequence[float]]:
    """The plan's document texts with their vectors; an embedder that returned another
    number of vectors than texts is an error, never a silent misalignment."""
    if len(dvecs) != len(plan.doc_texts):
        raise ValueError(f"embedder returned {len(dvecs)} vectors for {len(plan.doc_texts)} texts")
    return dict(zip(plan.doc_texts, dvecs, strict=True))
