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
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore

from memagent.core.settings import Settings, default_settings
from memagent.core.types import Turn as JobTurn
from memagent.evals.embed_cache import CachedEmbeddings
from memagent.evals.locomo_data import CATEGORY_NAMES, Conversation, evaluated, load_locomo
from memagent.evals.locomo_run import (
    USER_ID,
    Clock,
    Recall,
    Rewriter,
    check_ks,
    embedder,
    make_query_rewriter,
    question_count,
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


Rows = list[tuple[int, Sequence[Sequence[str]], Sequence[str]]]
"""``(category, source message ids of each recalled item in rank order, evidence)``."""


def _recall_rows(
    conv: Conversation,
    ask: Callable[[str, str], list[Sequence[str]]],
    clock: Clock,
    bar: Any,
) -> Rows:
    """Every evaluated question of ``conv`` through ``ask`` (timed)."""
    rows: Rows = []
    for q in evaluated(conv.questions):
        sources = clock.time(ask, conv.sample_id, q.question)
        rows.append((q.category, sources, q.evidence))
        bar.update()
    return rows


def _feed_and_recall(
    store: BaseStore,
    convs: Sequence[Conversation],
    settings: Settings,
    ask: Callable[[str, str], list[Sequence[str]]],
    cached: CachedEmbeddings,
    workdir: str,
    bar: Any,
) -> tuple[Rows, dict[str, int], Clock]:
    """Each conversation fed through a job queue in ``workdir`` and the settings' worker,
    then its questions asked: the rows, the worker's writes by action and the clock."""
    from memagent.graph.jobs import JobQueue
    from memagent.graph.worker import Worker

    queue = JobQueue(Path(workdir) / "jobs.sqlite", delay_s=0.0, synchronous="NORMAL")
    worker = Worker.for_settings(settings, queue=queue, store=store)
    rows: Rows = []
    actions: dict[str, int] = {}
    clock = Clock()
    for conv in convs:
        bar.set_postfix_str(f"feed {conv.sample_id}")
        for name, n in feed(conv, queue, worker).items():
            actions[name] = actions.get(name, 0) + n
        cached.save()
        bar.set_postfix_str(f"recall {conv.sample_id}")
        rows += _recall_rows(conv, ask, clock, bar)
    return rows, actions, clock


def _asker(
    store: BaseStore, recall: Recall, rewrite: Callable[[str], str], ks: Sequence[int]
) -> Callable[[str, str], list[Sequence[str]]]:
    """``(conversation id, question) -> source message ids`` of each item the agent's
    recall returns (the question rewritten first), ``ks[-1]`` items at most."""
    from memagent.memory.scoring import ScoreWeights
    from memagent.nodes.recall import recall_memories

    weights = ScoreWeights(threshold=0.0, max_items=ks[-1])

    def ask(sample_id: str, question: str) -> list[Sequence[str]]:
        found = recall_memories(store, USER_ID, sample_id, rewrite(question),
                                mode=recall, weights=weights, force_search=True)  # fmt: skip
        return [i.message_ids for i in found.items]

    return ask


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

    from memagent.stores.qdrant_store import QdrantStore

    settings = (settings or default_settings()).model_copy(update={"extractor": extractor})
    ks = check_ks(k)
    convs = load_locomo(data_path)[:limit_conversations]
    emb, dims = embedder(settings, embeddings)
    tmp = tempfile.TemporaryDirectory(prefix="memagent-locomo-")
    cached = CachedEmbeddings(emb, embed_cache or tmp.name)
    rewrite = make_query_rewriter(rewriter, settings)
    total, start = question_count(convs), time.perf_counter()
    with (
        tmp,
        QdrantStore.from_location(
            location, index={"dims": dims, "embed": cached, "fields": ["content"]}
        ) as store,  # type: ignore[arg-type]  # noqa: E501
        tqdm(total=total, desc="locomo pipeline", unit="q", disable=not progress) as bar,
    ):
        ask = _asker(store, recall, rewrite, ks)
        rows, actions, clock = _feed_and_recall(store, convs, settings, ask, cached, tmp.name, bar)
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
            "latency_ms": clock.summary(cpu=False),
        }
        if compare_store:
            report["store"] = run_locomo(
                data_path, k=ks, recall=recall, rewriter=rewriter, path="store",
                limit_conversations=limit_conversations, embeddings=cached,
                settings=settings, progress=progress,
            )["results"]  # fmt: skip
    return report


def print_report(report: dict[str, Any]) -> None:
    """Per category: pipeline R@k beside the store-only figure."""
    from rich.console import Console
    from rich.table import Table

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
