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
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from memagent.stores.edge_convert import KINDS, MODES, edge_config, edge_filter, with_payload
from memagent.stores.engines import (
    VECTOR,
    Distance,
    HasId,
    Hit,
    IndexKind,
    PointData,
    Rec,
    Scalar,
    Where,
    WriteMode,
    point_id_str,
)
from memagent.stores.file_access import open_failure, unwritable_reason
from memagent.stores.lock_owner import Holder, holder_of

_SHARD_DIR = "edge"
_LOCK_FILE = "LOCK"
_SCAN_PAGE = 1024


def _ram_dir() -> str | None:
    """tmpfs for ``:memory:`` shards: the engine fsyncs each update, which RAM makes free."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


class StoreLockedError(RuntimeError):
    """The store directory is open in another process: ``path`` (the directory) and,
    when it can be seen, ``holder`` (its pid and command line,
    ``memagent.stores.lock_owner``)."""

    def __init__(self, message: str, *, path: Path | None = None, holder: Holder | None = None):
        super().__init__(message)
        self.path = path
        self.holder = holder


class EdgeEngine:
    """``Engine`` over one ``EdgeShard`` in a directory (or a temp dir for ``:memory:``).

    ``shared=True`` lets several processes on one host use one directory: each call
    (or ``session()``) takes the directory's ``flock``, waiting up to
    ``lock_timeout_s``, loads the shard, runs, flushes, closes and releases it.
    Loading, flushing and closing sync files: ~50 ms with the store's payload indexes
    on an idle disk, 0.1-0.3 s each on a busy one (bench/scale_bench.py), so callers
    group a unit of work in one ``session()`` (``QdrantStore.session``) and shared mode
    is for a few processes at moderate rates; a Qdrant server is the way to share one
    store at speed or across hosts.
    """

    name = "edge"

    def __init__(
        self,
        location: str,
        dims: int | None,
        *,
        search_threads: int | None = 1,
        payload_in_ram: bool = True,
        shared: bool = False,
        lock_timeout_s: float = 30.0,
        distance: Distance = "cosine",
        read_only: bool = False,
    ) -> None:
        """``dims=None`` opens an existing shard as it is (a new one gets a 1-dim placeholder).

        ``payload_in_ram`` keeps payloads cached in memory: a keyword corpus is built
        from payloads, and reading them cold from disk made the first keyword search
        of a namespace ~10x slower at 100k items (bench/store_bench.py).

        ``read_only`` is for callers that only read (``memories list``, ``doctor``): the
        engine cannot load a shard from a directory it cannot write (it maps files
        read-write), so there it loads a private copy taken under a shared lock; a
        missing store reads as empty and nothing is created. A writable directory is
        opened in place as usual.
        """
        self.dims = dims or 1
        self.distance: Distance = distance
        self._temp = location == ":memory:"
        if shared and self._temp:
            raise ValueError("a ':memory:' store cannot be shared between processes")
        self._shared = shared
        self._lock_timeout_s = lock_timeout_s
        self.snapshot_of: Path | None = None
        """The directory a read-only engine copied (None when opened in place)."""
        root = self._open_root(location, read_only=read_only and not shared)
        self._root = root
        self._shard_dir = root / _SHARD_DIR
        self._guard = threading.RLock()
        self._depth = 0
        self._dirty = False
        self._closed = False
        try:
            self._lock_fd = os.open(root / _LOCK_FILE, os.O_CREAT | os.O_RDWR, 0o644)
        except OSError as exc:
            raise open_failure(root / _LOCK_FILE, exc) from exc
        self._acquire()
        config = edge_config(self.dims, distance, search_threads, payload_in_ram)
        self._open_shard(config, dims, distance)
        if self._shared:
            self._shard.flush()
            self._shard.close()
            self._unlock()

    def _open_root(self, location: str, *, read_only: bool) -> Path:
        """The directory the shard lives in, created if missing: ``location``, or a temp
        dir for ``:memory:`` and for a read-only open that cannot use ``location`` (no
        store there yet: an empty one; an unwritable one: a copy of it)."""
        if read_only and not self._temp:
            source = Path(location)
            if not (source / _SHARD_DIR).is_dir():
                self._temp = True  # nothing stored yet: read an empty store, create nothing
            elif unwritable_reason(source / _SHARD_DIR) is not None:
                self._temp = True
                self.snapshot_of = source
        root = Path(
            tempfile.mkdtemp(prefix="memagent-edge-", dir=_ram_dir()) if self._temp else location
        )
        if self.snapshot_of is not None:
            self._copy_shard(self.snapshot_of, root)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise open_failure(root, exc) from exc
        return root

    def _open_shard(self, config: Any, dims: int | None, distance: Distance) -> None:
        """Load the shard in the directory (``dims=None``: with its own config) or create
        it; the directory lock is released when that fails."""
        existing = self._shard_dir.exists() and any(self._shard_dir.iterdir())
        self._config = None if existing and dims is None else config
        try:
            if existing:
                self._shard = self._load()
            else:
                self._shard = qe.EdgeShard.create(str(self._shard_dir), config)
        except Exception as exc:
            self._release()
            if existing and "ncompatible" in str(exc):
                raise ValueError(
                    f"the store at {self._root} cannot be opened with {dims}-dim {distance} "
                    f"vectors (it was created with other dims or another distance_type): {exc}"
                ) from exc
            raise

    def _copy_shard(self, source: Path, target: Path) -> None:
        """Copy ``source``'s shard into ``target`` under a shared lock on ``source``, so no
        writer (which holds the lock exclusively) is half-way through a write."""
        fd: int | None = None
        with contextlib.suppress(OSError):
            fd = os.open(source / _LOCK_FILE, os.O_RDONLY)
        try:
            if fd is not None:
                deadline = time.monotonic() + self._lock_timeout_s
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > deadline:
                            raise StoreLockedError(
                                f"store directory {source} is open in another process"
                            ) from None
                        time.sleep(0.02)
            shutil.copytree(source / _SHARD_DIR, target / _SHARD_DIR)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
        finally:
            if fd is not None:
                os.close(fd)

    def _load(self) -> Any:
        if self._config is None:
            return qe.EdgeShard.load(str(self._shard_dir))
        return qe.EdgeShard.load(str(self._shard_dir), self._config)

    # -- the directory lock (exclusive for the engine's life, or per session when shared)

    def _acquire(self) -> None:
        if not self._shared:
            try:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                os.close(self._lock_fd)
                holder = holder_of(self._root / _LOCK_FILE)
                by = holder.describe() if holder else "another process"
                raise StoreLockedError(
                    f"store directory {self._root} is open in {by}; use a Qdrant "
                    "server (MEMAGENT_QDRANT_URL), or open every process with shared=True "
                    "(MEMAGENT_STORE_SHARED=1), to share one store between processes",
                    path=self._root,
                    holder=holder,
                ) from exc
            return
        deadline = time.monotonic() + self._lock_timeout_s
        delay = 0.001
        while True:
            try:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreLockedError(
                        f"shared store {self._root} stayed busy for {self._lock_timeout_s:.0f} s: "
                        "another process holds it (a non-shared open holds it for good)"
                    ) from None
                time.sleep(delay)
                delay = min(0.02, delay * 2)

    def _unlock(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """Hold the shard for several calls (shared mode); reentrant, a no-op otherwise."""
        if not self._shared:
            yield
            return
        with self._guard:
            if self._closed:
                raise RuntimeError("the engine is closed")
            if self._depth == 0:
                self._acquire()
                try:
                    self._shard = self._load()
                except BaseException:
                    self._unlock()
                    raise
                self._dirty = False
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    try:
                        if self._dirty:
                            self._shard.flush()
                        self._shard.close()
                    finally:
                        self._shard = None
                        self._unlock()

    # writes
    def upsert(self, points: list[PointData]) -> None:
        self.upsert_if(points)

    def upsert_if(
        self, points: list[PointData], *, where: Where | None = None, mode: WriteMode = "upsert"
    ) -> None:
        if not points:
            return
        pts = [qe.Point(p.id, {VECTOR: p.vectors} if p.vectors else {}, p.payload) for p in points]
        cond = edge_filter(where) if where is not None else None
        update_mode = MODES[mode] if mode != "upsert" else None
        self._update(qe.UpdateOperation.upsert_points(pts, cond, update_mode))

    def delete(self, ids: list[str]) -> None:
        if ids:
            self._update(qe.UpdateOperation.delete_points(list(ids)))

    def set_payload(
        self, ids: list[str], payload: dict[str, Any], *, where: Where | None = None
    ) -> None:
        if not ids:
            return
        if where is None:
            self._update(qe.UpdateOperation.set_payload(list(ids), payload))
        else:
            flt = edge_filter(where.and_(HasId(tuple(ids))))
            self._update(qe.UpdateOperation.set_payload_by_filter(flt, payload))

    def create_index(self, key: str, kind: IndexKind) -> None:
        self._update(qe.UpdateOperation.create_field_index(key, KINDS[kind]))

    def _update(self, op: Any) -> None:
        with self.session():
            self._dirty = True
            self._shard.update(op)

    def indexed_fields(self) -> set[str]:
        with self.session():
            return set(self._shard.info().payload_schema)

    # reads
    def retrieve(self, ids: list[str], fields: list[str] | None = None) -> list[Rec]:
        if not ids:
            return []
        with self.session():
            recs = self._shard.retrieve(list(ids), with_payload(fields), False)
        return [Rec(point_id_str(r.id), r.payload or {}) for r in recs]

    def search(
        self, vector: list[float], where: Where, limit: int, fields: list[str] | None = None
    ) -> list[Hit]:
        req = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest([vector], using=VECTOR),
            filter=edge_filter(where),
            with_payload=with_payload(fields),
        )
        with self.session():
            found = self._shard.query(req)
        return [Hit(point_id_str(p.id), float(p.score), p.payload or {}) for p in found]

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
            filter=edge_filter(where),
            with_payload=with_payload(fields),
        )
        with self.session():
            found = self._shard.query(req)
        return [Rec(point_id_str(p.id), p.payload or {}) for p in found]

    def scan(self, where: Where, fields: list[str] | None = None) -> Iterator[Rec]:
        """Pages are read one session each: a shared store is not held between pages."""
        offset = None
        flt = edge_filter(where)
        while True:
            with self.session():
                recs, offset = self._shard.scroll(
                    qe.ScrollRequest(
                        offset=offset,
                        limit=_SCAN_PAGE,
                        filter=flt,
                        with_payload=with_payload(fields),
                    )
                )
            for r in recs:
                yield Rec(point_id_str(r.id), r.payload or {})
            if offset is None:
                return

    def facet(self, key: str, where: Where, limit: int) -> list[tuple[Scalar, int]]:
        req = qe.FacetRequest(key, limit=limit, exact=True, filter=edge_filter(where))
        with self.session():
            resp = self._shard.facet(req)
        return [(h.value, h.count) for h in resp.hits]

    def count(self, where: Where) -> int:
        with self.session():
            return int(self._shard.count(qe.CountRequest(exact=True, filter=edge_filter(where))))

    # lifecycle
    def optimize(self) -> bool:
        """Build HNSW / merge segments now (blocking); the store never does it implicitly."""
        with self.session():
            self._dirty = True
            return bool(self._shard.optimize())

    def flush(self) -> None:
        """Shared mode flushes at the end of every session that wrote."""
        if not self._shared:
            self._shard.flush()

    def close(self) -> None:
        if self._closed:
            return
        with self._guard:
            self._closed = True
            try:
                if not self._shared:
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
