"""LoCoMo through the agent's own memory: ``memagent eval locomo --path pipeline``.

The store-only path (``evaluation.run_locomo``) indexes every turn directly, which the
agent never does. Here each conversation goes through the end-of-turn path the agent
uses: every turn, session by session in order, is submitted to the durable job queue as
what the user said (``"{speaker}: {text}"``, both LoCoMo speakers are people) with the
session date as its message time, and the extraction worker turns it into an episode and
extracted facts (rules by default, ``--extractor llm`` for the model). Then every
question goes through the agent's recall (``recall_memories``: facts and episodes fused)
and recall@k counts the evidence turns covered by the source message ids of the top k
recalled items, facts and episodes alike.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from langchain_core.embeddings import Embeddings

from memagent.core.settings import Settings, default_settings
from memagent.core.types import Turn as JobTurn
from memagent.evals.evaluation import (
    USER_ID,
    CachedEmbeddings,
    Conversation,
    Recall,
    Rewriter,
    _percentile,
    evaluated,
    load_locomo,
    make_query_rewriter,
    run_locomo,
)

Extractor = Literal["rules", "llm"]
_LOCOMO_TIME = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y")


def session_time(date: str) -> datetime | None:
    """LoCoMo's ``"1:56 pm on 8 May, 2023"`` as a UTC datetime (None when unreadable)."""
    text = " ".join(date.split())
    for fmt in _LOCOMO_TIME:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def job_turns(conv: Conversation) -> list[tuple[str, JobTurn]]:
    """``(thread id, user turn)`` for every turn, in order: one thread per session, the
    speaker's name before the text, the session's time as the message time."""
    out = []
    for turn in conv.turns:
        at = session_time(turn.date)
        thread = f"{conv.sample_id}:session_{turn.session}"
        out.append(
            (thread, JobTurn("user", turn.document, turn.dia_id, at.isoformat() if at else ""))
        )
    return out


def covered_recall(
    rows: Sequence[tuple[int, Sequence[Sequence[str]], Sequence[str]]], ks: Sequence[int]
) -> dict[str, dict[str, float]]:
    """Mean recall@k overall and per category; a row is ``(category, source message ids of
    each recalled item in rank order, evidence)`` and an evidence turn counts at k when a
    top-k item came from it."""
    sums: dict[str, dict[int, float]] = {}
    counts: dict[str, int] = {}
    for category, sources, evidence in rows:
        for group in ("all", str(category)):
            counts[group] = counts.get(group, 0) + 1
            bucket = sums.setdefault(group, dict.fromkeys(ks, 0.0))
            for k in ks:
                top = {m for ids in sources[:k] for m in ids}
                bucket[k] += sum(e in top for e in evidence) / len(evidence)
    return {
        group: {"n": float(counts[group])} | {f"R@{k}": sums[group][k] / counts[group] for k in ks}
        for group in sorted(sums, key=lambda g: (g != "all", g))
    }


def feed(conv: Conversation, queue: Any, worker: Any) -> dict[str, int]:
    """Every turn of ``conv`` through the queue and the worker, one end-of-turn at a time."""
    from memagent.memory.extract_triggers import early_triggers

    actions: dict[str, int] = {}
    for thread, turn in job_turns(conv):
        fired = early_triggers(turn.content)
        queue.submit(thread_id=thread, user_id=USER_ID, customer_id=conv.sample_id,
                     turns=[turn], trigger=",".join(fired), urgent=bool(fired))  # fmt: skip
        report = worker.drain()
        if report.failed:
            raise RuntimeError(f"{conv.sample_id}: an extraction job failed at {turn.id}")
        for name, n in report.actions.items():
            actions[name] = actions.get(name, 0) + n
    return actions


def run_pipeline(
    data_path: str | Path,
    *,
    k: Sequence[int] = (5, 10, 20),
    recall: Recall = "hybrid",
    rewriter: Rewriter = "off",
    extractor: Extractor = "rules",
    location: str = ":memory:",
    limit_conversations: int | None = None,
    embed_cache: str | Path | None = None,
    embeddings: Embeddings | None = None,
    settings: Settings | None = None,
    compare_store: bool = True,
    progress: bool = True,
) -> dict[str, Any]:
    """Recall@k of the agent's memory fed with each conversation; with ``compare_store``
    the store-only figure of the same data and embedder beside it."""
    from tqdm import tqdm

    from memagent.graph.jobs import JobQueue
    from memagent.graph.worker import Worker
    from memagent.memory.scoring import ScoreWeights
    from memagent.nodes.recall import recall_memories
    from memagent.stores.embeddings import embeddings_from_settings
    from memagent.stores.qdrant_store import QdrantStore

    settings = (settings or default_settings()).model_copy(update={"extractor": extractor})
    ks = sorted({int(x) for x in k})
    if not ks or ks[0] < 1:
        raise ValueError(f"k must be positive integers, got {k!r}")
    convs = load_locomo(data_path)[:limit_conversations]
    if embeddings is None:
        emb, dims = embeddings_from_settings(settings)
    else:
        emb, dims = embeddings, len(embeddings.embed_query("dimension probe"))
    tmp = tempfile.TemporaryDirectory(prefix="memagent-locomo-")
    cached = CachedEmbeddings(emb, embed_cache or tmp.name)
    weights = ScoreWeights(threshold=0.0, max_items=ks[-1])
    rewrite = make_query_rewriter(rewriter, settings)
    rows: list[tuple[int, Sequence[Sequence[str]], Sequence[str]]] = []
    latencies: list[float] = []
    actions: dict[str, int] = {}
    start = time.perf_counter()
    total = sum(len(evaluated(c.questions)) for c in convs)
    with (
        tmp,
        QdrantStore.from_location(
            location, index={"dims": dims, "embed": cached, "fields": ["content"]}
        ) as store,  # type: ignore[arg-type]  # noqa: E501
        tqdm(total=total, desc="locomo pipeline", unit="q", disable=not progress) as bar,
    ):
        queue = JobQueue(Path(tmp.name) / "jobs.sqlite", delay_s=0.0, synchronous="NORMAL")
        worker = Worker.for_settings(settings, queue=queue, store=store)
        for conv in convs:
            bar.set_postfix_str(f"feed {conv.sample_id}")
            for name, n in feed(conv, queue, worker).items():
                actions[name] = actions.get(name, 0) + n
            cached.save()
            bar.set_postfix_str(f"recall {conv.sample_id}")
            for q in evaluated(conv.questions):
                t0 = time.perf_counter()
                found = recall_memories(store, USER_ID, conv.sample_id, rewrite(q.question),
                                        mode=recall, weights=weights, force_search=True)  # fmt: skip
                latencies.append((time.perf_counter() - t0) * 1000)
                rows.append((q.category, [i.message_ids for i in found.items], q.evidence))
                bar.update()
        feed_s = time.perf_counter() - start
        report: dict[str, Any] = {
            "data": str(data_path),
            "conversations": [c.sample_id for c in convs],
            "path": "pipeline",
            "recall": recall,
            "rewriter": rewriter,
            "extractor": extractor,
            "k": ks,
            "results": covered_recall(rows, ks),
            "actions": actions,
            "seconds": round(feed_s, 1),
            "latency_ms": {
                "p50": _percentile(latencies, 50),
                "p95": _percentile(latencies, 95),
                "n": len(latencies),
            },  # fmt: skip
        }
        if compare_store:
            store_only = run_locomo(
                data_path, k=ks, recall=recall, rewriter=rewriter, path="store",
                limit_conversations=limit_conversations, embeddings=cached,
                settings=settings, progress=progress,
            )  # fmt: skip
            report["store"] = store_only["results"]
    return report


def print_report(report: dict[str, Any]) -> None:
    """Per category: pipeline R@k beside the store-only figure."""
    from rich.console import Console
    from rich.table import Table

    from memagent.evals.evaluation import CATEGORY_NAMES

    ks = report["k"]
    store = report.get("store") or {}
    table = Table(
        title=f"LoCoMo evidence recall through the agent's memory (extractor="
        f"{report['extractor']}, {report['recall']}, rewriter={report['rewriter']})"
    )
    table.add_column("category")
    table.add_column("n", justify="right")
    for k in ks:
        table.add_column(f"R@{k}", justify="right")
        if store:
            table.add_column(f"store R@{k}", justify="right", style="dim")
    for group, row in report["results"].items():
        name = "all (1-4)" if group == "all" else f"{group} {CATEGORY_NAMES.get(int(group), '')}"
        cells = []
        for k in ks:
            cells.append(f"{row[f'R@{k}']:.3f}")
            if store:
                cells.append(f"{store.get(group, {}).get(f'R@{k}', float('nan')):.3f}")
        table.add_row(name, str(int(row["n"])), *cells)
    console = Console()
    console.print(table)
    lat = report["latency_ms"]
    console.print(
        f"fed in {report['seconds']} s; writes {report['actions']}; recall p50 "
        f"{lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms over {lat['n']} questions"
    )
