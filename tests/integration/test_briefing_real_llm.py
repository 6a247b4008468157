"""The bundled 1.5B model uses the briefing (issue 14): facts stated in one session come
back in the reply to a broad question in a fresh session, through the real CLI
(`memagent ask --json`), the real service, the real local llama.cpp server, the job
queue and worker (`memagent jobs drain`) and the embedded Qdrant store.

Before the briefing was laid out next to the question (and broad questions pinned the
account's key facts), "Brief me before the call" got a promise to prepare a summary
instead of the budget and the decision maker (bench/briefing_llm_bench.py). With bare
quotes the reply hinged on the date the system prompt states: on 2026-12-02 it read
"Their CTO Li Wei is the decision maker" as "The customer is the decision maker". The
test runs at two dates (``MEMAGENT_TODAY``); the labelled layout must hold at both.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.llm, pytest.mark.slow]

pytest.importorskip("llama_cpp.server", reason="install the [llm] extra for the local LLM")

NOTE = (
    "Met with Acme Logistics today. Their CTO Li Wei is the decision maker. Budget is 1.2 "
    "million CNY for the fleet-tracking rollout, decision by end of March. He hates phone "
    "calls, email only."
)
BUDGET = re.compile(r"1\.2\s*(?:million|m\b)|1,200,000|1200000|120\s*万", re.IGNORECASE)


DATES = ("2026-12-01", "2026-12-02")
"""Dates the system prompt states (``MEMAGENT_TODAY``): the old layout passed on the first
and failed on the second."""


@pytest.fixture(params=DATES)
def home(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    (tmp_path / "today").write_text(request.param)  # beside the home, not in it
    home = tmp_path / "home"
    home.mkdir()
    yield home
    _memagent(home, "service", "stop", timeout=300)


def _memagent(home: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MEMAGENT_HOME": str(home),
        "MEMAGENT_REPLY_TOKENS": "96",
        "MEMAGENT_CONTEXT_WINDOW": "4096",
        "MEMAGENT_SERVICE": "auto",
        "MEMAGENT_TODAY": (home.parent / "today").read_text(),
    }
    env.pop("MEMAGENT_BASE_URL", None)
    exe = Path(sys.executable).with_name("memagent")
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def _ask(home: Path, message: str, session: str) -> dict:
    res = _memagent(
        home, "ask", message, "--user", "rep-1", "--customer", "acme", "--session", session,
        "--json",
    )  # fmt: skip
    assert res.returncode == 0, f"exit {res.returncode}\n{res.stdout}\n{res.stderr}"
    out: dict = json.loads(res.stdout)
    return out


def test_reply_states_the_stored_budget_and_decision_maker(home: Path) -> None:
    _ask(home, NOTE, "s1")
    drained = _memagent(home, "jobs", "drain")
    assert drained.returncode == 0, drained.stderr

    out = _ask(home, "Brief me before the call with Acme Logistics.", "s2")
    recalled = " ".join(item["content"] for item in out["recalled"])
    assert BUDGET.search(recalled) and "Li Wei" in recalled, out["recalled"]
    reply = out["reply"]
    assert BUDGET.search(reply), reply
    assert "li wei" in reply.lower(), reply
