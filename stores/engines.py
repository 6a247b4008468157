"""The engine seam: what the store needs from Qdrant, in engine-neutral types.

One store class runs on two engines: ``qdrant-edge-py`` (Qdrant's engine
in-process, for ``":memory:"`` and directories) and ``qdrant-client`` (a server or
cluster by URL, or the client's own local mode). Query building in
``store_ops`` produces the neutral ``Where`` filters below, so it stays free of
I/O and of either library's types; each adapter translates them.

Every point has one named multivector ``"dense"`` compared with MaxSim: an item
whose indexed fields yield several texts keeps one vector per text and scores as
its best one, the max-pooling LangGraph's stores do. The vector distance is fixed
when a collection is created (``Distance``: cosine by default; LangGraph's
``distance_type`` names); engines return Qdrant's raw score (the distance for
``l2``, smallest first), and ``dense_score`` turns it into LangGraph's score.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

VECTOR = "dense"
Distance = Literal["cosine", "inner_product", "l2"]
DISTANCES: tuple[Distance, ...] = ("cosine", "inner_product", "l2")
IndexKind = Literal["keyword", "integer", "float"]
Scalar = str | int | bool
WriteMode = Literal["upsert", "insert", "update"]
"""``upsert_if``: write every point, only absent ones, or only existing ones."""


@dataclass(frozen=True)
class Match:
    """``key == value`` (exact keyword / integer / bool match)."""

    key: str
    value: Scalar


@dataclass(frozen=True)
class Range:
    """Numeric range on ``key``; bounds left ``None`` are open."""

    key: str
    gt: float | None = None
    gte: float | None = None
    lt: float | None = None
    lte: float | None = None


@dataclass(frozen=True)
class HasId:
    """The point id is one of ``ids``."""

    ids: tuple[str, ...]


@dataclass(frozen=True)
class Missing:
    """The payload has no value at ``key`` (absent, null or empty)."""

    key: str


@dataclass(frozen=True)
class HasVector:
    """The point has vectors (it was indexed for search)."""


INDEXED = HasVector()


@dataclass(frozen=True)
class Where:
    """All of ``must``, none of ``must_not`` and, when ``should`` is not empty, at
    least one of ``should`` (conditions may nest)."""

    must: tuple[Cond, ...] = ()
    must_not: tuple[Cond, ...] = ()
    should: tuple[Cond, ...] = ()

    def and_(self, *conds: Cond) -> Where:
        return Where(self.must + tuple(conds), self.must_not, self.should)

    def is_empty(self) -> bool:
        return not (self.must or self.must_not or self.should)


Cond = Match | Range | HasId | HasVector | Missing | Where


@dataclass
class PointData:
    """A point to upsert: id, one vector per indexed text (or none), payload."""

    id: str
    vectors: list[list[float]] | None
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class Hit:
    """A search hit: id, score and the requested payload fields."""

    id: str
    score: float
    payload: dict[str, Any]


@dataclass
class Rec:
    """A stored point read back: id and the requested payload fields."""

    id: str
    payload: dict[str, Any]


class Engine(Protocol):
    """What ``QdrantStore`` needs from a Qdrant engine. ``fields=None`` = whole payload."""

    name: str
    dims: int
    distance: Distance

    def upsert(self, points: list[PointData]) -> None: ...

    def upsert_if(
        self, points: list[PointData], *, where: Where | None = None, mode: WriteMode = "upsert"
    ) -> None:
        """Conditional upsert, decided by the engine per point (atomic, cross-process).

        ``mode="insert"`` writes only absent points, ``"update"`` only existing ones;
        ``where`` restricts which existing points are replaced. A point that fails
        the condition is skipped silently: read it back to know (the store does).
        """
        ...

    def delete(self, ids: list[str]) -> None: ...

    def set_payload(
        self, ids: list[str], payload: dict[str, Any], *, where: Where | None = None
    ) -> None:
        """Merge ``payload`` into the points ``ids`` (with ``where``: only those matching it)."""
        ...

    def retrieve(self, ids: list[str], fields: list[str] | None = None) -> list[Rec]: ...

    def search(
        self, vector: list[float], where: Where, limit: int, fields: list[str] | None = None
    ) -> list[Hit]: ...

    def page(
        self,
        where: Where,
        limit: int,
        offset: int,
        order_by: str,
        fields: list[str] | None = None,
    ) -> list[Rec]:
        """Points matching ``where``, newest ``order_by`` first, ``offset``/``limit`` applied."""
        ...

    def scan(self, where: Where, fields: list[str] | None = None) -> Iterator[Rec]:
        """Every point matching ``where`` (any order)."""
        ...

    def facet(self, key: str, where: Where, limit: int) -> list[tuple[Scalar, int]]: ...

    def count(self, where: Where) -> int: ...

    def create_index(self, key: str, kind: IndexKind) -> None: ...

    def indexed_fields(self) -> set[str]: ...

    def session(self) -> AbstractContextManager[None]:
        """Several calls as one exclusive unit: a shared embedded store (``EdgeEngine``
        with ``shared=True``) opens its shard once for them instead of once per call.
        A no-op elsewhere; never a transaction."""
        ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


def dense_score(raw: float, distance: Distance) -> float:
    """LangGraph's score for an engine's raw score: the similarity for ``cosine`` and
    ``inner_product``, the negated distance for ``l2`` (higher is closer everywhere)."""
    return -raw if distance == "l2" else raw


def cosine_like(score: float, distance: Distance) -> float:
    """A LangGraph score mapped to the cosine scale that fusion normalises: exact for
    unit-length embeddings (``l2``: ``cos = 1 - d**2 / 2``), a monotone proxy otherwise."""
    return 1.0 - score * score / 2.0 if distance == "l2" else score


def point_id_str(pid: Any) -> str:
    """Engines return ids as ``UUID`` or ``str``; the store uses ``str``."""
    return str(pid)
