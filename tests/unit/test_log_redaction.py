"""Log records of memagent are redacted before they are emitted.

The CLI's ``main_options`` configures logging and attaches ``RedactingFilter`` once;
a phone number or email logged by any ``memagent.*`` logger (a child whose records
only propagate, like the worker's or the node tracer's) must reach the handler as a
keyed placeholder, never in clear.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from memagent.graph.cli import main_options
from memagent.graph.settings import get_settings
from memagent.graph.tracing import install_log_redaction
from memagent.stores.redact import RedactingFilter

PHONE = "138 0013 8000"
EMAIL = "dana.whitfield@acme-corp.com"
TOKEN = re.compile(r"\[(PHONE|EMAIL)#[0-9a-f]{8}\]")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MEMAGENT_HOME", str(tmp_path))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


@contextlib.contextmanager
def fresh_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """A root logger without handlers (so ``basicConfig`` acts, as in a real process),
    writing to a captured stderr; pytest's own handlers are put back afterwards."""
    root, ours = logging.getLogger(), logging.getLogger("memagent")
    saved = (root.handlers[:], root.level, ours.filters[:], ours.handlers[:])
    root.handlers, ours.filters = [], []
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    try:
        yield stream
    finally:
        root.handlers, ours.filters, ours.handlers = saved[0], saved[2], saved[3]
        root.setLevel(saved[1])


def test_cli_logging_redacts_phone_and_email_from_child_loggers(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fresh_logging(monkeypatch) as stream:
        main_options(verbose=True)
        logging.getLogger("memagent.graph.worker").warning(
            "job j1 failed for %s: call %s", EMAIL, PHONE
        )
        logging.getLogger("memagent").info("direct: %s", EMAIL)
    out = stream.getvalue()
    assert "job j1 failed" in out and "direct:" in out
    assert PHONE not in out and "13800138000" not in out
    assert EMAIL not in out
    assert {m.group(1) for m in TOKEN.finditer(out)} == {"PHONE", "EMAIL"}
    assert (home / "redaction.key").exists()  # the install's key, as the write path uses


def test_redaction_covers_tracebacks_and_is_installed_once(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fresh_logging(monkeypatch) as stream:
        main_options(verbose=False)
        main_options(verbose=False)  # a second call must not stack filters
        handlers = logging.getLogger().handlers
        assert handlers and all(
            sum(isinstance(f, RedactingFilter) for f in h.filters) == 1 for h in handlers
        )
        try:
            raise ValueError(f"bad contact {EMAIL}")
        except ValueError:
            logging.getLogger("memagent.nodes.recall").exception("recall failed")
    out = stream.getvalue()
    assert "ValueError: bad contact [EMAIL#" in out and EMAIL not in out


def test_same_value_gets_the_same_token_as_the_key_file(tmp_path: Path) -> None:
    handler = logging.StreamHandler(io.StringIO())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        first = install_log_redaction(tmp_path / "redaction.key")
        again = install_log_redaction(tmp_path / "redaction.key")
        assert sum(isinstance(f, RedactingFilter) for f in handler.filters) == 1
        record = logging.LogRecord("memagent.x", logging.ERROR, "f", 1, "%s", (PHONE,), None)
        other = logging.LogRecord("memagent.y", logging.ERROR, "f", 1, "+86 13800138000", (), None)
        first.filter(record)
        again.filter(other)
        assert record.getMessage() == other.getMessage()
        assert TOKEN.fullmatch(record.getMessage())
    finally:
        root.removeHandler(handler)
        for target in (logging.getLogger("memagent"), handler):
            for f in [f for f in target.filters if isinstance(f, RedactingFilter)]:
                target.removeFilter(f)
