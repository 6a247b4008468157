"""Settings passed in reach the store they configure, whatever the environment says.

``Worker.for_settings(settings)`` and the memories commands' store opener opened the
store with ``open_store(location)`` alone, so the embedder, the API key and the shared
flag came from ``MEMAGENT_*`` variables instead of the settings handed to them. Here
the environment asks for an embedder that cannot work (a dead embeddings URL) and an
exclusive store, the settings for hash embeddings and a shared store.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memagent.graph.jobs import JobQueue
from memagent.graph.service import resources
from memagent.graph.settings import Settings
from memagent.graph.worker import Worker


@pytest.fixture
def hostile_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMAGENT_HOME", str(tmp_path / "env-home"))
    monkeypatch.setenv("MEMAGENT_EMBEDDER", "openai")
    monkeypatch.setenv("MEMAGENT_EMBEDDINGS_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMAGENT_STORE_SHARED", "false")
    yield


def _settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", embedder="hash", store_shared=True)


def _check(store, settings: Settings) -> None:
    assert store.index_config["dims"] == 64  # hash embeddings, not the env's embedder
    assert store.engine._shared is True  # the settings' flag, not the env's
    assert str(store.engine._root) == settings.resolved_store_location()


def test_worker_for_settings_opens_the_store_the_settings_describe(
    hostile_env, tmp_path: Path
) -> None:
    settings = _settings(tmp_path)
    worker = Worker.for_settings(settings, queue=JobQueue(settings.jobs_path))
    try:
        _check(worker._get_store(), settings)
    finally:
        worker.close()


async def test_memories_commands_open_the_store_the_settings_describe(
    hostile_env, tmp_path: Path
) -> None:
    """The memories commands run where the store is opened by ``Resources`` (the home's
    service, or in-process with ``MEMAGENT_SERVICE=off``)."""
    settings = _settings(tmp_path)
    async with resources.STORE_OPENER(settings) as store:
        _check(store, settings)


def test_a_server_api_key_comes_from_the_settings_only(
    hostile_env, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Settings without a key open a server without one, even if the env has a key."""
    from memagent.stores import qdrant_store
    from memagent.stores.store_factory import open_store

    monkeypatch.setenv("MEMAGENT_QDRANT_API_KEY", "from-env")
    seen: list[str | None] = []

    def fake_engine(location: str, dims: int | None, **kwargs) -> None:
        seen.append(kwargs.get("api_key"))
        raise ConnectionError("no server in unit tests")

    monkeypatch.setattr(qdrant_store, "open_engine", fake_engine)
    for key in (None, "from-settings"):
        settings = Settings(home=tmp_path, embedder="hash", qdrant_api_key=key)
        with pytest.raises(ConnectionError), open_store("http://127.0.0.1:9", settings=settings):
            pass
    assert seen == [None, "from-settings"]


def test_the_write_path_redacts_with_the_key_under_the_settings_home(
    hostile_env, tmp_path: Path
) -> None:
    from memagent.memory.write_path import Candidate, WriteConfig, build_record, utcnow

    settings = _settings(tmp_path)
    cand = Candidate(content="Call Dana on 13812345678 about the renewal")
    rec, reason, found = build_record(cand, now=utcnow(), cfg=WriteConfig.for_settings(settings))
    assert rec is not None and found and "13812345678" not in rec.content
    assert (settings.home / "redaction.key").is_file()
    assert not (tmp_path / "env-home" / "redaction.key").exists()
