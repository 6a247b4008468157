"""LoCoMo retrieval evaluation: ``memagent eval`` and its ``locomo`` command.

The harness is ``memagent.evals.locomo_run``, the loader, metric and context fields
``memagent.evals.locomo_data``; both are re-exported here. Loader and metric follow
``shared/data/locomo/README.md`` exactly so the figures are comparable with the
reference baselines there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

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
from memagent.evals.locomo_run import (
    USER_ID,
    Path_,
    Recall,
    Rewriter,
    describe_hybrid,
    make_query_rewriter,
    reference_hybrid,
    run_locomo,
    tuned_hybrid,
)
from memagent.stores.fusion import HybridConfig

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


_Data = Annotated[
    Path,
    typer.Option(help="LoCoMo JSON file.", exists=True, dir_okay=False, envvar="MEMAGENT_LOCOMO"),
]
_PathOpt = Annotated[
    str,
    typer.Option(
        help="store: a plain search_scored; agent: the agent's recall (feedback "
        "expansion, entity focus, scoring); pipeline: every turn through the agent's "
        "end-of-turn path (job queue, worker: episodes and extraction), then the "
        "agent's recall, printed beside the store-only figure."
    ),
]
_Extractor = Annotated[
    str, typer.Option(help="rules | llm: the worker's extractor (--path pipeline).")
]
_Context = Annotated[
    str, typer.Option(help="none | window | field: what each turn is indexed with.")
]
_Baseline = Annotated[
    bool,
    typer.Option(
        "--baseline", help="The README's reference keyword settings (use with --recall keyword)."
    ),
]
_EmbedCache = Annotated[
    Path | None, typer.Option(help="Directory caching passage embeddings across runs.")
]
_Candidates = Annotated[
    int | None, typer.Option(min=1, help="Dense and keyword candidate depth each.")
]


def _check_choices(
    recall: str, rewriter: str, path: str, extractor: str, context: str, fusion: str | None
) -> None:
    """A ``BadParameter`` naming the first option whose value is not one of its choices."""
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


def _cli_hybrid(
    baseline: bool, candidates: int | None, **overrides: float | str | None
) -> HybridConfig | None:
    """The store's hybrid settings for the command line: the README's reference ones
    with ``--baseline``, then any fusion option or candidate depth given; None: the
    store's defaults."""
    hybrid = reference_hybrid() if baseline else None
    if any(v is not None for v in overrides.values()) or candidates is not None:
        hybrid = tuned_hybrid(hybrid, candidates=candidates, **overrides)
    return hybrid


def _check_data(data: Path) -> None:
    """A wrong file is one line before anything is opened."""
    try:
        load_locomo(data)
    except LocomoFormatError as exc:
        from memagent.graph.cli_errors import fail

        fail(str(exc), 2)


def _emit(report: dict, as_json: bool, table: Callable[[dict], None]) -> None:
    typer.echo(json.dumps(report)) if as_json else table(report)


@app.command("locomo")
def locomo(
    ctx: typer.Context,
    data: _Data,
    k: Annotated[str, typer.Option(help="Cut-offs, comma-separated.")] = "5,10,20",
    recall: Annotated[str, typer.Option(help="hybrid | dense | keyword")] = "hybrid",
    rewriter: Annotated[str, typer.Option(help="off | rules | llm")] = "off",
    path: _PathOpt = "store",
    extractor: _Extractor = "rules",
    context: _Context = "field",
    baseline: _Baseline = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    limit_conversations: Annotated[int | None, typer.Option(min=1)] = None,
    location: Annotated[str, typer.Option(help="Store location (default in memory).")] = ":memory:",
    embed_cache: _EmbedCache = None,
    fusion: Annotated[str | None, typer.Option(help="weighted | rrf (default: store's)")] = None,
    dense_weight: Annotated[float | None, typer.Option(min=0.0)] = None,
    keyword_weight: Annotated[float | None, typer.Option(min=0.0)] = None,
    dense_floor: Annotated[float | None, typer.Option(min=0.0, max=0.99)] = None,
    candidates: _Candidates = None,
) -> None:
    """Turn-level evidence recall@k on LoCoMo through the real store, and search latency."""
    _check_choices(recall, rewriter, path, extractor, context, fusion)
    hybrid = _cli_hybrid(baseline, candidates, method=fusion, dense_weight=dense_weight,
                         keyword_weight=keyword_weight, dense_floor=dense_floor)  # fmt: skip
    _check_data(data)
    if path == "pipeline":
        from memagent.evals.eval_pipeline import print_report, run_pipeline

        report = run_pipeline(
            data, k=_parse_ks(k), recall=recall, rewriter=rewriter,  # type: ignore[arg-type]
            extractor=extractor, location=location,  # type: ignore[arg-type]
            limit_conversations=limit_conversations, embed_cache=embed_cache,
            settings=command_settings(ctx), progress=not as_json,
        )  # fmt: skip
        _emit(report, as_json, print_report)
        return
    report = run_locomo(
        data, k=_parse_ks(k), recall=recall, rewriter=rewriter, path=path,  # type: ignore[arg-type]
        context="none" if baseline else context, hybrid=hybrid,  # type: ignore[arg-type]
        location=location, limit_conversations=limit_conversations, embed_cache=embed_cache,
        progress=not as_json, settings=command_settings(ctx),
    )  # fmt: skip
    report["baseline"] = baseline
    _emit(report, as_json, _print_table)


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
