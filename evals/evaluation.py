"""LoCoMo retrieval evaluation: loader, turn-level evidence recall, and the harness.

Loader and metric follow ``shared/data/locomo/README.md`` exactly so the figures are
comparable with the reference baselines there.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import typer
from langchain_core.embeddings import Embeddings
from langgraph.store.base import PutOp

from memagent.core.settings import Settings, default_settings
from memagent.evals.embed_cache import CachedEmbeddings
from memagent.evals.locomo_data import (
    CATEGORIES,
    CATEGORY_NAMES,
    CONTEXT_MODES,
    REFERENCE_STOP_WORDS,
    ContextMode,
    Conversation,
    LocomoFormatError,
    Question,
    Turn,
    context_only,
    context_text,
    evaluated,
    evidence_recall,
    load_locomo,
    parse_conversation,
    reference_tokenize,
    session_day,
    split_evidence,
    summarise,
    turn_values,
)
from memagent.nodes.recall_expand import RecallTuning
from memagent.stores.fusion import HybridConfig
from memagent.stores.tokenize import TokenizerConfig

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "REFERENCE_STOP_WORDS",
    "LocomoFormatError",
    "Turn",
    "Question",
    "Conversation",
    "split_evidence",
    "parse_conversation",
    "load_locomo",
    "reference_tokenize",
    "evaluated",
    "evidence_recall",
    "summarise",
    "ContextMode",
    "CONTEXT_MODES",
    "session_day",
    "context_only",
    "context_text",
    "turn_values",
    "Recall",
    "Rewriter",
    "Path_",
    "USER_ID",
    "CachedEmbeddings",
    "reference_hybrid",
    "tuned_hybrid",
    "make_query_rewriter",
    "describe_hybrid",
    "run_locomo",
    "app",
    "command_settings",
    "locomo",
]


Recall = Literal["hybrid", "dense", "keyword"]
Rewriter = Literal["off", "rules", "llm"]
Path_ = Literal["store", "agent"]
USER_ID = "locomo"


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


def _percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


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

    from memagent.memory.namespaces import namespace
    from memagent.memory.scoring import ScoreWeights
    from memagent.nodes.recall import recall_memories
    from memagent.stores.embeddings import embeddings_from_settings
    from memagent.stores.qdrant_store import QdrantStore

    ks = sorted({int(x) for x in k})
    if not ks or ks[0] < 1:
        raise ValueError(f"k must be positive integers, got {k!r}")
    tuning_kw: dict[str, Any] = {"tuning": tuning} if tuning else {}
    if path not in ("store", "agent"):
        raise ValueError(f"path must be 'store' or 'agent', got {path!r}")
    weights = ScoreWeights(threshold=0.0, max_items=ks[-1])
    convs = load_locomo(data_path)[:limit_conversations]
    rewrite = make_query_rewriter(rewriter, settings)
    if embeddings is None:
        emb, dims = embeddings_from_settings(settings or default_settings())
    else:
        emb, dims = embeddings, len(embeddings.embed_query("dimension probe"))
    if embed_cache is not None:
        emb = CachedEmbeddings(emb, embed_cache)
    index = {"dims": dims, "embed": emb, "fields": ["content"]}
    rows: list[tuple[int, Sequence[str], Sequence[str]]] = []
    latencies: list[float] = []
    cpu_times: list[float] = []  # process CPU time: the cost without other load
    total = sum(len(evaluated(c.questions)) for c in convs)
    with (
        QdrantStore.from_location(location, index=index, hybrid=hybrid) as store,  # type: ignore[arg-type]
        tqdm(total=total, desc="locomo", unit="q", disable=not progress) as bar,
    ):
        used = store.hybrid
        for conv in convs:
            ns = namespace(USER_ID, conv.sample_id, "facts")
            bar.set_postfix_str(f"ingest {conv.sample_id}")
            store.batch(
                [
                    PutOp(ns, key, value, index=fields)
                    for key, value, fields in turn_values(conv, context)
                ]
            )
            if isinstance(emb, CachedEmbeddings):
                emb.save()
            bar.set_postfix_str(f"search {conv.sample_id}")
            for q in evaluated(conv.questions):
                query = rewrite(q.question)
                start, cpu = time.perf_counter(), time.process_time()
                if path == "agent":
                    found = recall_memories(
                        store,
                        USER_ID,
                        conv.sample_id,
                        query,
                        mode=recall,
                        weights=weights,
                        force_search=True,
                        **tuning_kw,
                    )
                    keys = [i.key for i in found.items]
                else:
                    hits = store.search_scored(ns, query=query, mode=recall, limit=ks[-1])
                    keys = [h.item.key for h in hits]
                latencies.append((time.perf_counter() - start) * 1000)
                cpu_times.append((time.process_time() - cpu) * 1000)
                rows.append((q.category, keys, q.evidence))
                bar.update()
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
        "latency_ms": {
            "p50": _percentile(latencies, 50),
            "p95": _percentile(latencies, 95),
            "cpu_p50": _percentile(cpu_times, 50),
            "cpu_p95": _percentile(cpu_times, 95),
            "n": len(latencies),
        },
        "load_average": list(os.getloadavg()),
        "cpus": os.cpu_count(),
    }


# ---------------------------------------------------------------- CLI

app = typer.Typer(
    help="Retrieval and memory evaluations.", no_args_is_help=True, add_completion=False
)


@app.callback()
def _evaluations(ctx: typer.Context) -> None:
    """Retrieval and memory evaluations (a group, so more evaluations can be added)."""
    if not isinstance(ctx.obj, Settings):  # run on its own, not under ``memagent eval``
        from memagent.graph.settings import load_settings

        ctx.obj = load_settings()


def command_settings(ctx: typer.Context) -> Settings:
    """The settings of this eval command: the ``memagent`` CLI's, passed down as ``obj``."""
    return ctx.obj if isinstance(ctx.obj, Settings) else default_settings()


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise typer.BadParameter(f"--k must be comma-separated integers, got {text!r}") from exc
    if not ks or min(ks) < 1:
        raise typer.BadParameter(f"--k must be positive integers, got {text!r}")
    return ks


def _print_table(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    ks = report["k"]
    table = Table(
        title=f"LoCoMo evidence recall ({report['recall']}, path={report['path']}, "
        f"rewriter={report['rewriter']}, context={report['context']})"
    )
    table.add_column("category")
    table.add_column("n", justify="right")
    for k in ks:
        table.add_column(f"R@{k}", justify="right")
    for group, row in report["results"].items():
        name = "all (1-4)" if group == "all" else f"{group} {CATEGORY_NAMES.get(int(group), '')}"
        table.add_row(name, str(int(row["n"])), *(f"{row[f'R@{k}']:.3f}" for k in ks))
    console = Console()
    console.print(table)
    lat = report["latency_ms"]
    console.print(
        f"search latency (query embedding included): p50 {lat['p50']:.1f} ms, "
        f"p95 {lat['p95']:.1f} ms over {lat['n']} queries; CPU time p50 "
        f"{lat['cpu_p50']:.1f} ms, p95 {lat['cpu_p95']:.1f} ms "
        f"(load average {report['load_average'][0]:.1f} on {report['cpus']} CPUs)"
    )


@app.command("locomo")
def locomo(
    ctx: typer.Context,
    data: Annotated[
        Path,
        typer.Option(
            help="LoCoMo JSON file.", exists=True, dir_okay=False, envvar="MEMAGENT_LOCOMO"
        ),
    ],
    k: Annotated[str, typer.Option(help="Cut-offs, comma-separated.")] = "5,10,20",
    recall: Annotated[str, typer.Option(help="hybrid | dense | keyword")] = "hybrid",
    rewriter: Annotated[str, typer.Option(help="off | rules | llm")] = "off",
    path: Annotated[
        str,
        typer.Option(
            help="store: a plain search_scored; agent: the agent's recall (feedback "
            "expansion, entity focus, scoring); pipeline: every turn through the agent's "
            "end-of-turn path (job queue, worker: episodes and extraction), then the "
            "agent's recall, printed beside the store-only figure."
        ),
    ] = "store",
    extractor: Annotated[
        str, typer.Option(help="rules | llm: the worker's extractor (--path pipeline).")
    ] = "rules",
    context: Annotated[
        str, typer.Option(help="none | window | field: what each turn is indexed with.")
    ] = "field",
    baseline: Annotated[
        bool,
        typer.Option(
            "--baseline",
            help="The README's reference keyword settings (use with --recall keyword).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    limit_conversations: Annotated[int | None, typer.Option(min=1)] = None,
    location: Annotated[str, typer.Option(help="Store location (default in memory).")] = ":memory:",
    embed_cache: Annotated[
        Path | None, typer.Option(help="Directory caching passage embeddings across runs.")
    ] = None,
    fusion: Annotated[str | None, typer.Option(help="weighted | rrf (default: store's)")] = None,
    dense_weight: Annotated[float | None, typer.Option(min=0.0)] = None,
    keyword_weight: Annotated[float | None, typer.Option(min=0.0)] = None,
    dense_floor: Annotated[float | None, typer.Option(min=0.0, max=0.99)] = None,
    candidates: Annotated[
        int | None, typer.Option(min=1, help="Dense and keyword candidate depth each.")
    ] = None,
) -> None:
    """Turn-level evidence recall@k on LoCoMo through the real store, and search latency."""
    if recall not in ("hybrid", "dense", "keyword"):
        raise typer.BadParameter(f"--recall must be hybrid, dense or keyword, got {recall!r}")
    if rewriter not in ("off", "rules", "llm"):
        raise typer.BadParameter(f"--rewriter must be off, rules or llm, got {rewriter!r}")
    if path not in ("store", "agent", "pipeline"):
        raise typer.BadParameter(f"--path must be store, agent or pipeline, got {path!r}")
    if extractor not in ("rules", "llm"):
        raise typer.BadParameter(f"--extractor must be rules or llm, got {extractor!r}")
    if context not in CONTEXT_MODES:
        raise typer.BadParameter(f"--context must be one of {CONTEXT_MODES}, got {context!r}")
    if fusion not in (None, "weighted", "rrf"):
        raise typer.BadParameter(f"--fusion must be weighted or rrf, got {fusion!r}")
    hybrid = reference_hybrid() if baseline else None
    overrides = {
        "method": fusion,
        "dense_weight": dense_weight,
        "keyword_weight": keyword_weight,
        "dense_floor": dense_floor,
    }
    if any(v is not None for v in overrides.values()) or candidates is not None:
        hybrid = tuned_hybrid(hybrid, candidates=candidates, **overrides)
    try:
        load_locomo(data)  # a wrong file is one line before anything is opened
    except LocomoFormatError as exc:
        from memagent.graph.cli_errors import fail

        fail(str(exc), 2)
    if path == "pipeline":
        from memagent.evals.eval_pipeline import print_report, run_pipeline

        report = run_pipeline(
            data, k=_parse_ks(k), recall=recall, rewriter=rewriter,  # type: ignore[arg-type]
            extractor=extractor, location=location,  # type: ignore[arg-type]
            limit_conversations=limit_conversations, embed_cache=embed_cache,
            settings=command_settings(ctx), progress=not as_json,
        )  # fmt: skip
        typer.echo(json.dumps(report)) if as_json else print_report(report)
        return
    report = run_locomo(
        data,
        k=_parse_ks(k),
        recall=recall,  # type: ignore[arg-type]
        rewriter=rewriter,  # type: ignore[arg-type]
        path=path,  # type: ignore[arg-type]
        context="none" if baseline else context,  # type: ignore[arg-type]
        hybrid=hybrid,
        location=location,
        limit_conversations=limit_conversations,
        embed_cache=embed_cache,
        progress=not as_json,
        settings=command_settings(ctx),
    )
    report["baseline"] = baseline
    if as_json:
        typer.echo(json.dumps(report))
    else:
        _print_table(report)


def _mount_extraction() -> None:
    """``memagent eval extraction`` (the lifecycle issue's extraction evaluation)."""
    from memagent.evals import eval_extraction

    app.command("extraction")(eval_extraction.extraction_cmd)


def _mount_sessions() -> None:
    """``memagent eval sessions`` (the session-memory issue's 60-turn bench)."""
    from memagent.evals import eval_sessions

    app.command("sessions")(eval_sessions.sessions_cmd)


_mount_extraction()
_mount_sessions()
