"""A read-only home: read commands work, write commands fail in one line naming the file,
and ``doctor`` says so with the reason.

The home is filled through the CLI (fake OpenAI server, hash embeddings, the real
embedded store, SQLite checkpointer and outbox), then made truly read-only
(``tests/support/readonly_home.py``: chmod as a user, a read-only bind mount as root)
and every command runs against it in a child process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from readonly_home import how, read_only
from typer.testing import CliRunner

from memagent.graph.cli import app
from memagent.graph.jobs import JobQueue, Turn
from memagent.graph.settings import get_settings

pytestmark = pytest.mark.skipif(
    how() is None, reason="root without unshare: no way to make the home read-only here"
)


def run(*args: str) -> Any:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.stdout + res.stderr
    return res


@pytest.fixture
def home(cli_env: Path, fake_llm: FakeOpenAI) -> Path:
    for text in ("Our budget is 20k USD.", "Actually the budget is 25k USD."):
        run("ask", text, "-u", "u", "-c", "acme", "-s", "s1", "--json")
    run("jobs", "drain")
    run("memories", "add", "Dana prefers email.", "-u", "u", "-c", "acme")
    queue = JobQueue(get_settings().jobs_path, max_attempts=1)
    queue.submit(thread_id="t9", user_id="u", customer_id="acme", turns=[Turn("user", "x", "m9")])
    job = queue.claim()
    assert job is not None and queue.fail(job, "boom") == "dead"
    queue.close()
    return cli_env


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_read_commands_work_and_writes_fail_in_one_line(home: Path, fake_llm: FakeOpenAI) -> None:
    env = {"MEMAGENT_HOME": str(home), "MEMAGENT_BASE_URL": fake_llm.url}
    active = json.loads(run("memories", "list", "-u", "u", "--json").stdout)
    short = active[0]["id"][:12]
    reads = [
        ["memories", "list", "-u", "u", "--json"],
        ["memories", "export", "-u", "u"],
        ["memories", "search", "budget", "-u", "u", "-c", "acme", "--json"],
        ["memories", "show", short, "-u", "u", "-c", "acme", "--json"],
        ["memories", "history", short, "-u", "u", "-c", "acme", "--json"],
        ["maintain", "--dry-run", "--json"],
        ["sessions", "list", "--json"],
        ["sessions", "show", "s1", "--json"],
        ["jobs", "status", "--json"],
        ["customers", "list", "--json"],
        ["customers", "show", "acme", "--json"],
    ]
    writes = [
        ["memories", "add", "Budget is 30k.", "-u", "u", "-c", "acme"],
        ["memories", "delete", short, "-u", "u", "-c", "acme"],
        ["ask", "hello", "-u", "u", "-c", "acme", "-s", "s2"],
        ["maintain"],
        ["jobs", "retry"],
        ["forget", "-u", "u", "--yes"],
        ["customers", "add", "acme.com", "--name", "Acme"],
    ]
    before = snapshot(home)
    with read_only(home) as run_ro:
        results = run_ro([*reads, *writes, ["doctor"]], env)
    assert snapshot(home) == before  # nothing was written, nothing was lost
    for argv, (code, out, err) in zip(reads, results[: len(reads)], strict=True):
        assert code == 0, (argv, err)
        json.loads(out)
    listed = json.loads(results[0][1])
    assert {r["content"] for r in listed} == {r["content"] for r in active}
    assert "25k" in results[1][1] and json.loads(results[8][1])["counts"]["dead"] == 1
    assert [m["content"] for m in json.loads(results[7][1])["messages"]][0].startswith("Our")
    for argv, (code, _out, err) in zip(writes, results[len(reads) : -1], strict=True):
        lines = [line for line in err.splitlines() if line.strip()]
        assert code != 0 and len(lines) == 1, (argv, err)
        assert lines[0].startswith(f"error: cannot write {home}"), (argv, err)
        assert "read-only" in lines[0] or "not writable" in lines[0], (argv, err)
    code, out, err = results[-1]
    flat = " ".join(out.split())
    assert code == 1 and "Traceback" not in out + err
    assert "home │ fail" in flat and ("read-only" in flat or "not writable" in flat)
    assert "store │ ok" in flat and "jobs │ warn" in flat
