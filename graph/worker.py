"""The extraction worker: drains the job outbox into the long-term store.

Runs as a daemon thread inside the agent process (default) or as
``memagent worker`` in its own process; ``drain()`` runs every pending job to
completion (``memagent jobs drain``, tests, benchmarks).

One job: turns -> extractor (rules or LLM, rules as fallback when the model is
down) -> candidates saved on the job -> raw episode -> write path per candidate
-> profile recompaction -> done. Exactly-once effect under retries: candidates
are saved on the job before any write, record ids derive from job id + item
index, and merges remember their message ids, so a job re-run after a crash
writes nothing twice. An unavailable store or model releases the job without
spending an attempt: it waits in the outbox, it is not lost.

Which lock or compare-and-set protects what: ``memagent.graph.concurrency``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.base import BaseStore

from memagent.core.log_redaction import memagent_logger
from memagent.core.settings import Settings
from memagent.core.types import DIGEST_ROLE
from memagent.graph.extraction_steps import (
    apply_candidates,
    extract_candidates,
    is_outage,
    transcript_context,
    with_times,
)
from memagent.graph.jobs import Job, Outbox
from memagent.memory.extractors import Extractor, rules_extractor
from memagent.memory.forgetting import DecayPolicy, digest_candidates, maintain
from memagent.memory.write_path import Candidate, WriteConfig

log = memagent_logger(__name__)
__all__ = ["DIGEST_ROLE", "DrainReport", "Worker", "is_outage", "with_times"]


StoreFactory = Callable[[], contextlib.AbstractContextManager[BaseStore]]


@dataclass
class DrainReport:
    """What a drain did."""

    jobs: int = 0
    done: int = 0
    failed: int = 0
    released: int = 0
    actions: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "jobs": self.jobs,
            "done": self.done,
            "failed": self.failed,
            "released": self.released,
            "actions": dict(self.actions),
            "seconds": round(self.seconds, 3),
        }


class Worker:
    """Claims jobs, extracts, writes; safe to run in several threads or processes."""

    def __init__(
        self,
        queue: Outbox,
        store: BaseStore | None = None,
        *,
        store_factory: StoreFactory | None = None,
        extractor: Extractor | None = None,
        fallback: Extractor | None = None,
        embeddings: Any = None,
        write_config: WriteConfig | None = None,
        episodes: bool = True,
        profile: bool = True,
        poll_s: float = 1.0,
        outage_delay_s: float = 5.0,
        cross_process_lock: bool = True,
        maintain_every_s: float | None = None,
        decay: DecayPolicy | None = None,
    ) -> None:
        if store is None and store_factory is None:
            raise ValueError("Worker needs a store or a store_factory")
        self.queue = queue
        self._store = store
        self._store_factory = store_factory
        self._store_cm: contextlib.AbstractContextManager[BaseStore] | None = None
        self.extractor: Extractor = extractor or rules_extractor()
        self.fallback = fallback if fallback is not None else rules_extractor()
        self.embeddings = embeddings
        self.write_config = write_config or WriteConfig()
        self.episodes = episodes
        self.profile = profile
        self.poll_s = poll_s
        self.outage_delay_s = outage_delay_s
        self._lock_factory = queue.lock if cross_process_lock else None
        self.maintain_every_s = maintain_every_s
        self.decay = decay or DecayPolicy()
        self._last_maintain = time.monotonic()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loops = threading.local()
        self._process_lock = threading.Lock()
        queue.add_listener(self._wake.set)

    @classmethod
    def for_settings(cls, settings: Settings, *, queue: Outbox, store: BaseStore | None = None,
                     **kwargs: Any) -> Worker:  # fmt: skip
        """The worker the settings ask for (``MEMAGENT_EXTRACTOR=rules|llm``), merging near
        duplicates above ``MEMAGENT_NEAR_DUPLICATE_THRESHOLD``; explicit ``kwargs`` win."""
        kwargs.setdefault("write_config", WriteConfig.for_settings(settings, background=True))
        extractor: Extractor = rules_extractor()
        if settings.extractor == "llm":
            try:
                from memagent.llm.adapter import chat_model
                from memagent.memory.extractors import llm_extractor

                extractor = llm_extractor(
                    chat_model(settings, small=True),
                    hybrid=settings.llm_extraction == "hybrid",
                )
            except Exception as exc:  # no model adapter: rules keep working offline
                log.warning("LLM extractor unavailable, using rules: %s", exc)
        if store is None:
            from memagent.stores import open_store

            kwargs.setdefault(
                "store_factory",
                lambda: open_store(settings.resolved_store_location(), settings=settings),
            )
        return cls(queue, store, extractor=extractor, **kwargs)

    # -- store ----------------------------------------------------------------

    def _get_store(self) -> BaseStore:
        if self._store is not None:
            return self._store
        assert self._store_factory is not None
        cm = self._store_factory()
        store = cm.__enter__()
        self._store_cm = cm
        self._store = store
        return store

    def _drop_store(self) -> None:
        """Forget a factory-made store after an outage, so the next job reopens it."""
        if self._store_cm is not None:
            with contextlib.suppress(Exception):
                self._store_cm.__exit__(None, None, None)
            self._store_cm = None
            self._store = None

    def close(self) -> None:
        self.stop()
        self._drop_store()

    # -- one job -----------------------------------------------------------------

    def _run(self, coro: Any) -> Any:
        loop = getattr(self._loops, "loop", None)
        if loop is None or loop.is_closed():
            loop = asyncio.new_event_loop()
            self._loops.loop = loop
        return loop.run_until_complete(coro)

    def _extract(self, job: Job) -> tuple[list[Candidate], int]:
        """The job's candidates, and how many lead the list from a working-memory digest.

        Those are consolidated, not extracted: their records carry origin "consolidation".
        """
        digest = [t.content for t in job.turns if t.role == DIGEST_ROLE]
        saved = job.result.get("candidates")
        if saved is not None:  # a retry: reuse what was extracted before the crash
            consolidated = job.result.get("consolidated")
            if not isinstance(consolidated, int):  # saved before the count was kept
                consolidated = len(digest_candidates(digest))
            return [Candidate.model_validate(c) for c in saved], consolidated
        try:
            context = transcript_context(self._get_store(), job, config=self.write_config)
        except Exception as exc:  # the message is still read, only without what came before
            log.warning("job %s: no session context (%s)", job.id, exc)
            context = []
        res, consolidated = self._run(
            extract_candidates(
                job.turns,
                extractor=self.extractor,
                fallback=self.fallback,
                created_at=job.created_at,
                label=f"job {job.id}",
                context=context,
            )
        )
        self.queue.save_result(
            job,
            {
                "candidates": [c.model_dump(mode="json") for c in res.candidates],
                "consolidated": consolidated,
                "dropped": res.dropped,
                "reasons": res.reasons[:50],
            },
        )
        return res.candidates, consolidated

    def process(self, job: Job) -> dict[str, Any]:
        """Run one claimed job; returns its result summary (raises on failure)."""
        cands, consolidated = self._extract(job)
        result = apply_candidates(
            self._get_store(),
            job,
            cands,
            consolidated,
            config=self.write_config,
            embeddings=self.embeddings,
            lock=self._lock_factory,
            episodes=self.episodes,
            profile=self.profile,
        )
        return {**job.result, **result}

    def run_once(self, *, include_delayed: bool = False, report: DrainReport | None = None) -> bool:
        """Claim and run one job; False when nothing was due."""
        job = self.queue.claim(include_delayed=include_delayed)
        if job is None:
            return False
        report = report if report is not None else DrainReport()
        report.jobs += 1
        try:
            with (
                self._process_lock if self._store_factory else contextlib.nullcontext(),
                self._heartbeat(job),
            ):
                result = self.process(job)
        except Exception as exc:
            if is_outage(exc):
                log.warning("job %s waits: dependency down: %s", job.id, exc)
                self._drop_store()
                self.queue.release(job, delay_s=self.outage_delay_s, error=repr(exc))
                report.released += 1
            else:
                status = self.queue.fail(job, repr(exc))
                log.warning("job %s failed (%s): %r", job.id, status, exc)
                report.failed += 1
            return True
        self.queue.complete(job, result)
        report.done += 1
        report.actions.update(result.get("actions", {}))
        return True

    @contextlib.contextmanager
    def _heartbeat(self, job: Job) -> Iterator[None]:
        """Extend the job's lease every third of it while the job runs, so a job slower
        than its lease (a slow store or model) is not claimed again by another worker
        meanwhile; a worker that dies stops extending it, and the lease expires."""
        interval = max(0.05, self.queue.lease_s / 3)
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(interval):
                try:
                    self.queue.heartbeat(job)
                except Exception as exc:  # lost the lease, or the queue is down: stop
                    log.warning("job %s: lease not extended: %r", job.id, exc)
                    return

        thread = threading.Thread(target=beat, name="memagent-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    # -- draining and the background loop ----------------------------------------

    def drain(self, *, max_jobs: int | None = None, include_delayed: bool = True) -> DrainReport:
        """Run pending jobs (debounced ones too) until none is left; returns counts.

        Debounced jobs are pulled forward; jobs in retry backoff keep their due time,
        so a failing job is not burnt through all its attempts in one drain.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._drain(max_jobs, include_delayed)
        box: list[DrainReport] = []
        t = threading.Thread(target=lambda: box.append(self._drain(max_jobs, include_delayed)))
        t.start()
        t.join()
        return box[0]

    def _drain(self, max_jobs: int | None, include_delayed: bool) -> DrainReport:
        report = DrainReport()
        start = time.perf_counter()
        while max_jobs is None or report.jobs < max_jobs:
            if not self.run_once(include_delayed=include_delayed, report=report):
                break
        report.seconds = time.perf_counter() - start
        return report

    def run_forever(self, stop: threading.Event | None = None) -> None:
        """Process jobs as they become due until ``stop`` is set (``memagent worker``)."""
        stop = stop or self._stop
        while not stop.is_set():
            try:
                worked = self.run_once()
            except Exception as exc:  # the queue itself failed: wait and try again
                log.error("worker loop error: %r", exc)
                worked = False
            if worked:
                continue
            self._maybe_maintain()
            nxt = self.queue.next_due()
            wait = (
                self.poll_s if nxt is None else max(0.0, min(self.poll_s, nxt - self.queue.clock()))
            )
            self._wake.wait(wait)
            self._wake.clear()

    def _maybe_maintain(self) -> None:
        """Scheduled forgetting (``maintain_every_s``), run when the queue is idle."""
        if self.maintain_every_s is None:
            return
        if time.monotonic() - self._last_maintain < self.maintain_every_s:
            return
        self._last_maintain = time.monotonic()
        try:
            rep = maintain(self._get_store(), policy=self.decay)
            log.info("maintenance: %d archived, %d purged", len(rep.archived), len(rep.purged))
        except Exception as exc:  # maintenance must never stop extraction
            log.warning("maintenance failed: %r", exc)

    def start(self) -> None:
        """Start the in-process background thread (idempotent)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self.run_forever, name="memagent-worker", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float | None = 10.0) -> None:
        """Stop the background thread after its current job (``timeout=None``: however long
        that job takes)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @contextlib.contextmanager
    def running(self) -> Iterator[Worker]:
        self.start()
        try:
            yield self
        finally:
            self.stop()
