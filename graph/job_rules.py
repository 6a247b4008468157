"""The outbox's rules and shape, shared by the SQLite (``jobs``) and PostgreSQL
(``jobs_pg``) outboxes: job ids, debounce planning, retry backoff, the ``Outbox``
protocol and the row -> ``Job`` mapping."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

from memagent.core.types import Job, Turn

JobStatus = Literal["pending", "running", "done", "dead", "superseded"]
STATUSES: tuple[str, ...] = ("pending", "running", "done", "dead", "superseded")


class JobQueueError(RuntimeError):
    """A queue operation that cannot be done (bad input, lost lease)."""


def job_id(thread_id: str, first_id: str, last_id: str) -> str:
    """Deterministic id of a job: the same thread + message range is the same job."""
    raw = f"{thread_id}\x1f{first_id}\x1f{last_id}".encode()
    return hashlib.sha256(raw).hexdigest()[:24]


def backoff_s(attempts: int, base_s: float, cap_s: float) -> float:
    """Delay before retry number ``attempts`` (1-based): base * 2**(n-1), capped."""
    return float(min(cap_s, base_s * (2 ** max(0, attempts - 1))))


def after_failure(
    attempts: int, max_attempts: int, now: float, base_s: float, cap_s: float
) -> tuple[str, float]:
    """A failed job's next status and run time: dead once its attempts are spent, else
    pending again after the backoff (the same rule for every outbox backend)."""
    if attempts >= max_attempts:
        return "dead", now
    return "pending", now + backoff_s(attempts, base_s, cap_s)


def turn_ref(turn: Turn) -> str:
    """A message's id, or a hash of its content when the message has none."""
    return turn.id or "h" + hashlib.sha256(turn.content.encode()).hexdigest()[:16]


def carry_turns(pending: Sequence[Sequence[Turn]], turns: Sequence[Turn]) -> list[Turn]:
    """The turns a new job covers: those of the thread's pending jobs it supersedes (oldest
    first, each message once) followed by the new ones."""
    seen = {t.id for t in turns if t.id}
    carried: list[Turn] = []
    for old in pending:
        for t in old:
            if not t.id or t.id not in seen:
                carried.append(t)
                if t.id:
                    seen.add(t.id)
    return carried + list(turns)


def plan_due(
    *,
    now: float,
    since: int,
    trigger: str,
    urgent: bool,
    superseded: Sequence[tuple[float, str]],
    delay_s: float,
    every_n_turns: int,
) -> tuple[float, str, bool]:
    """When a new job is due, why (its ``trigger``), and whether it is due now.

    ``since``: turns of the thread waiting since its last due job, this one included;
    ``superseded``: (run_at, trigger) of the pending jobs it replaces. Due now when
    urgent, every N waiting turns, or without a debounce; a superseded triggered job's
    earlier due time is kept, so debouncing never postpones an urgent job."""
    reasons = [trigger] if trigger else []
    if since >= every_n_turns:
        reasons.append(f"every_{every_n_turns}_turns")
    due_now = urgent or since >= every_n_turns or delay_s == 0
    run_at = now if due_now else now + delay_s
    for old_run_at, old_trigger in superseded:
        run_at = min(run_at, max(now, old_run_at)) if old_trigger else run_at
    return run_at, ",".join(reasons), due_now


class Outbox(Protocol):
    """What the graph, the worker and the CLI use of a job outbox: the SQLite
    ``JobQueue`` and the PostgreSQL ``memagent.graph.jobs_pg.PgJobQueue`` both keep
    the guarantees in this module's docstring (``tests/conformance/test_job_queue.py``)."""

    delay_s: float
    every_n_turns: int
    max_attempts: int
    lease_s: float
    clock: Callable[[], float]

    @property
    def where(self) -> str:
        """Where the outbox lives, for people (a file, or a URL without its password)."""
        ...

    def submit(
        self,
        *,
        thread_id: str,
        user_id: str,
        customer_id: str,
        turns: Sequence[Turn],
        trigger: str = "",
        urgent: bool = False,
    ) -> Job: ...
    def claim(
        self, *, lease_s: float | None = None, include_delayed: bool = False
    ) -> Job | None: ...
    def heartbeat(self, job: Job, *, lease_s: float | None = None) -> None: ...
    def complete(self, job: Job, result: dict[str, Any] | None = None) -> bool: ...
    def save_result(self, job: Job, result: dict[str, Any]) -> None: ...
    def release(self, job: Job, *, delay_s: float, error: str) -> bool: ...
    def fail(self, job: Job, error: str) -> str: ...
    def lock(
        self, name: str, *, ttl_s: float = 30.0, timeout_s: float = 60.0
    ) -> AbstractContextManager[None]: ...
    def add_listener(self, callback: Callable[[], None]) -> None: ...
    def get(self, jid: str) -> Job | None: ...
    def ids(self, status: str | None = None) -> list[str]: ...
    def counts(self) -> dict[str, int]: ...
    def jobs(self, status: str | None = None, limit: int = 100) -> list[Job]: ...
    def dead_letters(self, limit: int = 100) -> list[Job]: ...
    def outstanding(self) -> int: ...
    def unfinished(self, user_id: str, customer_id: str, now: float) -> int: ...
    def next_due(self) -> float | None: ...
    def retry_dead(self, jid: str | None = None) -> int: ...
    def delete_scope(self, user_id: str, customer_id: str | None = None) -> int: ...
    def purge_finished(self, older_than_s: float) -> int: ...
    def close(self) -> None: ...


def queue_kwargs(settings: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The settings' debounce, every-N-turns trigger, attempts and lease (``MEMAGENT_EXTRACT_*``)
    under explicit ``kwargs``."""
    kwargs.setdefault("delay_s", float(getattr(settings, "extract_debounce_s", 0.0)))
    kwargs.setdefault("every_n_turns", int(getattr(settings, "extract_every_n_turns", 4)))
    kwargs.setdefault("max_attempts", int(getattr(settings, "extract_max_attempts", 5)))
    kwargs.setdefault("lease_s", float(getattr(settings, "extract_lease_s", 60.0)))
    return kwargs


def turns_from_json(raw: str) -> list[Turn]:
    return [Turn(**t) for t in json.loads(raw)]


def row_to_job(row: sqlite3.Row | Mapping[str, Any]) -> Job:
    return Job(
        id=row["id"],
        thread_id=row["thread_id"],
        user_id=row["user_id"],
        customer_id=row["customer_id"],
        turns=turns_from_json(row["turns"]),
        status=row["status"],
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        run_at=row["run_at"],
        trigger=row["trigger"],
        lease_token=row["lease_token"],
        last_error=row["last_error"],
        created_at=row["created_at"],
        first_id=row["first_id"],
        last_id=row["last_id"],
        result=json.loads(row["result"]) if row["result"] else {},
    )
