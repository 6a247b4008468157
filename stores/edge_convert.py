"""The ``Engine`` protocol's filters, write modes and shard config in ``qdrant_edge`` types.

Pure translation, no I/O: ``EdgeEngine`` (``engine_edge``) builds every request with
these.
"""

from __future__ import annotations

from typing import Any

import qdrant_edge as qe

from memagent.stores.engines import (
    VECTOR,
    Cond,
    Distance,
    HasId,
    HasVector,
    Match,
    Missing,
    Range,
    Where,
)


def edge_cond(c: Cond) -> Any:
    if isinstance(c, Match):
        return qe.FieldCondition(c.key, match=qe.MatchValue(c.value))
    if isinstance(c, Range):
        return qe.FieldCondition(c.key, range=qe.RangeFloat(gt=c.gt, gte=c.gte, lt=c.lt, lte=c.lte))
    if isinstance(c, HasId):
        return qe.HasIdCondition(set(c.ids))
    if isinstance(c, HasVector):
        return qe.HasVectorCondition(VECTOR)
    if isinstance(c, Missing):
        return qe.IsEmptyCondition(c.key)
    return edge_filter(c)


def edge_filter(w: Where) -> Any:
    if w.is_empty():
        return None
    return qe.Filter(
        must=[edge_cond(c) for c in w.must] or None,
        should=[edge_cond(c) for c in w.should] or None,
        must_not=[edge_cond(c) for c in w.must_not] or None,
    )


def with_payload(fields: list[str] | None) -> Any:
    """``None`` = whole payload, ``[]`` = none (ids and scores only)."""
    if fields is None:
        return True
    return list(fields) if fields else False


MODES = {
    "upsert": qe.UpdateMode.Upsert,
    "insert": qe.UpdateMode.InsertOnly,
    "update": qe.UpdateMode.UpdateOnly,
}
_DISTANCES = {
    "cosine": qe.Distance.Cosine,
    "inner_product": qe.Distance.Dot,
    "l2": qe.Distance.Euclid,
}
KINDS = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "integer": qe.PayloadSchemaType.Integer,
    "float": qe.PayloadSchemaType.Float,
}


def edge_config(
    dims: int, distance: Distance, search_threads: int | None, payload_in_ram: bool
) -> Any:
    """The shard's config: one multivector (MaxSim) of ``dims`` by ``distance``."""
    vectors = {
        VECTOR: qe.EdgeVectorParams(
            size=dims,
            distance=_DISTANCES[distance],
            multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
        )
    }
    memory = qe.Memory.Cached if payload_in_ram else qe.Memory.Cold
    return qe.EdgeConfig(vectors=vectors, max_search_threads=search_threads, payload_memory=memory)
