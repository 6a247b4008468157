"""Log records of memagent are redacted before they are emitted.

A phone number or email logged by any ``memagent.*`` logger (a child whose records only
propagate, like the worker's or the node tracer's) must reach the handler as a keyed
placeholder, never in clear: under the CLI (which configures logging and pins the key) and
for a library user or ``langgraph dev`` with a plain ``basicConfig`` handler.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memagent.graph.cli import main_options
from memagent.graph.tracing import install_log_redaction
from memagent.memory.log_redaction import install_record_redaction, record_redaction_installed
from memagent.memory.redact import RedactingFilter, redact

PHONE = "138 0013 8000"
EMAIL = "dana.whitfield@acme-corp.com"
TOKEN = re.compile(r"\[(PHONE|EMAIL)#[0-9a-f]{8}\]")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MEMAGENT_HOME", str(tmp_path))
    yield tmp_path


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
        # install_log_redaction also filtered pytest's own root handlers: take it off those too.
        targets = (logging.getLogger("memagent"), handler, *root.handlers)
        root.removeHandler(handler)
        for target in targets:
            for f in [f for f in target.filters if isinstance(f, RedactingFilter)]:
                target.removeFilter(f)


# --- library users: no CLI, a plain basicConfig handler -----------------------------------

LIBRARY_SCRIPT = """
import logging, sys
logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(name)s: %(message)s")
{setup}
log = logging.getLogger("{logger}")
try:
    raise ConnectionError("store unreachable for {email}")
except ConnectionError as exc:
    log.warning("recall degraded: %s", exc)
    log.exception("extraction failed for %s", "{phone}")
logging.getLogger("memagent").info("direct %s", "{email}")
logging.getLogger("thirdparty").info("not ours %s", "{email}")
"""


# Importing reads no environment: the install's key is pinned where the app is assembled
# (langgraph.json's graph on first access), or by a store-only user who has no such root.
STUDIO_SETUP = "from memagent.graph.builder import graph; graph()  # as langgraph dev does"
STORE_ONLY_SETUP = """
import os, pathlib
import memagent.memory.write_path
from memagent.memory.log_redaction import install_record_redaction
from memagent.memory.redact import install_key
install_record_redaction(install_key(pathlib.Path(os.environ["MEMAGENT_HOME"])))
"""


@pytest.mark.parametrize(
    ("setup", "logger"),
    [
        (STUDIO_SETUP, "memagent.nodes.recall"),  # langgraph.json's graph path
        (STORE_ONLY_SETUP, "memagent.memory.write_path"),  # a store-only user
    ],
)
def test_library_user_with_basic_config_sees_placeholders(
    tmp_path: Path, setup: str, logger: str
) -> None:
    script = LIBRARY_SCRIPT.format(setup=setup, logger=logger, email=EMAIL, phone=PHONE)
    env = {**os.environ, "MEMAGENT_HOME": str(tmp_path), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    ours = [line for line in done.stdout.splitlines() if "thirdparty" not in line]
    out = "\n".join(ours)
    assert "recall degraded: store unreachable for [EMAIL#" in out
    assert "ConnectionError: store unreachable for [EMAIL#" in out  # the traceback too
    assert "direct [EMAIL#" in out
    assert EMAIL not in out and PHONE not in out and "13800138000" not in out
    # The install's key, so a value has the same token in logs as in stored memories.
    key = (tmp_path / "redaction.key").read_text().strip()
    assert redact(EMAIL, key=bytes.fromhex(key)).text in out
    # Other libraries' records are theirs to configure: untouched.
    assert f"thirdparty: not ours {EMAIL}" in done.stdout


def test_child_logger_records_are_redacted_at_creation_without_the_cli(tmp_path: Path) -> None:
    from memagent.graph.tracing import pin_redaction_key

    pin_redaction_key(tmp_path)  # what the agent, Studio graph and Studio store do
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        assert record_redaction_installed()
        logging.getLogger("memagent.graph.worker").error("job failed for %s", EMAIL)
        logging.getLogger("memagent.deep.child.logger").error("call %s", PHONE)
        logging.getLogger("memagentx").error("not a memagent logger: %s", EMAIL)
    finally:
        root.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("job failed for [EMAIL#") and EMAIL not in lines[0]
    assert lines[1].startswith("call [PHONE#")
    assert lines[2] == f"not a memagent logger: {EMAIL}"


def test_record_redaction_is_idempotent_and_never_raises() -> None:
    factory = logging.getLogRecordFactory()
    install_record_redaction()
    install_record_redaction()
    assert logging.getLogRecordFactory() is factory
    record = factory("memagent.x", logging.ERROR, "f", 1, "bad %d format", (EMAIL,), None)
    assert EMAIL not in record.getMessage() and "[EMAIL#" in record.getMessage()


def test_records_made_without_a_name_pass_through() -> None:
    # structlog's ProcessorFormatter (langgraph dev's logging) calls the factory with name None.
    install_record_redaction()
    record = logging.makeLogRecord({"msg": f"startup failed for {EMAIL}"})
    assert record.getMessage() == f"startup failed for {EMAIL}"  # not ours to redact


IMPORT_ALL = """
import logging, pathlib, pkgutil, importlib, sys, threading
import memagent
before = threading.active_count()
names = []
for pkg in ("core", "llm", "stores", "memory", "prompts", "nodes", "graph", "evals"):
    mod = importlib.import_module("memagent." + pkg)
    names += [f"memagent.{pkg}.{m.name}" for m in pkgutil.iter_modules(mod.__path__)]
for name in names:
    importlib.import_module(name)
assert logging.getLogRecordFactory() is logging.LogRecord, "a record factory was installed"
assert threading.active_count() == before, "a thread was started"
home = pathlib.Path(sys.argv[1])
assert not home.exists(), sorted(p.name for p in home.iterdir())
print(len(names))
"""


def test_importing_every_module_installs_nothing_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home-that-must-not-appear"
    env = {**os.environ, "MEMAGENT_HOME": str(home), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, str(home)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) > 60  # every module of every layer was imported
