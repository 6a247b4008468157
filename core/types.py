"""Types shared by several layers: a conversation turn, an outbox job, the outbox port.

Plain data with no I/O, so that nodes, the domain layer and the composition root
agree on one shape without importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

DIGEST_ROLE = "digest"
"""Role of the turns that carry a working-memory digest (archived slots) instead of
conversation text; the worker routes them to the profile instead of the extractor."""


@dataclass(frozen=True)
class Turn:
    """One message of the conversation as the extractor sees it.

    ``at`` is when the message was written (ISO 8601, with its UTC offset), so an
    extractor can resolve "next Friday" or "下个月15号" against the message's own time
    rather than the time the job happens to run; empty when unknown.
    """

    role: str
    content: str
    id: str = ""
    at: str = ""

    def to_dict(self) -> dict[str, str]:
        data = {"role": self.role, "content": self.content, "id": self.id}
        if self.at:
            data["at"] = self.at
        return data


@dataclass
class Job:
    """One row of the outbox."""

    id: str
    thread_id: str
    user_id: str
    customer_id: str
    turns: list[Turn]
    status: str
    attempts: int
    max_attempts: int
    run_at: float
    trigger: str = ""
    lease_token: str | None = None
    last_error: str | None = None
    created_at: float = 0.0
    first_id: str = ""
    last_id: str = ""
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def message_ids(self) -> list[str]:
        return [t.id for t in self.turns if t.id]


class JobSink(Protocol):
    """Where the graph enqueues extraction work (the SQLite outbox ``graph.jobs.JobQueue``)."""

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
