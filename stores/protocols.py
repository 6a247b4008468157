"""What a memory store can do beyond LangGraph's ``BaseStore``, as one Protocol.

``QdrantStore`` implements it; any other ``BaseStore`` (LangGraph's ``InMemoryStore``,
a Postgres store) does not, and the memory layer falls back to plain ``BaseStore``
calls for it. Callers check ``isinstance(store, MemoryStoreExtensions)`` once, where
they decide which path to take, instead of probing single methods:

- compare-and-set (``get_rev``/``put_if``): the write path's only guard across
  processes (``memagent.memory.write_cas``);
- ``touch``: recall's access stats, a payload-only update that re-embeds nothing;
- ``search_scored``: search with the fused relevance and the dense and keyword side
  scores, in a mode chosen per call (recall, dedupe, evals);
- ``keyword_idf``: BM25 idf of a text's terms, for recall's feedback expansion.

A store may subclass the Protocol explicitly (``QdrantStore`` does, through
``store_extensions.StoreExtensions``): it then inherits the async twins of ``get_rev``,
``put_if`` and ``touch``, which run the sync method in a thread, and a type checker
checks its signatures against these. A store that only matches the Protocol structurally writes
all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from langgraph.store.base import NOT_PROVIDED, Item, NotProvided

if TYPE_CHECKING:
    from memagent.stores.fusion import SearchMode
    from memagent.stores.hybrid_search import ScoredItem


@runtime_checkable
class MemoryStoreExtensions(Protocol):
    """A store with compare-and-set, ``touch``, scored search and keyword idf."""

    def get_rev(self, namespace: tuple[str, ...], key: str) -> tuple[Item, str] | None:
        """The item and its write token, read together (None if absent or expired)."""
        ...

    async def aget_rev(self, namespace: tuple[str, ...], key: str) -> tuple[Item, str] | None:
        return await asyncio.to_thread(self.get_rev, namespace, key)

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
        """Put only if the write token is still ``expect`` (None: only if absent); the
        new token, or None when another write came first and nothing was written."""
        ...

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

    def touch(
        self, namespace: tuple[str, ...], keys: Iterable[str], *, at: datetime | None = None
    ) -> int:
        """Record reads (``last_accessed_at``, ``access_count``); how many were touched."""
        ...

    async def atouch(
        self, namespace: tuple[str, ...], keys: Iterable[str], *, at: datetime | None = None
    ) -> int:
        batch = keys if isinstance(keys, str) else list(keys)  # ``touch`` rejects one string
        return await asyncio.to_thread(self.touch, namespace, batch, at=at)

    def search_scored(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str,
        mode: SearchMode | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[ScoredItem]:
        """Search with relevance and side scores; ``mode`` defaults to the store's."""
        ...

    async def asearch_scored(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str,
        mode: SearchMode | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[ScoredItem]: ...

    def keyword_idf(self, namespace_prefix: tuple[str, ...], text: str) -> dict[str, float]:
        """Keyword terms of ``text`` with their BM25 idf under ``namespace_prefix``."""
        ...


def store_session(store: object) -> contextlib.AbstractContextManager[None]:
    """Several calls on ``store`` from this thread as one unit, where the store has a
    ``session()`` (``QdrantStore``: a shared embedded store then loads its shard and takes
    its directory lock once for them, not once per call); a no-op for any other store.
    Take it inside any cross-process scope lock, never around a model call."""
    session = getattr(store, "session", None)
    return session() if callable(session) else contextlib.nullcontext()
