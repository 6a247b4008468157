"""One store contract, registered once per backend.

Backends: LangGraph's ``InMemoryStore`` (the reference), ``QdrantStore`` on
``:memory:`` and on a directory (qdrant-edge), on qdrant-client's local mode (the
server code path, since no server runs here; slow, so data stays small), and on
a real server when ``QDRANT_URL`` is set. Every test also runs through the sync
and the async API (``api`` fixture), so parity is parametrized, not copied.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from store_contract_helpers import DIMS, CountingEmbeddings

from memagent.stores.fusion import HybridConfig
from memagent.stores.qdrant_store import QdrantStore

BACKENDS = ["reference", "edge-memory", "edge-dir", "client-local", "server"]
QDRANT_BACKENDS = [b for b in BACKENDS if b != "reference"]


StoreFactory = Callable[..., AbstractContextManager[BaseStore]]


def _factory(backend: str, tmp_path: Path) -> StoreFactory:
    # the directory backends run on tmpfs when there is one: the engine fsyncs every
    # update and the suite is about semantics, not disks (bench/ measures the disk)
    if backend == "server" and not os.environ.get("QDRANT_URL"):
        pytest.skip("QDRANT_URL not set")
    collection = f"conformance_{uuid.uuid4().hex[:8]}"
    store_dir = tmp_path / "store"

    @contextmanager
    def make(
        index: dict[str, Any] | None = None,
        ttl: dict[str, Any] | None = None,
        hybrid: HybridConfig | None = None,
    ) -> Iterator[BaseStore]:
        if backend == "reference":
            yield InMemoryStore(index=index)  # type: ignore[arg-type]
            return
        location = {
            "edge-memory": ":memory:",
            "edge-dir": str(store_dir),
            "client-local": str(store_dir) + "-client",
            "server": os.environ.get("QDRANT_URL", ""),
        }[backend]
        engine = "client" if backend in ("client-local", "server") else "edge"
        with QdrantStore.from_location(
            location,
            index=index,  # type: ignore[arg-type]
            ttl=ttl,  # type: ignore[arg-type]
            hybrid=hybrid,
            engine=engine,  # type: ignore[arg-type]
            collection=collection,
            api_key=os.environ.get("QDRANT_API_KEY") if backend == "server" else None,
        ) as store:
            yield store

    make.collection = collection  # type: ignore[attr-defined]
    return make


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store_root(tmp_path: Path) -> Iterator[Path]:
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        root = Path(tempfile.mkdtemp(prefix="memagent-conf-", dir="/dev/shm"))
        yield root
        shutil.rmtree(root, ignore_errors=True)
    else:
        yield tmp_path


@pytest.fixture
def make_store(backend: str, store_root: Path) -> Iterator[StoreFactory]:
    """``make_store(index=..., ttl=..., hybrid=...)`` -> context manager yielding a fresh
    store (the reference ignores ``hybrid``).

    On persistent backends a second call reopens the same data. A server
    collection is dropped when the test ends.
    """
    factory = _factory(backend, store_root)
    yield factory
    if backend == "server":
        from qdrant_client import QdrantClient

        client = QdrantClient(
            url=os.environ["QDRANT_URL"], api_key=os.environ.get("QDRANT_API_KEY")
        )
        client.delete_collection(factory.collection)  # type: ignore[attr-defined]
        client.close()


@pytest.fixture
def embeddings() -> CountingEmbeddings:
    return CountingEmbeddings()


@pytest.fixture
def index(embeddings: CountingEmbeddings) -> dict[str, Any]:
    return {"dims": DIMS, "embed": embeddings, "fields": ["text"]}


class Api:
    """The store through its sync methods or its async twins (``aput``, ``asearch``...)."""

    def __init__(self, store: BaseStore, mode: str) -> None:
        self.store, self.mode = store, mode

    def __getattr__(self, name: str) -> Any:
        if self.mode == "sync":
            return getattr(self.store, name)
        afn = getattr(self.store, "a" + name)
        return lambda *args, **kwargs: asyncio.run(afn(*args, **kwargs))


@pytest.fixture(params=["sync", "async"])
def api_mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def api(api_mode: str) -> Callable[[BaseStore], Api]:
    return lambda store: Api(store, api_mode)
