"""memagent.stores: the Qdrant + BM25 ``BaseStore`` adapter, and nothing else.

Engines (embedded edge, client), hybrid search, fusion, tokenizers, BM25,
embedders, conditional writes, TTL sweeps and ``open_store``/``aopen_store``, all
taking explicit arguments: this layer never reads settings. It imports only
``core``. ``namespace`` and ``MemoryRecord`` (now in ``memagent.memory``) are
re-exported here because they are part of the documented public path.

Imports are lazy (PEP 562): ``import memagent.stores`` loads neither Qdrant nor
the embedding model; the e5 model itself loads on its first embed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memagent.memory.namespaces import namespace
    from memagent.memory.records import MemoryRecord
    from memagent.stores.embeddings import default_embeddings, hash_embeddings
    from memagent.stores.fusion import FusionConfig, HybridConfig
    from memagent.stores.qdrant_store import QdrantStore, ScoredItem, aopen_store, open_store

_EXPORTS = {
    "QdrantStore": "memagent.stores.qdrant_store",
    "ScoredItem": "memagent.stores.qdrant_store",
    "open_store": "memagent.stores.qdrant_store",
    "aopen_store": "memagent.stores.qdrant_store",
    "HybridConfig": "memagent.stores.fusion",
    "FusionConfig": "memagent.stores.fusion",
    "default_embeddings": "memagent.stores.embeddings",
    "hash_embeddings": "memagent.stores.embeddings",
    "namespace": "memagent.memory.namespaces",
    "MemoryRecord": "memagent.memory.records",
}
__all__ = [
    "FusionConfig",
    "HybridConfig",
    "MemoryRecord",
    "QdrantStore",
    "ScoredItem",
    "aopen_store",
    "default_embeddings",
    "hash_embeddings",
    "namespace",
    "open_store",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memagent.stores' has no attribute {name!r}")
    return getattr(import_module(module), name)
