"""The LoCoMo retrieval harness: every conversation into the real store, every question
through a plain scored search or the agent's recall, recall@k and search latency.

``memagent eval locomo`` (``memagent.evals.evaluation``) runs it; the loader, metric and
context fields are ``memagent.evals.locomo_data``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore, PutOp

from memagent.core.settings import Settings, default_settings
from memagent.evals.embed_cache import CachedEmbeddings
from memagent.evals.locomo_data import (
    REFERENCE_STOP_WORDS,
    ContextMode,
    Conversation,
    evaluated,
    load_locomo,
    summarise,
    turn_values,
)
from memagent.nodes.recall_expand import RecallTuning
from memagent.stores.fusion import HybridConfig
from memagent.stores.tokenize import TokenizerConfig

if TYPE_CHECKING:
    from memagent.stores.qdrant_store import QdrantStore

Recall = Literal["hybrid", "dense", "keyword"]
Rewriter = Literal["off", "rules", "llm"]
Path_ = Literal["store", "agent"]
USER_ID = "locomo"
T = TypeVar("T")
Finder = Callable[[str, tuple[str, ...], str], list[str]]
"""``(conversation id, its namespace, query) -> found item keys`` in rank order."""


def reference_hybrid(candidates: int = 50) -> HybridConfig:
    """Store settings of the README's keyword baseline: its stop words, ``\\w+`` parts only."""
    tokenizer = TokenizerConfig(
        stopwords=REFERENCE_STOP_WORDS, keep_identifiers=False, join_identifiers=False, stem=None
    )
    return HybridConfig(tokenizer=tokenizer, keyword_candidates=candidates)


def tuned_hybrid(
    base: HybridConfig | None = None, *, candidates: int | None = None, **fusion: Any
) -> HybridConfig:
    """``base`` (or the store's defaults) with some fusion options and candidate depths set;
    ``None`` values keep the default."""
    base = base or HybridConfig()
    changes = {k: v for k, v in fusion.items() if v is not None}
    depth: dict[str, Any] = {}
    if candidates is not None:
        depth = {"dense_candidates": candidates, "keyword_candidates": candidates}
    return dataclasses.replace(base, fusion=dataclasses.replace(base.fusion, **changes), **depth)


def make_query_rewriter(kind: Rewriter, settings: Settings | None = None) -> Callable[[str], str]:
    """The agent's query-rewrite node for ``kind``, driven with the question as the message
    (``llm``: the small model of ``settings``, the documented defaults when None)."""
    if kind == "off":
        return lambda q: q
    from langchain_core.messages import HumanMessage
    from langgraph.runtime import Runtime

    from memagent.core.context import Context
    from memagent.core.state import State
    from memagent.nodes.query_rewrite import make_rewriter

    def small_model():  # noqa: ANN202 - only built for --rewriter llm
        from memagent.llm.adapter import chat_model

        return chat_model(settings or default_settings(), small=True)

    node = make_rewriter(kind, small_model=small_model)
    runtime = Runtime(context=Context(user_id=USER_ID))

    def rewrite(question: str) -> str:
        state = State(messages=[HumanMessage(question)])
        update = asyncio.run(node(state, runtime))
        return str(update.get("query") or question)

    return rewrite


def describe_hybrid(config: HybridConfig) -> dict[str, Any]:
    """The store's hybrid settings as plain JSON (stop words summarised by their count)."""
    tok = dataclasses.asdict(config.tokenizer)
    tok["stopwords"] = len(config.tokenizer.stopwords)
    return {
        "fusion": dataclasses.asdict(config.fusion),
        "dense_candidates": config.dense_candidates,
        "keyword_candidates": config.keyword_candidates,
        "tokenizer": tok,
    }


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile of ``values`` (NaN when there are none)."""
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


class Clock:
    """Wall-clock and process-CPU milliseconds of each timed call (the CPU time is the
    cost without other load)."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def time(self, fn: Callable[..., T], *args: Any) -> T:
        start, cpu = time.perf_counter(), time.process_time()
        out = fn(*args)
        self.wall.append((time.perf_counter() - start) * 1000)
        self.cpu.append((time.process_time() - cpu) * 1000)
        return out

    def summary(self, *, cpu: bool = True) -> dict[str, Any]:
        """p50 and p95 of the wall-clock times (and of the CPU times with ``cpu``), and n."""
        out: dict[str, Any] = {"p50": percentile(self.wall, 50), "p95": percentile(self.wall, 95)}
        if cpu:
            out |= {"cpu_p50": percentile(self.cpu, 50), "cpu_p95": percentile(self.cpu, 95)}
        return out | {"n": len(self.wall)}


def check_ks(k: Sequence[int]) -> list[int]:
    """The cut-offs ``k`` sorted without repeats; a ``ValueError`` unless all positive."""
    ks = sorted({int(x) for x in k})
    if not ks or ks[0] < 1:
        raise ValueError(f"k must be positive integers, got {k!r}")
    return ks


def embedder(settings: Settings | None, embeddings: Embeddings | None) -> tuple[Embeddings, int]:
    """The run's embedder and its dimensions: ``embeddings`` (probed once for its size)
    or the one ``settings`` name (the documented defaults when None)."""
    from memagent.stores.embeddings import embeddings_from_settings

    if embeddings is None:
        return embeddings_from_settings(settings or default_settings())
    return embeddings, len(embeddings.embed_query("dimension probe"))


def question_count(convs: Sequence[Conversation]) -> int:
    """The evaluated questions (categories 1-4) of ``convs``."""
    return sum(len(evaluated(c.questions)) for c in convs)


def _finder(
    store: QdrantStore, path: Path_, recall: Recall, ks: Sequence[int], tuning: RecallTuning | None
) -> Finder:
    """How one question is searched: the agent's recall (``agent``) or a plain
    ``search_scored`` of the conversation's facts (``store``), ``ks[-1]`` items deep."""
    from memagent.memory.scoring import ScoreWeights
    from memagent.nodes.recall import recall_memories

    weights = ScoreWeights(threshold=0.0, max_items=ks[-1])
    tuning_kw: dict[str, Any] = {"tuning": tuning} if tuning else {}

    def agent(sample_id: str, ns: tuple[str, ...], query: str) -> list[str]:
        found = recall_memories(store, USER_ID, sample_id, query, mode=recall, weights=weights,
                                force_search=True, **tuning_kw)  # fmt: skip
        return [i.key for i in found.items]

    def plain(sample_id: str, ns: tuple[str, ...], query: str) -> list[str]:
        hits = store.search_scored(ns, query=query, mode=recall, limit=ks[-1])
        return [h.item.key for h in hits]

    return agent if path == "agent" else plain


def _ingest(
    store: BaseStore, ns: tuple[str, ...], conv: Conversation, context: ContextMode, emb: Embeddings
) -> None:
    """Every turn of ``conv`` into ``ns`` (the embedding cache saved after)."""
    store.batch(
        [PutOp(ns, key, value, index=fields) for key, value, fields in turn_values(conv, context)]
    )
    if isinstance(emb, CachedEmbeddings):
        emb.save()


def _ask_all(
    store: BaseStore,
    convs: Sequence[Conversation],
    context: ContextMode,
    emb: Embeddings,
    rewrite: Callable[[str], str],
    find: Finder,
    bar: Any,
) -> tuple[list[tuple[int, Sequence[str], Sequence[str]]], Clock]:
    """Each conversation ingested, then each of its questions searched (timed): the
    ``(category, found keys, evidence)`` rows and the clock."""
    from memagent.memory.namespaces import namespace

    rows: list[tuple[int, Sequence[str], Sequence[str]]] = []
    clock = Clock()
    for conv in convs:
        ns = namespace(USER_ID, conv.sample_id, "facts")
        bar.set_postfix_str(f"ingest {conv.sample_id}")
        _ingest(store, ns, conv, context, emb)
        bar.set_postfix_str(f"search {conv.sample_id}")
        for q in evaluated(conv.questions):
            query = rewrite(q.question)
            keys = clock.time(find, conv.sample_id, ns, query)
            rows.append((q.category, keys, q.evidence))
            bar.update()
    return rows, clock


def run_locomo(
    data_path: str | Path,
    *,
    k: Sequence[int] = (5, 10, 20),
    recall: Recall = "hybrid",
    rewriter: Rewriter = "off",
    path: Path_ = "store",
    tuning: RecallTuning | None = None,
    context: ContextMode = "field",
    hybrid: HybridConfig | None = None,
    location: str = ":memory:",
    limit_conversations: int | None = None,
    embed_cache: str | Path | None = None,
    embeddings: Embeddings | None = None,
    settings: Settings | None = None,
    progress: bool = True,
) -> dict:
    """Ingest each conversation into its own namespace of the real store, ask every
    question of categories 1-4 with ``search_scored(namespace, query=..., mode=recall)`` and
    return recall@k overall and per category plus search latency (query embedding included).
    """
    from tqdm import tqdm

    from memagent.stores.qdrant_store import QdrantStore

    ks = check_ks(k)
    if path not in ("store", "agent"):
        raise ValueError(f"path must be 'store' or 'agent', got {path!r}")
    convs = load_locomo(data_path)[:limit_conversations]
    rewrite = make_query_rewriter(rewriter, settings)
    emb, dims = embedder(settings, embeddings)
    if embed_cache is not None:
        emb = CachedEmbeddings(emb, embed_cache)
    index = {"dims": dims, "embed": emb, "fields": ["content"]}
    with (
        QdrantStore.from_location(location, index=index, hybrid=hybrid) as store,  # type: ignore[arg-type]
        tqdm(total=question_count(convs), desc="locomo", unit="q", disable=not progress) as bar,
    ):
        find = _finder(store, path, recall, ks, tuning)
        rows, clock = _ask_all(store, convs, context, emb, rewrite, find, bar)
        used = store.hybrid
    return {
        "data": str(data_path),
        "conversations": [c.sample_id for c in convs],
        "recall": recall,
        "rewriter": rewriter,
        "path": path,
        "context": context,
        "k": ks,
        "hybrid": describe_hybrid(used),
        "results": summarise(rows, ks),
        "latency_ms": clock.summary(),
        "load_average": list(os.getloadavg()),
        "cpus": os.cpu_count(),
    }
