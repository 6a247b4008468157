"""The memory record: one typed, versioned, scored fact about a customer.

Records are validated as a whole before anything is written; an invalid record
raises ``pydantic.ValidationError`` with the reason and is never half-stored.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MAX_CONTENT_CHARS = 150
RecordType = Literal["preference", "fact", "commitment", "status"]
RecordStatus = Literal["active", "deprecated", "archived"]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Source(BaseModel):
    """Where a record came from: which session, which messages, when."""

    model_config = ConfigDict(extra="forbid")

    thread_id: str | None = None
    message_ids: list[str] = Field(default_factory=list, max_length=200)
    at: datetime = Field(default_factory=utcnow)
    origin: Literal["extraction", "manual", "consolidation", "import"] = "extraction"


class Part(BaseModel):
    """One fact folded into a person's memory (``memagent.memory.write_person``): the key
    it was written under, its value and its text, so a later fact of that key replaces
    it and the memory can be split again when the person leaves a single-valued role."""

    model_config = ConfigDict(extra="forbid")

    attribute: str = Field(min_length=1, max_length=80)
    value: str | None = Field(None, max_length=MAX_CONTENT_CHARS)
    text: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    message_ids: list[str] = Field(default_factory=list, max_length=50)
    """The messages that said it, so taking one back removes only its part."""


class MemoryRecord(BaseModel):
    """A long-term memory record, the value stored under the ``facts`` namespace."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    type: RecordType = "fact"
    entity: str = Field("customer", min_length=1, max_length=80)
    attribute: str = Field("note", min_length=1, max_length=80)
    value: str | None = Field(None, max_length=MAX_CONTENT_CHARS)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    confidence: float = Field(0.8, ge=0.0, le=1.0)
    source: Source = Field(default_factory=Source)
    event_time: datetime | None = None
    valid_from: datetime = Field(default_factory=utcnow)
    valid_to: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    last_accessed_at: datetime = Field(default_factory=utcnow)
    access_count: int = Field(0, ge=0)
    status: RecordStatus = "active"
    version: int = Field(1, ge=1)
    supersedes: str | None = None
    mentions: int = Field(1, ge=1)
    parts: list[Part] = Field(default_factory=list, max_length=12)
    """The facts of one person folded into this memory, in the order they were said
    (empty for an ordinary record; ``content`` is then rendered from them)."""

    @field_validator("content")
    @classmethod
    def _one_clean_sentence(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v:
            raise ValueError("content is empty")
        if any(unicodedata.category(c) in ("Cc", "Cs") for c in v):
            raise ValueError("content has control characters or lone surrogates")
        return v

    @field_validator("entity", "attribute")
    @classmethod
    def _key_part(cls, v: str) -> str:
        v = re.sub(r"\s+", "_", v.strip().lower())
        if not v:
            raise ValueError("empty key part")
        return v

    @model_validator(mode="after")
    def _validity_window(self) -> MemoryRecord:
        if self.valid_to is not None and self.valid_to < self.valid_from:
            raise ValueError("valid_to is before valid_from")
        if self.status == "active" and self.valid_to is not None:
            raise ValueError("an active record cannot have valid_to set")
        return self

    @property
    def key(self) -> str:
        """The versioning key: one active record per entity + attribute."""
        return f"{self.entity}:{self.attribute}"

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)

    def to_store(self) -> dict[str, Any]:
        """The JSON value written to the store (datetimes as ISO strings)."""
        data = self.model_dump(mode="json")
        data["content_hash"] = self.content_hash
        return data

    @classmethod
    def from_store(cls, value: dict[str, Any]) -> MemoryRecord:
        data = {k: v for k, v in value.items() if k != "content_hash"}
        return cls.model_validate(data)


def content_hash(text: str) -> str:
    """Hash of normalised content, for exact-duplicate detection."""
    norm = " ".join(unicodedata.normalize("NFKC", text).lower().split())
    norm = re.sub(r"[\s.。!！?？,，;；]+$", "", norm)
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:32]
