"""Replay a labelled dialog through the worker's own path into a fresh store.

Each user message becomes the job the agent would submit (the assistant message
before it as context, the reply after it), stamped with its message time (the
turn's ``at``, else the dialog's ``now``). The jobs go through a real SQLite
outbox and the real ``Worker`` (extractor, episode, write path with its merges,
versions and pending holds, profile), one job at a time in message order, into
a fresh in-memory store per dialog and the dialog's customer id.

An extractor error is recorded and loses that job's memories, rather than ending
the evaluation or being hidden by the worker's rules fallback.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.store.memory import InMemoryStore

from memagent.graph.eval_dataset import Dialog
from memagent.graph.worker import Worker
from memagent.nodes.extractors import ExtractionResult, Extractor
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.jobs import JobQueue, Turn
from memagent.stores.namespaces import namespace
from memagent.stores.write_path import is_pending

USER_ID = "eval"


@dataclass
class Replayed:
    """The facts layer after one dialog: confirmed active and pending values."""

    confirmed: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0
    errors: list[str] = field(default_factory=list)


class ExtractorFailed(RuntimeError):
    """Raised to the worker with no cause chain, so it is a failed job, not an outage."""


class _Recording:
    """The extractor under test, its errors kept here and raised as plain failures."""

    def __init__(self, inner: Extractor) -> None:
        self.inner = inner
        self.errors: list[str] = []

    async def __call__(self, turns: Sequence[Turn]) -> ExtractionResult:
        error = ""
        try:
            return await self.inner(turns)
        except Exception as exc:
            error = f"{type(exc).__name__}: {str(exc)[:120]}"
        self.errors.append(error)
        raise ExtractorFailed("extractor failed")  # outside ``except``: no __context__


def _dialog_fields(dialog: Dialog | Mapping[str, Any]) -> tuple[str, Sequence[Any], str]:
    if isinstance(dialog, Dialog):
        return dialog.id, dialog.turns, dialog.now
    return str(dialog["id"]), dialog["turns"], str(dialog.get("now") or "")


def jobs_of(dialog: Dialog | Mapping[str, Any]) -> list[list[Turn]]:
    """The jobs the agent would submit: one per user message, with its neighbours."""
    did, raw, now = _dialog_fields(dialog)
    turns = [
        Turn(t["role"], t["content"], f"{did}-{i}", str(t.get("at") or now))
        for i, t in enumerate(raw)
    ]
    jobs = []
    for i, t in enumerate(turns):
        if t.role != "user":
            continue
        job = [turns[i - 1]] if i > 0 and turns[i - 1].role == "assistant" else []
        job.append(t)
        if i + 1 < len(turns) and turns[i + 1].role == "assistant":
            job.append(turns[i + 1])
        jobs.append(job)
    return jobs


def fresh_store() -> InMemoryStore:
    return InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})


def replay(extractor: Extractor, dialog: Dialog, *, workdir: Path | None = None) -> Replayed:
    """Run the dialog's jobs through a real outbox and worker; read the facts layer."""
    customer = dialog.customer or dialog.id
    store = fresh_store()
    recording = _Recording(extractor)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        queue = JobQueue(Path(tmp) / "jobs.sqlite", max_attempts=1, synchronous="NORMAL")
        worker = Worker(
            queue, store, extractor=recording, fallback=recording, cross_process_lock=False
        )
        try:
            for job in jobs_of(dialog):
                queue.submit(
                    thread_id=dialog.id,
                    user_id=USER_ID,
                    customer_id=customer,
                    turns=job,
                    urgent=True,
                )
                worker.drain()
            dropped = sum(int(j.result.get("dropped", 0)) for j in queue.jobs("done", 1000))
        finally:
            queue.close()
    out = Replayed(dropped=dropped, errors=recording.errors)
    ns = namespace(USER_ID, customer, "facts")
    for item in store.search(ns, limit=10_000):
        if is_pending(item) or item.value.get("status") == "pending":
            out.pending.append(dict(item.value))
        elif item.value.get("status") == "active":
            out.confirmed.append(dict(item.value))
    return out
