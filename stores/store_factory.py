"""Opening stores: the engine for a location, and the store as the agent uses it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any, Literal

from langgraph.store.base import IndexConfig, TTLConfig

from memagent.stores.engine_retry import RetryPolicy
from memagent.stores.engines import Distance, Engine
from memagent.stores.fusion import HybridConfig

if TYPE_CHECKING:
    from memagent.core.settings import Settings
    from memagent.stores.qdrant_store import QdrantStore

EngineName = Literal["auto", "edge", "client"]


def open_engine(
    location: str,
    dims: int | None,
    *,
    engine: EngineName = "auto",
    api_key: str | None = None,
    collection: str = "memagent",
    search_threads: int | None = 1,
    shared: bool = False,
    distance: Distance = "cosine",
    read_only: bool = False,
    timeout_s: float = 10.0,
    retry: RetryPolicy | None = None,
) -> Engine:
    """The engine for ``location``: edge for ``:memory:``/directories, client for URLs.

    ``shared`` opens a directory so other processes on this host can open it too
    (see ``EdgeEngine``); a server is shared anyway, so it is ignored for URLs.
    ``distance`` is the vector distance of a new collection (an existing one must match).
    ``read_only`` promises the caller will not write: a directory it cannot write (a
    read-only home) is then read from a private copy (see ``EdgeEngine``).
    ``timeout_s`` and ``retry`` bound each call to a server (``engine_retry``).
    """
    if not isinstance(location, str) or not location:
        raise ValueError("location must be ':memory:', a directory or an http(s):// URL")
    is_url = location.startswith(("http://", "https://"))
    if engine == "edge" and is_url:
        raise ValueError("the edge engine runs in-process; a URL needs engine='client'")
    if engine == "client" or is_url:
        from memagent.stores.engine_client import ClientEngine

        return ClientEngine(
            location,
            dims,
            collection=collection,
            api_key=api_key,
            distance=distance,
            timeout=timeout_s,
            retry=retry,
        )
    if engine not in ("auto", "edge"):
        raise ValueError(f"unknown engine {engine!r}; expected 'auto', 'edge' or 'client'")
    from memagent.stores.engine_edge import EdgeEngine

    return EdgeEngine(
        location,
        dims,
        search_threads=search_threads,
        shared=shared,
        distance=distance,
        read_only=read_only,
    )


@contextmanager
def open_store(
    location: str | None = None,
    *,
    hybrid: HybridConfig | None = None,
    ttl: TTLConfig | None = None,
    settings: Settings,
    read_only: bool = False,
) -> Iterator[QdrantStore]:
    """The store exactly as the agent uses it: settings' embedder, hybrid, ``content`` indexed.

    ``settings`` is the caller's (the composition root reads them once); nothing here reads
    the environment. ``read_only`` for commands that only read: they then work on a
    read-only home.
    """
    from memagent.stores.embeddings import embeddings_from_settings

    loc = location or settings.resolved_store_location()
    emb, dims = embeddings_from_settings(settings)
    index: IndexConfig = {"dims": dims, "embed": emb, "fields": ["content"]}
    key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    from memagent.stores.qdrant_store import QdrantStore

    with QdrantStore.from_location(
        loc,
        index=index,
        ttl=ttl,
        hybrid=hybrid,
        api_key=key,
        shared=settings.store_shared,
        read_only=read_only,
        timeout_s=settings.qdrant_timeout_s,
        retry=RetryPolicy(attempts=settings.qdrant_retries),
    ) as store:
        yield store


@asynccontextmanager
async def aopen_store(location: str | None = None, **kwargs: Any) -> AsyncIterator[QdrantStore]:
    """``open_store`` for async code (opening touches the disk, so it runs in a thread)."""
    cm = open_store(location, **kwargs)
    store = await asyncio.to_thread(cm.__enter__)
    try:
        yield store
    finally:
        await asyncio.to_thread(cm.__exit__, None, None, None)
