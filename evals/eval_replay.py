"""Replay a labelled dialog through the worker's own path into a fresh store.

Each user message becomes the job the agent would submit (the assistant message
before it as context, the reply after it), stamped with its message time (the
turn's ``at``, else the dialog's ``now``). The jobs go through a real SQLite
outbox and the real ``Worker`` (extractor, episode, write path with its merges,
versions and pending holds, profile), one job at a time in message order, into
an empty scope per dialog under the dialog's customer id.

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

from memagent.evals.eval_dataset import Dialog
from memagent.graph.jobs import JobQueue, Turn
from memagent.graph.worker import Worker
from memagent.memory.extractors import ExtractionResult, Extractor, extract_with_context
from memagent.memory.namespaces import namespace
from memagent.memory.write_path import WriteConfig, is_pending
from memagent.stores.embeddings import hash_embeddings

USER_PREFIX = "eval-"


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

    async def __call__(
        self, turns: Sequence[Turn], *, context: Sequence[Turn] = ()
    ) -> ExtractionResult:
        error = ""
        try:
            return await extract_with_context(self.inner, turns, context)
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


class Replayer:
    """One outbox, one worker and one store for a whole run.

    Each dialog is written under a user id of its own, so it starts from an empty
    scope and never sees another dialog's memories (the write path, episodes and
    profile all work inside one user + customer scope); and the worker keeps one
    event loop for the run, as it does in the agent, so an LLM client is not
    carried from one loop to the next. Use it as a context manager.
    """

    def __init__(
        self,
        extractor: Extractor,
        *,
        write_config: WriteConfig | None = None,
        workdir: Path | None = None,
    ) -> None:
        self._recording = _Recording(extractor)
        self._write_config = write_config
        self._workdir = workdir
        self._count = 0
        self.store = fresh_store()

    def __enter__(self) -> Replayer:
        self._tmp = tempfile.TemporaryDirectory(dir=self._workdir)
        self.queue = JobQueue(Path(self._tmp.name) / "jobs.sqlite", max_attempts=1,
                              synchronous="NORMAL")  # fmt: skip
        rec = self._recording
        self.worker = Worker(self.queue, self.store, extractor=rec, fallback=rec,
                             write_config=self._write_config, cross_process_lock=False)  # fmt: skip
        return self

    def __exit__(self, *exc: object) -> None:
        self.queue.close()
        self._tmp.cleanup()

    def replay(self, dialog: Dialog) -> Replayed:
        """Run the dialog's jobs one by one, in message order; read its facts layer."""
        self._count += 1
        user, customer = f"{USER_PREFIX}{self._count:05d}", dialog.customer or dialog.id
        errors_before = len(self._recording.errors)
        dropped = 0
        for turns in jobs_of(dialog):
            job = self.queue.submit(
                thread_id=dialog.id, user_id=user, customer_id=customer, turns=turns, urgent=True
            )
            self.worker.drain()
            done = self.queue.get(job.id)
            dropped += int(done.result.get("dropped", 0)) if done is not None else 0
        out = Replayed(dropped=dropped, errors=self._recording.errors[errors_before:])
        for item in self.store.search(namespace(user, customer, "facts"), limit=10_000):
            if is_pending(item) or item.value.get("status") == "pending":
                out.pending.append(dict(item.value))
            elif item.value.get("status") == "active":
                out.confirmed.append(dict(item.value))
        return out


def replay(extractor: Extractor, dialog: Dialog) -> Replayed:
    """One dialog on its own (tests, notebooks); a run uses one ``Replayer``."""
    with Replayer(extractor) as r:
        return r.replay(dialog)
