"""Embedded engine: ``qdrant-edge-py``, Qdrant's own engine in-process.

Chosen over qdrant-client's local mode by measurement (bench/store_bench.py):
local mode scans every point in Python for a filtered query, edge uses real
payload indexes, so a namespace-filtered query stays in the low milliseconds at
100k points. ``":memory:"`` is a temporary directory (on tmpfs when there is one) removed on close; a real
directory is locked (``flock``) so a second process gets a clear error instead of
two writers corrupting one shard.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from memagent.stores.engines import (
    VECTOR,
    Cond,
    HasId,
    HasVector,
    Hit,
    IndexKind,
    Match,
    PointData,
    Range,
    Rec,
    Scalar,
    Where,
    point_id_str,
)

_SHARD_DIR = "edge"
_LOCK_FILE = "LOCK"
_SCAN_PAGE = 1024


def _ram_dir() -> str | None:
    """tmpfs for ``:memory:`` shards: the engine fsyncs each update, which RAM makes free."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


class StoreLockedError(RuntimeError):
    """The store directory is open in another process."""


def _cond(c: Cond) -> Any:
    if isinstance(c, Match):
        return qe.FieldCondition(c.key, match=qe.MatchValue(c.value))
    if isinstance(c, Range):
        return qe.FieldCondition(c.key, range=qe.RangeFloat(gt=c.gt, gte=c.gte, lt=c.lt, lte=c.lte))
    if isinstance(c, HasId):
        return qe.HasIdCondition(set(c.ids))
    if isinstance(c, HasVector):
        return qe.HasVectorCondition(VECTOR)
    return _filter(c)


def _filter(w: Where) -> Any:
    if not w.must and not w.must_not:
        return None
    return qe.Filter(
        must=[_cond(c) for c in w.must] or None,
        must_not=[_cond(c) for c in w.must_not] or None,
    )


def _with_payload(fields: list[str] | None) -> Any:
    """``None`` = whole payload, ``[]`` = none (ids and scores only)."""
    if fields is None:
        return True
    return list(fields) if fields else False


_KINDS = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "integer": qe.PayloadSchemaType.Integer,
    "float": qe.PayloadSchemaType.Float,
}


class EdgeEngine:
    """``Engine`` over one ``EdgeShard`` in a directory (or a temp dir for ``:memory:``)."""

    name = "edge"

    def __init__(
        self,
        location: str,
        dims: int | None,
        *,
        search_threads: int | None = 1,
        payload_in_ram: bool = True,
    ) -> None:
        """``dims=None`` opens an existing shard as it is (a new one gets a 1-dim placeholder).

        ``payload_in_ram`` keeps payloads cached in memory: a keyword corpus is built
        from payloads, and reading them cold from disk made the first keyword search
        of a namespace ~10x slower at 100k items (bench/store_bench.py).
        """
        self.dims = dims or 1
        self._temp = location == ":memory:"
        root = Path(
            tempfile.mkdtemp(prefix="memagent-edge-", dir=_ram_dir()) if self._temp else location
        )
        root.mkdir(parents=True, exist_ok=True)
        self._root = root
        self._lock_fd = os.open(root / _LOCK_FILE, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self._lock_fd)
            raise StoreLockedError(
                f"store directory {root} is open in another process; use a Qdrant server "
                "(MEMAGENT_QDRANT_URL) to share one store between processes"
            ) from exc
        shard_dir = root / _SHARD_DIR
        vectors = {
            VECTOR: qe.EdgeVectorParams(
                size=self.dims,
                distance=qe.Distance.Cosine,
                multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
            )
        }
        memory = qe.Memory.Cached if payload_in_ram else qe.Memory.Cold
        config = qe.EdgeConfig(
            vectors=vectors, max_search_threads=search_threads, payload_memory=memory
        )
        existing = shard_dir.exists() and any(shard_dir.iterdir())
        try:
            if existing and dims is None:
                self._shard = qe.EdgeShard.load(str(shard_dir))
            elif existing:
                self._shard = qe.EdgeShard.load(str(shard_dir), config)
            else:
                self._shard = qe.EdgeShard.create(str(shard_dir), config)
        except Exception as exc:
            self._release()
            if existing and "ncompatible" in str(exc):
                raise ValueError(
                    f"the store at {root} cannot be opened with {dims}-dim vectors: {exc}"
                ) from exc
            raise
        self._closed = False

    # writes
    def upsert(self, points: list[PointData]) -> None:
        if not points:
            return
        pts = [qe.Point(p.id, {VECTOR: p.vectors} if p.vectors else {}, p.payload) for p in points]
        self._shard.update(qe.UpdateOperation.upsert_points(pts))

    def delete(self, ids: list[str]) -> None:
        if ids:
            self._shard.update(qe.UpdateOperation.delete_points(list(ids)))

    def set_payload(self, ids: list[str], payload: dict[str, Any]) -> None:
        if ids:
            self._shard.update(qe.UpdateOperation.set_payload(list(ids), payload))

    def create_index(self, key: str, kind: IndexKind) -> None:
        self._shard.update(qe.UpdateOperation.create_field_index(key, _KINDS[kind]))

    def indexed_fields(self) -> set[str]:
        return set(self._shard.info().payload_schema)

    # reads
    def retrieve(self, ids: list[str], fields: list[str] | None = None) -> list[Rec]:
        if not ids:
            return []
        recs = self._shard.retrieve(list(ids), _with_payload(fields), False)
        return [Rec(point_id_str(r.id), r.payload or {}) for r in recs]

    def search(
        self, vector: list[float], where: Where, limit: int, fields: list[str] | None = None
    ) -> list[Hit]:
        req = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest([vector], using=VECTOR),
            filter=_filter(where),
            with_payload=_with_payload(fields),
        )
        return [
            Hit(point_id_str(p.id), float(p.score), p.payload or {}) for p in self._shard.query(req)
        ]

    def page(
        self,
        where: Where,
        limit: int,
        offset: int,
        order_by: str,
        fields: list[str] | None = None,
    ) -> list[Rec]:
        req = qe.QueryRequest(
            limit=limit,
            offset=offset,
            query=qe.OrderBy(order_by, direction=qe.Direction.Desc),
            filter=_filter(where),
            with_payload=_with_payload(fields),
        )
        return [Rec(point_id_str(p.id), p.payload or {}) for p in self._shard.query(req)]

    def scan(self, where: Where, fields: list[str] | None = None) -> Iterator[Rec]:
        offset = None
        flt = _filter(where)
        while True:
            recs, offset = self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset, limit=_SCAN_PAGE, filter=flt, with_payload=_with_payload(fields)
                )
            )
            for r in recs:
                yield Rec(point_id_str(r.id), r.payload or {})
            if offset is None:
                return

    def facet(self, key: str, where: Where, limit: int) -> list[tuple[Scalar, int]]:
        resp = self._shard.facet(
            qe.FacetRequest(key, limit=limit, exact=True, filter=_filter(where))
        )
        return [(h.value, h.count) for h in resp.hits]

    def count(self, where: Where) -> int:
        return int(self._shard.count(qe.CountRequest(exact=True, filter=_filter(where))))

    # lifecycle
    def optimize(self) -> bool:
        """Build HNSW / merge segments now (blocking); the store never does it implicitly."""
        return bool(self._shard.optimize())

    def flush(self) -> None:
        self._shard.flush()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._shard.flush()
            self._shard.close()
        finally:
            self._release()

    def _release(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
        if self._temp:
            shutil.rmtree(self._root, ignore_errors=True)
