"""Conditional writes on ``QdrantStore``, beyond ``BaseStore``: compare-and-set and ``touch``.

Compare-and-set: ``get_rev`` reads an item with its write token, ``put_if`` writes only
if the token is unchanged (or only if the item is absent). Qdrant decides it per point
(a conditional upsert), so it holds across processes and hosts without any lock; the
write path builds on it (``memagent.memory.write_cas``).

``touch(namespace, keys, at=...)`` records reads (``last_accessed_at``, ``access_count``
in the value) as a payload-only update conditioned on the same write token: nothing is
re-embedded, ``updated_at`` and the listing order stay, and the item stays in both
search sides.

``QdrantStore`` holds one ``ConditionalWrites`` and exposes its methods (the
``MemoryStoreExtensions`` Protocol); what it needs from the store, its engine, write
lock and write pipeline, is passed in explicitly when the store is built.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from langgraph.store.base import (
    NOT_PROVIDED,
    GetOp,
    InvalidNamespaceError,
    Item,
    NotProvided,
    PutOp,
    TTLConfig,
    validate_op_namespace,
)

from memagent.stores import store_ops as ops_
from memagent.stores.engines import Engine, PointData, Range, Where, WriteMode

if TYPE_CHECKING:
    from memagent.stores.store_plan import Plan

_TOUCH_ATTEMPTS = 3


class ApplyPuts(Protocol):
    """The store's write of a planned batch (``QdrantStore._apply_puts``): new tokens."""

    def __call__(
        self,
        plan: Plan,
        vectors: dict[str, Sequence[float]],
        now: datetime,
        *,
        cond: tuple[Where | None, WriteMode] | None = None,
    ) -> dict[str, str]: ...


class ConditionalWrites:
    """``get_rev``/``put_if`` (and async twins) and ``touch`` over one store's engine."""

    def __init__(
        self,
        engine: Engine,
        *,
        write_lock: threading.RLock,
        prepare: Callable[[PutOp], tuple[Plan, dict[str, Sequence[float]]]],
        apply: ApplyPuts,
        bump: Callable[[Iterable[Sequence[str]], str], list[PointData]],
        check_open: Callable[[], None],
        ttl_config: TTLConfig | None,
    ) -> None:
        self.engine = engine
        self.write_lock = write_lock
        self.prepare = prepare  # plan and embed one put (no engine I/O)
        self.apply = apply
        self.bump = bump
        self.check_open = check_open
        self.ttl_config = ttl_config

    def get_rev(self, namespace: tuple[str, ...], key: str) -> tuple[Item, str] | None:
        """The item and its write token, read together (``None`` if absent or expired).

        The token is ``""`` for an item written before tokens existed; ``put_if``
        accepts that too. Never extends a TTL.
        """
        validate_op_namespace(GetOp(tuple(namespace), str(key)))
        self.check_open()
        pid = ops_.point_id(tuple(namespace), str(key))
        recs = self.engine.retrieve([pid], ops_.ITEM_FIELDS)
        if not recs or not ops_.alive(recs[0].payload, time.time()):
            return None
        return ops_.to_item(recs[0].payload), str(recs[0].payload.get(ops_.REV) or "")

    def put_if(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        *,
        expect: str | None,
        index: Literal[False] | list[str] | None = None,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> str | None:
        """``put`` only if nobody wrote the item since ``get_rev`` returned ``expect``;
        with ``expect=None`` only if there is no (live) item. Returns the new write
        token, or ``None`` when another write came first (then nothing was written).

        Why the read-back: the engine skips a failed conditional write silently, and
        only the fresh token in the stored point tells which write won. A later write
        by someone else also reads as ``None`` (the caller re-reads and finds its own
        write merged in), never the other way round.
        """
        self.check_open()
        if value is None:
            raise ValueError("put_if needs a value; delete with delete()")
        minutes = (
            (self.ttl_config or {}).get("default_ttl") if isinstance(ttl, NotProvided) else ttl
        )
        ns = tuple(namespace)
        plan, vectors = self.prepare(PutOp(ns, str(key), value, index=index, ttl=minutes))
        now = ops_.utcnow()
        cond: tuple[Where | None, WriteMode]
        if expect is None:  # absent (inserted), or present but expired (replaced)
            cond = (Where(must=(Range("expires_at", lte=now.timestamp()),)), "upsert")
        else:
            cond = (ops_.rev_where(expect), "update")
        pid = ops_.point_id(ns, str(key))
        with self.engine.session():
            mine = self.apply(plan, vectors, now, cond=cond)[pid]
            back = self.engine.retrieve([pid], [ops_.REV])
        return mine if back and back[0].payload.get(ops_.REV) == mine else None

    async def aget_rev(self, namespace: tuple[str, ...], key: str) -> tuple[Item, str] | None:
        return await asyncio.to_thread(self.get_rev, namespace, key)

    async def aput_if(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        *,
        expect: str | None,
        index: Literal[False] | list[str] | None = None,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> str | None:
        return await asyncio.to_thread(
            self.put_if, namespace, key, value, expect=expect, index=index, ttl=ttl
        )

    # ------------------------------------------------------------ access stats

    def touch(
        self, namespace: tuple[str, ...], keys: Iterable[str], *, at: datetime | None = None
    ) -> int:
        """Record that items were used: ``last_accessed_at = at`` (ISO, default now) and
        ``access_count + 1`` in each value. Returns how many items were touched.

        Why not a put: recall touches what it injects on every turn, and a put would
        re-embed the text and invalidate the namespace's keyword corpus. This rewrites the
        ``value`` payload only: vectors, BM25 tokens, ``updated_at`` and the listing order
        stay, and the keyword version is not bumped (the keyword text did not change);
        only corpora cached for *filtered* searches are refreshed, as a filter may test
        the touched fields. Missing and expired keys are skipped. Each item is rewritten
        only if unchanged since it was read (its write token, renewed here), re-read and
        retried otherwise, so a touch never undoes a concurrent ``put``/``put_if``, even
        from another process; an item that keeps changing under it is left untouched.
        """
        ns = tuple(namespace)
        if not ns:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        if isinstance(keys, str):
            raise TypeError("keys must be an iterable of keys, not one string")
        wanted = sorted({str(k) for k in keys})
        validate_op_namespace(GetOp(ns, ""))
        if not wanted:
            return 0
        self.check_open()
        when = (at or ops_.utcnow()).isoformat()
        touched = 0
        with self.engine.session(), self.write_lock:  # the order of every write: session, then lock
            todo = [ops_.point_id(ns, k) for k in wanted]
            for _ in range(_TOUCH_ATTEMPTS):
                wrote = self._touch_once(todo, when)
                back = {r.id: r.payload.get(ops_.REV) for r in self.engine.retrieve(list(wrote))}
                touched += sum(back.get(pid) == rev for pid, rev in wrote.items())
                todo = [pid for pid, rev in wrote.items() if back.get(pid) != rev]
                if not todo:
                    break
            if touched:
                self.engine.upsert(self.bump([ns], ops_.VALUES_VERSION))
        return touched

    def _touch_once(self, ids: list[str], when: str) -> dict[str, str]:
        """One conditional value update per live item (skipped if it changed since read)."""
        now_ts = time.time()
        wrote: dict[str, str] = {}
        for rec in self.engine.retrieve(ids, ["value", "expires_at", ops_.REV]):
            if not ops_.alive(rec.payload, now_ts):
                continue
            value = ops_.touched_value(rec.payload.get("value") or {}, when)
            rev = wrote[rec.id] = ops_.new_rev()
            expect = ops_.rev_where(str(rec.payload.get(ops_.REV) or ""))
            self.engine.set_payload([rec.id], {"value": value, ops_.REV: rev}, where=expect)
        return wrote

    async def atouch(
        self, namespace: tuple[str, ...], keys: Iterable[str], *, at: datetime | None = None
    ) -> int:
        batch = keys if isinstance(keys, str) else list(keys)  # ``touch`` rejects one string
        return await asyncio.to_thread(self.touch, namespace, batch, at=at)
