"""Server engine: ``qdrant-client`` against a Qdrant server or cluster (or its local mode).

The scaled-out deployment points ``location`` at ``http(s)://...``; the same
adapter also drives qdrant-client's pure-Python local mode (``":memory:"`` or a
path, with ``engine="client"``), which the conformance suite uses to exercise
this code path when no server runs. Local mode ignores payload indexes and is
slow at scale (measured in bench/store_bench.py); it is not the embedded default.
"""

from __future__ import annotations

import contextlib
import math
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as m

from memagent.core.log_redaction import memagent_logger
from memagent.stores.engine_retry import Retrying, RetryPolicy, StoreUnavailableError
from memagent.stores.engines import (
    VECTOR,
    Cond,
    Distance,
    HasId,
    HasVector,
    Hit,
    IndexKind,
    Match,
    Missing,
    PointData,
    Range,
    Rec,
    Scalar,
    Where,
    WriteMode,
    point_id_str,
)

log = memagent_logger(__name__)
_SCAN_PAGE = 1024
_MODES = {
    "upsert": m.UpdateMode.UPSERT,
    "insert": m.UpdateMode.INSERT_ONLY,
    "update": m.UpdateMode.UPDATE_ONLY,
}
_DISTANCES = {
    "cosine": m.Distance.COSINE,
    "inner_product": m.Distance.DOT,
    "l2": m.Distance.EUCLID,
}
_KINDS = {
    "keyword": m.PayloadSchemaType.KEYWORD,
    "integer": m.PayloadSchemaType.INTEGER,
    "float": m.PayloadSchemaType.FLOAT,
}


def _cond(c: Cond) -> Any:
    if isinstance(c, Match):
        return m.FieldCondition(key=c.key, match=m.MatchValue(value=c.value))
    if isinstance(c, Range):
        return m.FieldCondition(key=c.key, range=m.Range(gt=c.gt, gte=c.gte, lt=c.lt, lte=c.lte))
    if isinstance(c, HasId):
        return m.HasIdCondition(has_id=list(c.ids))
    if isinstance(c, HasVector):
        return m.HasVectorCondition(has_vector=VECTOR)
    if isinstance(c, Missing):
        return m.IsEmptyCondition(is_empty=m.PayloadField(key=c.key))
    return _filter(c)


def _filter(w: Where) -> m.Filter | None:
    if w.is_empty():
        return None
    return m.Filter(
        must=[_cond(c) for c in w.must] or None,
        should=[_cond(c) for c in w.should] or None,
        must_not=[_cond(c) for c in w.must_not] or None,
    )


def _distance_name(d: Any) -> Distance:
    for name, value in _DISTANCES.items():
        if value == d:
            return name  # type: ignore[return-value]
    raise ValueError(f"unsupported vector distance {d!r} in the collection")


def _with_payload(fields: list[str] | None) -> Any:
    """``None`` = whole payload, ``[]`` = none (ids and scores only)."""
    if fields is None:
        return True
    return list(fields) if fields else False


class _Serialised:
    """A local-mode client whose calls take turns: qdrant-client's local mode keeps its
    points in plain Python structures (and SQLite for a path) that are not thread-safe;
    a put/delete thread beside a reader failed with ``cannot start a transaction within
    a transaction``. A server serialises calls itself and needs no lock."""

    def __init__(self, client: QdrantClient, lock: threading.RLock) -> None:
        self._client, self._lock = client, lock

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._client, name)
        if not callable(fn):
            return fn

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return fn(*args, **kwargs)

        return call


def already_exists(exc: BaseException) -> bool:
    """The error another process's identical setup step gives (collection or index made
    between our check and our create): the server answers 409, local mode a ValueError."""
    return getattr(exc, "status_code", None) == 409 or "already exists" in str(exc).lower()


class ClientEngine:
    """``Engine`` over one qdrant-client collection.

    Against a server, calls retry and fail fast through ``engine_retry.Retrying``, and
    the collection is created or checked on first use: a server that is down when the
    engine is opened leaves it degraded (every call raises ``StoreUnavailableError``
    quickly) rather than failing the process that opens it, and the first call after
    the server is back sets the collection up. Setup is idempotent across processes
    starting at once: a create that loses the race to another process's create is
    taken as done, and the collection that exists is checked like any other.
    """

    name = "client"

    def __init__(
        self,
        location: str,
        dims: int | None,
        *,
        collection: str = "memagent",
        api_key: str | None = None,
        timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        distance: Distance = "cosine",
        client: Any = None,
    ) -> None:
        self.dims = dims or 1
        self._dims_given = dims
        self.distance: Distance = distance
        self.collection = collection
        self.location = location
        self.local = not location.startswith(("http://", "https://"))
        self._lock = threading.RLock()
        self._ready = False
        self._ready_lock = threading.Lock()
        self._client: Any
        if client is not None:  # a caller's client (tests share one local client)
            self._client = client
        elif location == ":memory:":
            self._client = _Serialised(QdrantClient(location=":memory:"), self._lock)
        elif self.local:
            self._client = _Serialised(QdrantClient(path=location), self._lock)
        else:
            raw = QdrantClient(
                url=location,
                api_key=api_key,
                timeout=max(1, math.ceil(timeout)),
                check_compatibility=False,  # a version request at construction: not here
            )
            self._client = Retrying(raw, where=location, policy=retry)
        self._indexed: set[str] = set()
        try:
            self.ensure_ready()
        except StoreUnavailableError as exc:
            if self.local:
                raise
            log.warning("%s; the store runs degraded until it answers", exc)

    @property
    def down(self) -> bool:
        """Whether the server is unreachable (in its cool-down after an outage)."""
        return bool(getattr(self._client, "down", False))

    def ensure_ready(self) -> None:
        """Create or check the collection once (on first use when the server was down)."""
        if self._ready:
            return
        with self._ready_lock:
            if not self._ready:
                self._create_or_check()
                self._ready = True

    def _create_or_check(self) -> None:
        if not self._client.collection_exists(self.collection):
            try:
                self._client.create_collection(
                    self.collection,
                    vectors_config={
                        VECTOR: m.VectorParams(
                            size=self.dims,
                            distance=_DISTANCES[self.distance],
                            multivector_config=m.MultiVectorConfig(
                                comparator=m.MultiVectorComparator.MAX_SIM
                            ),
                        )
                    },
                )
                return
            except Exception as exc:
                if not already_exists(exc):
                    raise
                # another process created it meanwhile: check it as an existing one
        self._check_existing()

    def _check_existing(self) -> None:
        dims, distance, collection = self._dims_given, self.distance, self.collection
        info = self._client.get_collection(collection)
        params = info.config.params.vectors
        vp = params[VECTOR] if isinstance(params, dict) and VECTOR in params else None
        size = vp.size if vp else None
        if dims is None and size:
            self.dims = size
            self.distance = _distance_name(vp.distance) if vp else distance
        elif size != dims:
            raise ValueError(
                f"collection {collection!r} has vectors of size {size}, "
                f"the store was opened with dims={dims}"
            )
        elif vp and _distance_name(vp.distance) != distance:
            raise ValueError(
                f"collection {collection!r} compares vectors by "
                f"{_distance_name(vp.distance)}, the store was opened with distance_type {distance}"
            )

    # writes
    def upsert(self, points: list[PointData]) -> None:
        self.upsert_if(points)

    def upsert_if(
        self, points: list[PointData], *, where: Where | None = None, mode: WriteMode = "upsert"
    ) -> None:
        self.ensure_ready()
        if not points:
            return
        conditional: dict[str, Any] = {}
        if where is not None:
            conditional["update_filter"] = _filter(where)
        if mode != "upsert":
            conditional["update_mode"] = _MODES[mode]
        self._client.upsert(
            self.collection,
            [
                m.PointStruct(
                    id=p.id, vector={VECTOR: p.vectors} if p.vectors else {}, payload=p.payload
                )
                for p in points
            ],
            wait=True,
            **conditional,
        )

    def delete(self, ids: list[str]) -> None:
        self.ensure_ready()
        if ids:
            self._client.delete(self.collection, m.PointIdsList(points=list(ids)), wait=True)

    def set_payload(
        self, ids: list[str], payload: dict[str, Any], *, where: Where | None = None
    ) -> None:
        self.ensure_ready()
        if not ids:
            return
        if where is None:
            self._client.set_payload(self.collection, payload, points=list(ids), wait=True)
            return
        selector = m.FilterSelector(filter=_filter(where.and_(HasId(tuple(ids)))))
        self._client.set_payload(self.collection, payload, points=selector, wait=True)

    def create_index(self, key: str, kind: IndexKind) -> None:
        self.ensure_ready()
        if self.local:  # local mode ignores payload indexes (and warns about each)
            self._indexed.add(key)
            return
        try:
            self._client.create_payload_index(self.collection, key, _KINDS[kind], wait=True)
        except Exception as exc:  # another process made the same index meanwhile
            if not already_exists(exc):
                raise

    def indexed_fields(self) -> set[str]:
        self.ensure_ready()
        if self.local:
            return set(self._indexed)
        return set(self._client.get_collection(self.collection).payload_schema or {})

    # reads
    def retrieve(self, ids: list[str], fields: list[str] | None = None) -> list[Rec]:
        self.ensure_ready()
        if not ids:
            return []
        recs = self._client.retrieve(self.collection, list(ids), with_payload=_with_payload(fields))
        return [Rec(point_id_str(r.id), r.payload or {}) for r in recs]

    def search(
        self, vector: list[float], where: Where, limit: int, fields: list[str] | None = None
    ) -> list[Hit]:
        self.ensure_ready()
        res = self._client.query_points(
            self.collection,
            query=[vector],
            using=VECTOR,
            query_filter=_filter(where),
            limit=limit,
            with_payload=_with_payload(fields),
        )
        return [Hit(point_id_str(p.id), float(p.score), p.payload or {}) for p in res.points]

    def page(
        self,
        where: Where,
        limit: int,
        offset: int,
        order_by: str,
        fields: list[str] | None = None,
    ) -> list[Rec]:
        self.ensure_ready()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = self._client.query_points(
                self.collection,
                query=m.OrderByQuery(order_by=m.OrderBy(key=order_by, direction=m.Direction.DESC)),
                query_filter=_filter(where),
                limit=limit,
                offset=offset,
                with_payload=_with_payload(fields),
            )
        return [Rec(point_id_str(p.id), p.payload or {}) for p in res.points]

    def scan(self, where: Where, fields: list[str] | None = None) -> Iterator[Rec]:
        self.ensure_ready()
        offset: Any = None
        flt = _filter(where)
        while True:
            recs, offset = self._client.scroll(
                self.collection,
                scroll_filter=flt,
                limit=_SCAN_PAGE,
                offset=offset,
                with_payload=_with_payload(fields),
            )
            for r in recs:
                yield Rec(point_id_str(r.id), r.payload or {})
            if offset is None:
                return

    def facet(self, key: str, where: Where, limit: int) -> list[tuple[Scalar, int]]:
        self.ensure_ready()
        resp = self._client.facet(
            self.collection, key, facet_filter=_filter(where), limit=limit, exact=True
        )
        return [(h.value, h.count) for h in resp.hits]

    def count(self, where: Where) -> int:
        self.ensure_ready()
        return int(
            self._client.count(self.collection, count_filter=_filter(where), exact=True).count
        )

    # lifecycle
    def session(self) -> contextlib.AbstractContextManager[Any]:
        """The server serialises each call itself; nothing to hold between calls. Local
        mode holds its lock for the session, so one batch is not interleaved."""
        return self._lock if self.local else contextlib.nullcontext()

    def flush(self) -> None:
        """Writes are sent with ``wait=True``; nothing is buffered client-side."""

    def close(self) -> None:
        self._client.close()
