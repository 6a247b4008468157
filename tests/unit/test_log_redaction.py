"""Log records of memagent are redacted before they are emitted.

A phone number or email logged by any ``memagent.*`` logger (a child whose records only
propagate, like the worker's or the node tracer's) must reach the handler as a keyed
placeholder, never in clear: under the CLI (which configures logging and pins the key), for
a library user with a plain ``basicConfig`` handler, and under ``langgraph dev``'s structlog
formatter. Importing memagent changes no global logging state (it once replaced the
process-wide record factory, which crashed ``logging.makeLogRecord``).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import logging
import os
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memagent.core.log_redaction import REDACTION, memagent_logger
from memagent.core.redact import RedactingFilter, redact
from memagent.graph.cli import main_options
from memagent.graph.tracing import install_log_redaction

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


# Importing reads no settings: the install's key is pinned where the app is assembled
# (langgraph.json's graph factory), or by a store-only user who has no such root.
STUDIO_SETUP = "from memagent.graph.builder import graph; graph()  # as langgraph dev does"
STORE_ONLY_SETUP = """
import os, pathlib
import memagent.memory.write_path
from memagent.core.log_redaction import use_key_file
from memagent.core.redact import REDACTION_KEY_FILE
use_key_file(pathlib.Path(os.environ["MEMAGENT_HOME"]) / REDACTION_KEY_FILE)
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


def test_memagent_loggers_redact_without_the_cli() -> None:
    import memagent.graph.worker  # noqa: F401  (its logger, as the worker thread logs)

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        logging.getLogger("memagent.graph.worker").error("job failed for %s", EMAIL)
        logging.getLogger("memagent.trace").error("call %s", PHONE)
        logging.getLogger("memagentx").error("not a memagent logger: %s", EMAIL)
    finally:
        root.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("job failed for [EMAIL#") and EMAIL not in lines[0]
    assert lines[1].startswith("call [PHONE#")
    assert lines[2] == f"not a memagent logger: {EMAIL}"


def test_memagent_logger_is_idempotent_and_the_filter_never_raises() -> None:
    logger = memagent_logger("memagent.test.idempotent")
    assert memagent_logger("memagent.test.idempotent") is logger
    assert logger.filters.count(REDACTION) == 1
    with pytest.raises(ValueError, match="not a memagent logger"):
        memagent_logger("requests")
    record = logging.LogRecord("memagent.x", logging.ERROR, "f", 1, "bad %d format", (EMAIL,), None)
    assert REDACTION.filter(record) is True
    assert EMAIL not in record.getMessage() and "[EMAIL#" in record.getMessage()


def _package_modules() -> list[str]:
    names = []
    for package in ("core", "llm", "stores", "memory", "prompts", "nodes", "graph", "evals"):
        root = Path(__file__).resolve().parents[2] / package
        names += [f"memagent.{package}.{m.name}" for m in pkgutil.iter_modules([str(root)])]
    return names


def test_every_logger_of_every_memagent_module_carries_the_filter() -> None:
    for name in _package_modules():
        importlib.import_module(name)
    ours = {
        name: logger
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
        and (name == "memagent" or name.startswith("memagent."))
        and not name.startswith("memagent.test.")
    }
    assert "memagent.graph.worker" in ours and "memagent.trace" in ours
    missing = sorted(name for name, logger in ours.items() if REDACTION not in logger.filters)
    assert not missing, f"loggers without redaction: {missing}"


def test_memagent_modules_get_their_loggers_through_memagent_logger() -> None:
    """A module calling ``logging.getLogger("memagent…")`` itself would log in clear."""
    offenders = []
    root = Path(__file__).resolve().parents[2]
    for package in ("core", "llm", "stores", "memory", "prompts", "nodes", "graph", "evals"):
        for path in (root / package).rglob("*.py"):
            if path.name == "log_redaction.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "getLogger"
                    and node.args  # the root logger (no name) is the CLI's to configure
                ):
                    offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not offenders, f"use memagent_logger(__name__) in {offenders}"


# --- global logging state -------------------------------------------------------------------

IMPORT_SCRIPT = """
import logging
root = logging.getLogger()
def snapshot():
    return (logging.getLogRecordFactory(), list(root.handlers), list(root.filters), root.level,
            logging.root.manager.disable, logging.lastResort)
before = snapshot()
import memagent.stores, memagent.memory.write_path, memagent.graph.builder, memagent.graph.agent
import memagent.graph.cli, memagent.graph.worker
assert snapshot() == before, "importing memagent changed global logging state"
ours = [l for n, l in logging.root.manager.loggerDict.items()
        if n.startswith("memagent") and isinstance(l, logging.Logger)]
assert ours and not any(l.handlers for l in ours), "memagent installed a handler"
assert all(l.level == logging.NOTSET and l.propagate for l in ours)
# structlog's ProcessorFormatter (langgraph dev) rebuilds every record this way.
assert logging.makeLogRecord({}).name is None
print("ok")
"""


def test_importing_memagent_changes_no_global_logging_state(tmp_path: Path) -> None:
    env = {**os.environ, "MEMAGENT_HOME": str(tmp_path), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_SCRIPT], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
    assert not list(tmp_path.iterdir()), "importing memagent wrote files"


STRUCTLOG_SCRIPT = """
import logging, sys
import structlog
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(structlog.stdlib.ProcessorFormatter(
    processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.KeyValueRenderer(key_order=["event"])],
    foreign_pre_chain=[structlog.stdlib.add_logger_name],
))
logging.basicConfig(handlers=[handler], level=logging.INFO)
structlog.configure(
    processors=[structlog.stdlib.add_logger_name,
                structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
    logger_factory=structlog.stdlib.LoggerFactory(),
)
import memagent.graph.builder
structlog.get_logger("langgraph_api.worker").info("Background run succeeded", run="r1")
logging.getLogger("memagent.trace").info("trace=t1 node=llm for %s", "{email}")
"""


def test_langgraph_dev_style_structlog_logging_has_no_error_and_stays_redacted(
    tmp_path: Path,
) -> None:
    """``langgraph dev`` formats every record through structlog's ProcessorFormatter,
    which calls ``logging.makeLogRecord``: the record factory memagent used to install
    crashed there on ``name=None`` ('--- Logging error ---' on every line)."""
    pytest.importorskip("structlog")
    env = {**os.environ, "MEMAGENT_HOME": str(tmp_path), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", STRUCTLOG_SCRIPT.format(email=EMAIL)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Logging error" not in done.stderr + done.stdout, done.stderr[-3000:]
    assert "Background run succeeded" in done.stdout
    assert "trace=t1 node=llm for [EMAIL#" in done.stdout and EMAIL not in done.stdout
