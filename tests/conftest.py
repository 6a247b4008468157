"""Suite-wide fixtures and a safety net.

No test touches the user's real data directory: tests build their own
``Settings(home=tmp_path)``, and this makes sure a test that forgets still writes
under a throwaway directory. ``tests/support`` holds helpers shared by the unit,
integration and Studio tests.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

if "MEMAGENT_HOME" not in os.environ:
    _home = tempfile.mkdtemp(prefix="memagent-test-home-")
    os.environ["MEMAGENT_HOME"] = _home
    atexit.register(shutil.rmtree, _home, ignore_errors=True)
os.environ.setdefault("OMP_NUM_THREADS", "1")
# In-process CLI unless a test asks for the per-home service (the multi-terminal tests
# do, with real processes): a test that forgets leaves no service process behind.
os.environ.setdefault("MEMAGENT_SERVICE", "off")
# No model server started because a test built Studio's graph or opened a chat; the tests
# of the pre-start itself set it on (the process-level tests strip MEMAGENT_* anyway).
os.environ.setdefault("MEMAGENT_LLM_PRESTART", "off")
sys.path.insert(0, str(Path(__file__).parent / "support"))

from fake_openai import FakeOpenAI, serve_fake_openai  # noqa: E402

from memagent.graph.settings import get_settings  # noqa: E402


@pytest.fixture(autouse=True)
def settings_per_test() -> Iterator[None]:
    """Each test is a fresh process for the composition root: the settings it reads once
    (``memagent.graph.settings.get_settings``) are read again after a test changes the
    environment. The one place the tests touch that cache; the layers below never read it."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible chat server on 127.0.0.1 (tests/support/fake_openai.py)."""
    with serve_fake_openai() as fake:
        yield fake


@pytest.fixture
def cli_env(
    tmp_path: Path, fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Settings for running the CLI in-process (``MEMAGENT_SERVICE=off``: no service
    process): a temp home, the fake LLM, hash embeddings. The default path, through the
    per-home service, is tested with real processes in tests/integration."""
    monkeypatch.setenv("MEMAGENT_SERVICE", "off")
    monkeypatch.setenv("MEMAGENT_HOME", str(tmp_path))
    monkeypatch.setenv("MEMAGENT_BASE_URL", fake_llm.url)
    monkeypatch.setenv("MEMAGENT_EMBEDDER", "hash")
    monkeypatch.setenv("MEMAGENT_LLM_TIMEOUT", "10")
    yield tmp_path


@pytest.fixture(autouse=True)
def _model_replies_to_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process tests read the (scripted, fake or real) model's reply to every message, as
    they did before the note acknowledgement became the default: they pin
    ``MEMAGENT_NOTE_REPLY=model``. The default (``rules``: a plain note is acknowledged
    without a model call) is tested where it is set on purpose (tests/unit/test_note_ack.py)
    and, unpinned, by the process-level tests, which strip ``MEMAGENT_*`` from the
    environment of the processes they start (services, Studio, scale-out, crash recovery)."""
    monkeypatch.setenv("MEMAGENT_NOTE_REPLY", "model")


@pytest.fixture(autouse=True)
def _model_answers_broad_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process tests read the model's reply to broad questions ("What do you know about
    Acme?") as they did before the recalled-facts brief became the default: they pin
    ``MEMAGENT_BRIEF_REPLY=model``. The default (``rules``) is tested where it is set on
    purpose (tests/unit/test_brief_reply.py) and, unpinned, by the process-level tests,
    which strip ``MEMAGENT_*`` from the environment of the processes they start."""
    monkeypatch.setenv("MEMAGENT_BRIEF_REPLY", "model")


@pytest.fixture(autouse=True)
def _root_handler_filters() -> Iterator[None]:
    """The CLI puts a redacting filter on the root's handlers (pytest's own capture
    handlers among them, which outlive a test): take it off again, so a later test sees
    the logging it set up and nothing an earlier command installed."""
    import logging

    before = {h: list(h.filters) for h in logging.getLogger().handlers}
    yield
    for handler in logging.getLogger().handlers:
        for f in [f for f in handler.filters if f not in before.get(handler, [])]:
            handler.removeFilter(f)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster for the session (``tests/support/pg_cluster.py``).

    Without PostgreSQL on the machine the PostgreSQL cases skip, saying why; in CI
    (``CI=true``) they fail instead, so CI never silently drops them."""
    from pg_cluster import PgUnavailable, throwaway_cluster

    cm = throwaway_cluster()
    try:
        url = cm.__enter__()
    except PgUnavailable as exc:
        if in_ci():
            pytest.fail(f"CI=true and PostgreSQL could not be started: {exc}", pytrace=False)
        pytest.skip(f"PostgreSQL not available ({exc}); CI=true turns this into a failure")
    try:
        yield url
    finally:
        cm.__exit__(None, None, None)


@pytest.fixture
def pg_url(pg_admin_url: str) -> str:
    """A fresh, empty database on the session's cluster."""
    from pg_cluster import create_database

    return create_database(pg_admin_url)
