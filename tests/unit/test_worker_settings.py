"""The worker opens its store with the settings it was given, not the environment's."""

from __future__ import annotations

from pathlib import Path

import pytest

from memagent.core.settings import Settings
from memagent.graph.jobs import JobQueue
from memagent.graph.worker import Worker
from memagent.stores.embeddings import HashEmbeddings


def test_worker_store_uses_the_settings_passed_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMAGENT_HOME", str(tmp_path / "env-home"))
    monkeypatch.setenv("MEMAGENT_EMBEDDER", "e5")  # the environment's choice: not ours
    mine = Settings(home=tmp_path / "mine", embedder="hash")
    worker = Worker.for_settings(mine, queue=JobQueue.for_settings(mine))
    assert worker._store_factory is not None
    with worker._store_factory() as store:
        assert isinstance(store.index_config["embed"], HashEmbeddings)  # type: ignore[index]
    key = (mine.home / "redaction.key").read_text().strip()
    assert worker.write_config.redaction_key == bytes.fromhex(key)  # memories: the install key
