"""The CLI's words when the local model file is bad: one line naming what is wrong.

No server is started: a ``MEMAGENT_GGUF_PATH`` that is not a GGUF file is refused
before llama.cpp gets it (its own complaint is buried in a traceback in the server log,
and the CLI used to show 'log …/server.log:' with nothing after it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memagent.graph.cli import app


@pytest.mark.parametrize(
    ("content", "says"),
    [(b"K\x9b\x07,not a model at all", "is not a GGUF model file"), (b"", "is empty")],
)
def test_a_bad_gguf_path_is_one_clear_line(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, says: str
) -> None:
    bad = cli_env / "model.gguf"
    bad.write_bytes(content)
    monkeypatch.delenv("MEMAGENT_BASE_URL")
    monkeypatch.setenv("MEMAGENT_GGUF_PATH", str(bad))
    result = CliRunner().invoke(app, ["ask", "hello", "--user", "alice", "--customer", "acme"])
    assert result.exit_code == 3, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"MEMAGENT_GGUF_PATH {bad} {says}" in lines[0]
    assert not list((cli_env / "llm").glob("server-*.json"))
