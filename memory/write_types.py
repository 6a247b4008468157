"""The write path's inputs and outputs: a ``Candidate`` in, ``WriteConfig`` thresholds,
a ``WriteResult`` out (re-exported by ``memagent.memory.write_path``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memagent.core.redact import install_key
from memagent.memory.records import RecordType

Action = Literal["created", "merged", "versioned", "rejected", "pending", "quarantined"]


class Candidate(BaseModel):
    """A memory proposed by an extractor, ``memories add`` or consolidation."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=4000)
    type: RecordType = "fact"
    entity: str = Field("customer", min_length=1, max_length=80)
    attribute: str = Field("note", min_length=1, max_length=80)
    value: str | None = Field(None, max_length=400)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    confidence: float = Field(0.8, ge=0.0, le=1.0)
    event_time: datetime | None = None
    message_ids: list[str] = Field(default_factory=list, max_length=200)
    correction: bool = False
    replaces: str | None = Field(None, max_length=400)
    """The old value a correction names without naming its attribute ("不是80万，是120万",
    "it's 1.4M not 1.2M"): the write path versions the active memory holding that value
    (``write_anchor``)."""


BACKGROUND_DEEP = False
"""Whether the worker's screen adds the e5 probe to the rules and n-gram judge. Retired in
issue 17's seventh round: over every hand-written set it blocked ten attacks the reply-path
screen missed, and three ordinary notes, two sales extraction turns and 923 of 2760 LoCoMo
chat turns; set high enough to block no ordinary text, it blocked nothing more
(bench/results/poison_loso.md). The worker now screens like ``memories add``."""


@dataclass(frozen=True)
class WriteConfig:
    """Thresholds of the write path (defaults documented in the module docstring)."""

    near_duplicate: float = 0.95
    pending_below: float = 0.6
    search_k: int = 8
    merge_confidence_gain: float = 0.5
    redact: bool = True
    check_instructions: bool = True
    redaction_key: bytes | None = None
    """The install's key (``redact.install_key``); without one a per-process key redacts."""
    attempts: int = 8
    """Optimistic attempts of one write before ``WriteConflictError``."""
    quarantine: bool = True
    """Keep what the injection screen blocks in the ``quarantine`` namespace (out of recall,
    listed and releasable) instead of dropping it."""
    instruction_model: bool = True
    """The learned injection screen on top of the rules; graph/ passes the settings'
    ``poison_model`` (``MEMAGENT_POISON_MODEL``) through ``for_settings``."""
    instruction_deep: bool | None = None
    """Also the e5 probe (``check_instruction(deep=...)``); ``for_settings`` sets it to
    ``BACKGROUND_DEEP`` for the worker, False for a write a user waits for."""

    @classmethod
    def for_settings(cls, settings: Any, *, background: bool = False) -> WriteConfig:
        """The defaults with the settings' near-duplicate threshold, redaction key (under
        the settings' home) and injection screen (``MEMAGENT_NEAR_DUPLICATE_THRESHOLD``,
        ``MEMAGENT_POISON_MODEL``), as the worker (``background``) and ``memories add``
        write."""
        return cls(
            near_duplicate=float(settings.near_duplicate_threshold),
            redaction_key=install_key(settings.home),
            instruction_model=bool(settings.poison_model),
            instruction_deep=background and BACKGROUND_DEEP,
        )


@dataclass
class WriteResult:
    """What happened to one candidate."""

    stored: bool
    id: str | None
    content: str | None
    reason: str | None
    action: Action
    redacted: list[str] = field(default_factory=list)
    superseded: str | None = None
    then: list[Any] = field(default_factory=list)
    """Candidates this write calls for next (a superseded decision maker's role,
    ``write_roles``); ``write_memory`` writes them, each its own write."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "stored": self.stored,
            "content": self.content,
            "reason": self.reason,
            "id": self.id,
            "action": self.action,
            "redacted": self.redacted,
            "superseded": self.superseded,
        }
