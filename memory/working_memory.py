"""Working memory: the must-keep slots of the current task, versioned.

Hard facts of a session ("keep every proposal under 500 words", "PO-4471",
"budget 120k") must not depend on the summary, so they live here and are
rendered into every prompt. Updates are a gated merge:

- rules (``memory.working_rules``) catch explicit statements in English and
  Chinese; an optional small model proposes a JSON patch, validated with
  Pydantic, applied after the reply;
- only changed values are written, a newer turn wins over an older one (on a
  tie, rules beat the model), a correction replaces the old value;
- every write is compare-and-set on ``version``: a writer that read an older
  version is rejected (``StaleVersionError``); ``reduce_working`` applies the
  same rule as a LangGraph channel reducer, and ``session_lock`` serialises
  concurrent turns of one session on one event loop (``graph.agent.arun_turn``
  holds it for the whole turn);
- after ``ttl_s`` idle seconds the slots are cleared and a digest of them is
  returned and recorded in ``expired``, so the end of that turn offers it to
  long-term memory exactly once (``nodes.async_extract.offer_digest``).

Every bound here (ops per patch, slots per category, key and value length) is kept
by truncating, never by failing the turn: a patch holds the last ``MAX_PATCH_OPS``
distinct statements of a message (``Patch.bounded``), a category keeps its
``MAX_SLOTS_PER_CATEGORY`` most recent slots, keys and values are cut to length.

Stored in ``State.working`` as ``WorkingMemory.model_dump(mode="json")``.
"""

from __future__ import annotations

import asyncio
import json
import re
import weakref
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memagent.llm.tokens import content_text, truncate_to_tokens
from memagent.prompts.working_memory import CATEGORY_LABELS, PATCH_SYSTEM, PATCH_USER, SLOTS_HEADER

Category = Literal["constraints", "goals", "preferences", "facts", "todos"]
CATEGORIES: tuple[Category, ...] = ("constraints", "goals", "preferences", "facts", "todos")
Source = Literal["rules", "model", "user"]
MAX_VALUE_CHARS = 200
MAX_KEY_CHARS = 60
MAX_PATCH_OPS = 24
MAX_PATCH_MESSAGE_TOKENS = 1500
"""Most of a message the small model is shown when it proposes a patch."""
MAX_SLOTS_PER_CATEGORY = 24
"""A category holds at most this many slots; the least recently stated go first."""
_PRIORITY = {"model": 0, "rules": 1, "user": 2}


class StaleVersionError(RuntimeError):
    """A writer read an older version of working memory than the one stored."""


class Slot(BaseModel):
    """One remembered value and when it was last stated."""

    model_config = ConfigDict(extra="forbid")

    value: str = Field(min_length=1, max_length=MAX_VALUE_CHARS)
    turn: int = Field(default=0, ge=0)
    updated_at: datetime
    source: Source = "rules"
    corrected: bool = False


class Expiry(BaseModel):
    """The latest idle expiry: what was cleared, at which version, in which turn.

    ``version`` (the cleared memory's version) with the thread id is the idempotency
    key of the consolidation job; ``turn`` tells the end of that turn to offer it.
    """

    model_config = ConfigDict(extra="forbid")

    version: int = Field(ge=1)
    turn: int = Field(default=0, ge=0)
    lines: list[str] = Field(default_factory=list)


class WorkingMemory(BaseModel):
    """The must-keep slots of one session's current task."""

    model_config = ConfigDict(extra="forbid")

    constraints: dict[str, Slot] = Field(default_factory=dict)
    goals: dict[str, Slot] = Field(default_factory=dict)
    preferences: dict[str, Slot] = Field(default_factory=dict)
    facts: dict[str, Slot] = Field(default_factory=dict)
    """Confirmed facts and entities: order numbers, amounts, dates, names."""
    todos: dict[str, Slot] = Field(default_factory=dict)
    task_state: Slot | None = None
    version: int = Field(default=0, ge=0)
    updated_at: datetime | None = None
    touched_at: datetime | None = None
    """Last turn that used this memory; the idle TTL counts from here."""
    archive: list[str] = Field(default_factory=list)
    """Digest of every slot cleared on expiry in this session (all expiries, oldest first)."""
    expired: Expiry | None = None
    """The latest expiry, offered to long-term memory at the end of its turn."""

    @classmethod
    def from_state(cls, data: Mapping[str, Any] | None) -> WorkingMemory:
        """Load from ``State.working``; raises ``ValidationError`` on a corrupt record."""
        return cls.model_validate(dict(data)) if data else cls()

    def to_state(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def slots(self) -> list[tuple[str, str, Slot]]:
        """(category, key, slot) of every filled slot, task state included."""
        out: list[tuple[str, str, Slot]] = [
            (c, k, s) for c in CATEGORIES for k, s in getattr(self, c).items()
        ]
        if self.task_state:
            out.append(("task_state", "task", self.task_state))
        return out

    def is_empty(self) -> bool:
        return not self.slots()


class SlotOp(BaseModel):
    """One change: set or remove ``category.key``."""

    model_config = ConfigDict(extra="forbid")

    op: Literal["set", "remove"] = "set"
    category: Category | Literal["task_state"]
    key: str = Field(min_length=1, max_length=MAX_KEY_CHARS, pattern=r"^[\w:.\-]+$")
    value: str | None = Field(default=None, max_length=MAX_VALUE_CHARS)
    corrected: bool = False


class Patch(BaseModel):
    """Changes proposed from one user message of turn ``turn``."""

    model_config = ConfigDict(extra="forbid")

    ops: list[SlotOp] = Field(default_factory=list, max_length=MAX_PATCH_OPS)
    turn: int = Field(default=0, ge=0)
    source: Source = "rules"

    @classmethod
    def bounded(cls, ops: list[SlotOp], *, turn: int, source: Source) -> Patch:
        """A patch of ``ops`` within ``MAX_PATCH_OPS``: the last statement about each slot
        (what ``apply_patch`` would keep anyway), and of those the last ones stated."""
        last: dict[tuple[str, str], SlotOp] = {}
        for op in ops:
            last.pop((op.category, op.key), None)  # re-insert: order by last statement
            last[(op.category, op.key)] = op
        kept = list(last.values())[-MAX_PATCH_OPS:]
        return cls(ops=kept, turn=turn, source=source)


def _wins(old: Slot | None, turn: int, source: Source) -> bool:
    """Newer turn wins; on a tie, rules/user beat the model."""
    if old is None or turn > old.turn:
        return True
    return turn == old.turn and _PRIORITY[source] >= _PRIORITY[old.source]


def apply_patch(
    wm: WorkingMemory, patch: Patch, *, expected_version: int, now: datetime | None = None
) -> tuple[WorkingMemory, list[str]]:
    """Apply ``patch`` if ``wm`` is still at ``expected_version``; returns (new, changes).

    The version goes up only when something changed, so an empty patch never
    invalidates a concurrent writer.
    """
    if wm.version != expected_version:
        raise StaleVersionError(
            f"working memory is at version {wm.version}, writer expected {expected_version}"
        )
    now = now or datetime.now(UTC)
    new = wm.model_copy(deep=True)
    changes: list[str] = []
    # Within one message the last statement about a slot is the one that counts.
    last = {(op.category, op.key): op for op in patch.ops}
    for op in last.values():
        if op.category == "task_state":
            old = new.task_state
            if op.op == "remove" and old is not None:
                new.task_state = None
                changes.append("task_state cleared")
            elif (
                op.op == "set"
                and op.value
                and (old is None or old.value != op.value)
                and _wins(old, patch.turn, patch.source)
            ):
                new.task_state = Slot(
                    value=op.value, turn=patch.turn, updated_at=now, source=patch.source
                )
                changes.append("task_state set")
            continue
        bucket: dict[str, Slot] = getattr(new, op.category)
        old = bucket.get(op.key)
        if op.op == "remove":
            if old is not None and _wins(old, patch.turn, patch.source):
                del bucket[op.key]
                changes.append(f"{op.category}.{op.key} removed")
        elif (
            op.value
            and (old is None or old.value != op.value)
            and _wins(old, patch.turn, patch.source)
        ):
            bucket[op.key] = Slot(
                value=op.value,
                turn=patch.turn,
                updated_at=now,
                source=patch.source,
                corrected=op.corrected and old is not None,
            )
            changes.append(f"{op.category}.{op.key} {'corrected' if old else 'set'}")
    changes += _evict_oldest(new)
    if changes:
        new.version = wm.version + 1
        new.updated_at = now
    new.touched_at = now
    return new, changes


def _evict_oldest(wm: WorkingMemory) -> list[str]:
    """Keep each category within ``MAX_SLOTS_PER_CATEGORY`` (in place): the slots stated
    longest ago go first."""
    changes: list[str] = []
    for category in CATEGORIES:
        bucket: dict[str, Slot] = getattr(wm, category)
        if len(bucket) <= MAX_SLOTS_PER_CATEGORY:
            continue
        by_age = sorted(bucket, key=lambda k: (bucket[k].turn, bucket[k].updated_at))
        for key in by_age[: len(bucket) - MAX_SLOTS_PER_CATEGORY]:
            del bucket[key]
            changes.append(f"{category}.{key} evicted")
    return changes


def superseded(old: WorkingMemory, new: WorkingMemory) -> list[Slot]:
    """Slots of ``old`` whose value ``new`` replaced or removed (what is no longer true)."""
    now = {(c, k): s.value for c, k, s in new.slots()}
    return [s for c, k, s in old.slots() if now.get((c, k)) != s.value]


def digest(wm: WorkingMemory) -> list[str]:
    """One line per slot, for long-term memory when the slots expire."""
    return [f"{CATEGORY_LABELS[c]} · {k}: {s.value}" for c, k, s in wm.slots()]


def expire(
    wm: WorkingMemory, *, now: datetime, ttl_s: float, turn: int = 0
) -> tuple[WorkingMemory, list[str] | None]:
    """Clear the slots when idle longer than ``ttl_s``; returns (memory, archived digest).

    The cleared memory keeps counting versions (a stale writer holding the old
    slots must still be rejected), appends the digest to ``archive`` and records
    it in ``expired`` with the version and ``turn`` (the turn that found it idle).
    """
    if ttl_s <= 0:
        raise ValueError(f"ttl_s must be > 0, got {ttl_s}")
    last = wm.touched_at or wm.updated_at
    if last is None or wm.is_empty() or (now - last).total_seconds() <= ttl_s:
        return wm, None
    lines = digest(wm)
    version = wm.version + 1
    cleared = WorkingMemory(
        version=version,
        updated_at=now,
        touched_at=now,
        archive=wm.archive + lines,
        expired=Expiry(version=version, turn=turn, lines=lines),
    )
    return cleared, lines


def render(wm: WorkingMemory, *, in_view: str = "") -> str:
    """The must-keep block of the prompt ('' when there is nothing to keep). A slot whose
    words ``in_view`` (the current message) already holds is not shown twice: on a note's
    own turn every slot is a copy of it, and that copy, set out as must-keep notes beside
    the message, made the small model read its instructions back instead of replying."""
    view = " ".join(in_view.split())
    out = [SLOTS_HEADER]
    for category in (*CATEGORIES, "task_state"):
        items = [(k, s) for c, k, s in wm.slots() if c == category]
        seen: set[str] = set()
        lines: list[str] = []
        for _, s in sorted(items, key=lambda kv: kv[1].turn):
            value = " ".join(s.value.split())
            if value and value not in seen and value not in view:  # one sentence can fill
                seen.add(value)  # two keys (budget + deadline)
                lines.append(f"- {value}")
        if lines:
            out += [f"{CATEGORY_LABELS[category]}:", *lines]
    return "\n".join(out) if len(out) > 1 else ""


_LOCKS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakValueDictionary[str, asyncio.Lock]
] = weakref.WeakKeyDictionary()


def session_lock(thread_id: str) -> asyncio.Lock:
    """The lock that serialises turns of one session (hold it for a whole turn).

    One lock per thread id *and event loop*: an ``asyncio.Lock`` is neither
    thread-safe nor usable from a second loop, so each loop gets its own. That
    covers every turn run through one agent (``aopen_agent``; ``open_agent`` funnels
    all calling threads into its private loop). Two agents on different loops or
    in two processes sharing one home are serialised by the graph's cross-process
    ``turn_lock`` (``memagent.graph.turn_lock``), taken after this one. Must be called
    from a running loop. A lock lives as long as someone holds or waits on it.
    """
    loop = asyncio.get_running_loop()
    locks = _LOCKS.get(loop)
    if locks is None:
        locks = weakref.WeakValueDictionary()
        _LOCKS[loop] = locks
    lock = locks.get(thread_id)
    if lock is None:
        lock = asyncio.Lock()
        locks[thread_id] = lock
    return lock


class _ModelOp(BaseModel):
    model_config = ConfigDict(extra="forbid")
    category: Category
    key: str
    value: str | None = None


class _ModelPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    set: list[_ModelOp] = Field(default_factory=list)
    remove: list[_ModelOp] = Field(default_factory=list)
    task_state: str | None = None
    task_done: bool = False


def slot_key(key: str) -> str:
    """``key`` as a valid slot key: word characters, ``:.-``, at most ``MAX_KEY_CHARS``."""
    return re.sub(r"[^\w:.\-]+", "_", key.strip().lower()).strip("_")[:MAX_KEY_CHARS] or "note"


def parse_model_patch(text: str, *, turn: int) -> Patch | None:
    """The model's JSON patch as a validated ``Patch``, or None when it is not valid."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        return None
    try:
        raw = _ModelPatch.model_validate(json.loads(match.group(0)))
        ops = [
            SlotOp(category=o.category, key=slot_key(o.key), value=o.value[:MAX_VALUE_CHARS])
            for o in raw.set
            if o.value and o.value.strip()
        ]
        ops += [SlotOp(op="remove", category=o.category, key=slot_key(o.key)) for o in raw.remove]
        if raw.task_done:
            ops.append(SlotOp(op="remove", category="task_state", key="task"))
        elif raw.task_state and raw.task_state.strip():
            ops.append(
                SlotOp(category="task_state", key="task", value=raw.task_state[:MAX_VALUE_CHARS])
            )
        return Patch.bounded(ops, turn=turn, source="model")
    except (ValueError, ValidationError):
        return None


async def propose_patch(
    model: BaseChatModel, wm: WorkingMemory, message: str, *, turn: int
) -> Patch | None:
    """Ask the small model for a JSON patch; None when its output does not validate.
    A long message is cut to ``MAX_PATCH_MESSAGE_TOKENS`` (head and tail) for the ask."""
    current = render(wm) or "(empty)"
    message = truncate_to_tokens(message, MAX_PATCH_MESSAGE_TOKENS)
    reply = await model.ainvoke(
        [
            SystemMessage(PATCH_SYSTEM),
            HumanMessage(PATCH_USER.format(current=current, message=message)),
        ]
    )
    return parse_model_patch(content_text(reply.content), turn=turn)
