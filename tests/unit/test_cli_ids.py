"""Ids as users type them, through the CLI on the real store (``cli_env``: a temp home,
the fake LLM server, hash embeddings): new prospects, e-mail and domain ids, the CRM
accounts command, and session ids that cannot name a session."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from typer.testing import CliRunner

from memagent.graph.cli import app
from memagent.graph.settings import get_settings

USER = "john.smith@corp.com"


def run(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


def ok(*args: str, input: str | None = None) -> Any:
    result = run(*args, input=input)
    assert result.exit_code == 0, result.output + result.stderr
    return result


def as_json(*args: str) -> Any:
    return json.loads(ok(*args, "--json").stdout)


def one_line_error(result: Any, needle: str) -> str:
    """A clean refusal: exit 2, one line on stderr containing ``needle``, no traceback."""
    assert result.exit_code == 2, result.output + result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert needle in lines[0], lines[0]
    return lines[0]


def drain() -> None:
    from memagent.graph.jobs import JobQueue
    from memagent.graph.worker import Worker

    settings = get_settings()
    Worker.for_settings(settings, queue=JobQueue(settings.jobs_path)).drain()


def test_a_new_prospect_works_in_ask_chat_and_memories(cli_env: Path) -> None:
    out = as_json("ask", "Huaxin's budget is 2 million CNY.", "-u", "alice", "-c", "huaxin")
    assert out["reply"].startswith("FAKE reply to:")
    chat = ok("chat", "-u", "alice", "-c", "huaxin", "-s", "h2", input="hello\n/quit\n")
    assert "not in the CRM" in chat.stdout and "FAKE reply to: hello" in chat.stdout
    added = as_json("memories", "add", "Huaxin prefers WeChat.", "-u", "alice", "-c", "huaxin")
    assert added["stored"], added
    drain()
    listed = as_json("memories", "list", "-u", "alice", "-c", "huaxin")
    assert "Huaxin prefers WeChat." in {r["content"] for r in listed}
    sessions = as_json("sessions", "list", "-u", "alice", "-c", "huaxin")
    assert {r["session"] for r in sessions} >= {"h2", out["session"]}


def test_email_and_domain_ids_work_in_every_command(cli_env: Path) -> None:
    for customer in ("acme.com", "华信科技"):
        out = as_json(
            "ask", "Our budget is $3 million for the rollout.", "-u", USER, "-c", customer,
            "-s", f"s-{customer}",
        )  # fmt: skip
        assert out["session"] == f"s-{customer}"
    drain()
    rows = as_json("memories", "list", "-u", USER)
    assert {r["customer_id"] for r in rows} == {"acme.com", "华信科技"}
    assert {r["user_id"] for r in rows} == {USER}
    first = next(r for r in rows if r["customer_id"] == "acme.com")
    shown = as_json("memories", "show", first["id"], "-u", USER, "-c", "acme.com")
    assert shown["content"] == first["content"]
    found = as_json("memories", "search", "budget", "-u", USER, "-c", "acme.com")
    assert [r["id"] for r in found] == [first["id"]]
    assert as_json("memories", "history", first["id"], "-u", USER, "-c", "acme.com")
    export = json.loads(ok("memories", "export", "-u", USER).stdout)
    assert set(export["customers"]) == {"acme.com", "华信科技"}
    sessions = as_json("sessions", "list", "-u", USER)
    assert {(r["user_id"], r["customer_id"]) for r in sessions} == {
        (USER, "acme.com"),
        (USER, "华信科技"),
    }
    assert as_json("maintain", "-u", USER)["scopes"] == 2
    from memagent.graph.jobs import JobQueue

    jobs = JobQueue(get_settings().jobs_path).jobs(limit=10)
    assert {(j.user_id, j.customer_id) for j in jobs} == {(USER, "acme.com"), (USER, "华信科技")}
    deleted = as_json("memories", "delete", first["id"], "-u", USER, "-c", "acme.com")
    assert deleted["deleted"] == [first["id"]]
    gone = as_json("forget", "-u", USER, "-c", "华信科技")
    assert gone["removed"]["facts"] >= 1 and gone["sessions"] == 1 and gone["remaining"] == 0
    assert as_json("memories", "list", "-u", USER) == []
    assert {r["customer_id"] for r in as_json("sessions", "list", "-u", USER)} == {"acme.com"}


def test_the_memory_not_found_message_keeps_its_closing_quote(cli_env: Path) -> None:
    for user in ("john", USER):
        result = run("memories", "show", "abc", "-u", user, "-c", "acme")
        line = one_line_error(result, "no memory 'abc'")
        assert line.endswith(f"for user {user!r} / customer 'acme'"), line
    line = one_line_error(run("memories", "list", "-u", "*"), "user_id")
    assert line.endswith("wildcard"), line


def test_customers_add_list_show(cli_env: Path, fake_llm: FakeOpenAI) -> None:
    seeded = {c["id"] for c in as_json("customers", "list")}
    assert seeded == {"acme", "globex", "initech", "lanhai"}
    added = as_json(
        "customers", "add", "huaxin.com", "--name", "华信科技", "--contact", "Li Wei (CTO)",
        "--email", "li.wei@huaxin.example", "--stage", "discovery", "--deal-size", "250000",
        "--currency", "cny", "--notes", "Met at the Shanghai expo.",
    )  # fmt: skip
    assert added == {
        "id": "huaxin.com",
        "name": "华信科技",
        "contact": "Li Wei (CTO)",
        "email": "li.wei@huaxin.example",
        "stage": "discovery",
        "deal_size": 250_000,
        "currency": "CNY",
        "notes": "Met at the Shanghai expo.",
    }
    assert as_json("customers", "show", "huaxin.com") == added
    assert {c["id"] for c in as_json("customers", "list")} == seeded | {"huaxin.com"}
    table = ok("customers", "list").stdout
    assert "huaxin.com" in table and "250,000 CNY" in table
    minimal = as_json("customers", "add", "acme-inc", "--name", "Acme Inc.")
    assert (minimal["stage"], minimal["deal_size"], minimal["currency"]) == ("prospect", 0, "USD")
    one_line_error(run("customers", "add", "Acme Inc.", "--name", "X"), "did you mean 'acme-inc'")
    one_line_error(run("customers", "add", "acme", "--name", "X"), "'acme' is already in the CRM")
    one_line_error(run("customers", "add", "n1", "--name", "X", "--email", "x"), "email")
    one_line_error(run("customers", "add", "*", "--name", "X"), "customer_id")
    one_line_error(run("customers", "show", "ghost"), "'ghost' is not in the CRM")
    assert run("customers", "add", "n2").exit_code == 2  # --name is required
    # The tools see the new account.
    fake_llm.route = {"tool": "lookup_customer", "args": {}}
    as_json("ask", "Look up the contact person", "-u", USER, "-c", "huaxin.com", "-s", "t1")
    shown = as_json("sessions", "show", "t1")
    assert "华信科技 (id huaxin.com)" in shown["messages"][2]["content"]


def test_the_retry_hint_can_be_pasted_with_any_id(
    cli_env: Path, fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMAGENT_BASE_URL", "http://127.0.0.1:9/v1")
    result = run("ask", "Budget is 5 million", "-u", USER, "-c", "华信科技", "-s", "my session")
    assert result.exit_code == 3, result.stderr
    hint = result.stderr.split("retry with `", 1)[1].split("`", 1)[0]
    assert shlex.split(hint)[1:] == [
        "ask", "--retry", "--session", "my session", "--user", USER, "--customer", "华信科技"
    ]  # fmt: skip
    monkeypatch.setenv("MEMAGENT_BASE_URL", fake_llm.url)
    out = run(*shlex.split(hint)[1:], "--json")
    assert out.exit_code == 0 and json.loads(out.stdout)["reply"].startswith("FAKE reply to:")


BAD_SESSIONS = [
    ("", "must not be empty"),
    ("   ", "must not be empty"),
    ("s" * 20_000, "longer than 200"),
    ("line\nbreak", "control characters"),
    ("del\x7f", "control characters"),
]


@pytest.mark.parametrize(("session", "needle"), BAD_SESSIONS)
def test_bad_session_ids_are_refused_everywhere(cli_env: Path, session: str, needle: str) -> None:
    for args in (
        ["ask", "hello", "-u", "alice", "-c", "acme", f"--session={session}"],
        ["ask", "--retry", "-u", "alice", "-c", "acme", f"--session={session}"],
        ["chat", "-u", "alice", "-c", "acme", f"--session={session}"],
        ["sessions", "show", "--", session],
    ):
        line = one_line_error(run(*args, input="hello\n/quit\n"), needle)
        assert "session id" in line, line
    assert as_json("sessions", "list") == []


def test_a_session_id_at_the_limit_works(cli_env: Path) -> None:
    session = "s" * 200
    assert as_json("ask", "hello", "-u", "alice", "-c", "acme", "-s", session)["session"] == session
    assert as_json("sessions", "show", session)["session"] == session
