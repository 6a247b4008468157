"""The import paths that README, langgraph.json and the notebooks document keep working."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_store_package_exports() -> None:
    import memagent.stores as stores
    from memagent.memory.namespaces import namespace
    from memagent.memory.records import MemoryRecord
    from memagent.stores.qdrant_store import QdrantStore

    assert stores.QdrantStore is QdrantStore
    assert stores.namespace is namespace and stores.MemoryRecord is MemoryRecord
    assert callable(stores.open_store) and callable(stores.aopen_store)


def test_langgraph_json_paths_resolve() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    paths = [*config["graphs"].values(), config["store"]["path"], config["checkpointer"]["path"]]
    for path in paths:
        module, _, name = path.partition(":") if ":" in path else path.rpartition(".")
        # langgraph dev reads the module's dict: the name must be a plain module attribute.
        assert name in vars(importlib.import_module(module)), path
