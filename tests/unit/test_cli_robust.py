"""The CLI tried command by command with the bad input real users type.

Every failure is one line on stderr and a non-zero exit, never a traceback: invalid
settings (each one, and under every command), empty or oversized memories, files that
are not LoCoMo, unknown job ids, empty searches. Ids of the tables work where an id
is taken; a delete removes the memory from everything derived from it; ``/memories``
lists what is current; README, ``.env.example`` and ``Settings`` agree.

In-process through ``CliRunner`` against the fake OpenAI server (``cli_env``), with the
real embedded store, SQLite checkpointer and outbox.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from typer.testing import CliRunner

from memagent.graph import cli_jobs, cli_memories
from memagent.graph.cli import app
from memagent.graph.jobs import JobQueue, Turn
from memagent.graph.service import resources
from memagent.graph.settings import Settings, env_name, get_settings
from memagent.memory.write_path import Candidate, write_memory
from memagent.stores.embeddings import hash_embeddings

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


def one_line_error(result: Any, code: int | None = None) -> str:
    """The single stderr line of a failed command (asserting there is no traceback)."""
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, f"unhandled {result.exception!r}\n{result.stderr}"
    assert result.exit_code != 0, result.stdout
    if code is not None:
        assert result.exit_code == code, (result.exit_code, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr and "╭" not in result.stderr
    return lines[0]


@pytest.fixture
def env(cli_env: Path) -> Path:
    return cli_env


def fresh(monkeypatch: pytest.MonkeyPatch, **env: str) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)


# -- settings -----------------------------------------------------------------------------

FREE_TEXT = {"api_key", "model", "small_model", "gguf_path", "qdrant_api_key", "embeddings_model"}
"""Fields that take any text: no value of theirs is invalid."""


def invalid_values(tmp: Path) -> dict[str, str]:
    a_file = tmp / "a-file"
    a_file.write_text("x")
    return {
        "home": str(a_file),
        "base_url": "localhost:8000",
        "context_window": "abc",
        "reply_tokens": "1",
        "temperature": "9",
        "today": "next tuesday",
        "llm_port": "99999",
        "llm_threads": "0",
        "llm_timeout": "0",
        "prefix_reuse": "maybe",
        "llm_prestart": "soon",
        "qdrant_url": "localhost:6333",
        "database_url": "mysql://localhost/memagent",
        "extract_lease_s": "0",
        "qdrant_timeout_s": "0",
        "qdrant_retries": "0",
        "store_location": str(a_file),
        "store_shared": "maybe",
        "embedder": "bogus",
        "embeddings_url": "not a url",
        "rewriter": "bogus",
        "note_reply": "bogus",
        "brief_reply": "bogus",
        "recall": "bogus",
        "recall_feedback_weight": "2",
        "recall_entity_focus": "-1",
        "recall_names_out": "maybe",
        "extractor": "bogus",
        "llm_extraction": "partial",
        "summarizer": "bogus",
        "worker": "bogus",
        "extract_debounce_s": "-1",
        "extraction_mode": "cloud",
        "extract_every_n_turns": "0",
        "extract_max_attempts": "0",
        "near_duplicate_threshold": "0",
        "poison_model": "maybe",
        "working_memory_ttl_s": "0",
        "model_dir": str(a_file),
        "service": "bogus",
        "service_idle_s": "0",
    }


def test_every_setting_has_an_invalid_value_here(tmp_path: Path) -> None:
    """A new setting must be added to ``invalid_values`` (or to FREE_TEXT)."""
    assert set(Settings.model_fields) == set(invalid_values(tmp_path)) | FREE_TEXT


@pytest.mark.parametrize("field", sorted(set(Settings.model_fields) - FREE_TEXT))
def test_an_invalid_setting_is_one_line_naming_the_variable(
    env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, field: str
) -> None:
    fresh(monkeypatch, **{env_name(field): invalid_values(tmp_path)[field]})
    line = one_line_error(run("memories", "list", "--user", "u"), 2)
    assert f"invalid setting {env_name(field)}" in line


COMMANDS = [
    ["ask", "hi", "-u", "u", "-c", "acme"],
    ["chat", "-u", "u", "-c", "acme"],
    ["sessions", "list"],
    ["sessions", "show", "s1"],
    ["customers", "list"],
    ["customers", "show", "acme"],
    ["customers", "add", "acme.com", "--name", "Acme"],
    ["memories", "list", "-u", "u"],
    ["memories", "search", "budget", "-u", "u", "-c", "acme"],
    ["memories", "show", "abc", "-u", "u", "-c", "acme"],
    ["memories", "history", "abc", "-u", "u", "-c", "acme"],
    ["memories", "add", "Budget is 3k.", "-u", "u", "-c", "acme"],
    ["memories", "delete", "abc", "-u", "u", "-c", "acme"],
    ["memories", "export", "-u", "u"],
    ["jobs", "status"],
    ["jobs", "drain"],
    ["jobs", "retry"],
    ["worker"],
    ["llm", "serve"],
    ["graph"],
    ["forget", "-u", "u", "--yes"],
    ["maintain", "--dry-run"],
    ["eval", "locomo", "--data", "__FILE__"],
]
"""Every command of the README that reads settings (``eval extraction`` and ``eval
sessions`` run on their own datasets and read none)."""


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_command_reports_a_bad_setting_in_one_line(
    env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str]
) -> None:
    data = tmp_path / "locomo.json"
    conversation = {
        "speaker_a": "A",
        "speaker_b": "B",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
    }
    data.write_text(json.dumps([{"sample_id": "1", "conversation": conversation, "qa": []}]))
    fresh(monkeypatch, MEMAGENT_RECALL="bogus")
    line = one_line_error(run(*[str(data) if a == "__FILE__" else a for a in args]), 2)
    assert "MEMAGENT_RECALL='bogus'" in line


def test_doctor_reports_a_bad_setting_and_checks_the_rest(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh(monkeypatch, MEMAGENT_RECALL="bogus", MEMAGENT_RECAL="typo", COLUMNS="250")
    result = run("doctor")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 1 and "Traceback" not in result.stdout + result.stderr
    flat = " ".join(result.stdout.split())
    assert "MEMAGENT_RECALL='bogus'" in flat and "MEMAGENT_RECAL " in flat + " "
    for check in ("home", "store", "jobs", "llm", "disk"):
        assert re.search(rf"{check}\s+│\s+ok", result.stdout), (check, result.stdout)


def test_help_works_whatever_the_settings(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, MEMAGENT_RECALL="bogus")
    result = run("ask", "--help")
    assert result.exit_code == 0 and "--retry" in result.stdout


# -- bad input per command ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["memories", "add", "", "-u", "u", "-c", "acme"], "empty"),
        (["memories", "add", "  \n", "-u", "u", "-c", "acme"], "empty"),
        (["memories", "add", "x" * 4001, "-u", "u", "-c", "acme"], "limit is 4000"),
        (["memories", "search", "", "-u", "u", "-c", "acme"], "query is empty"),
        (["memories", "search", " ", "-u", "u", "-c", "acme"], "query is empty"),
        (["memories", "show", "nope", "-u", "u", "-c", "acme"], "no memory 'nope'"),
        (["memories", "add", "ok", "-u", "u"], "Missing option '--customer'"),
        (["memories", "add", "ok", "-u", "u", "-c", "acme", "--importance", "2"], "--importance"),
        (["jobs", "retry", "nope"], "no job 'nope'"),
        (["forget", "-u", ""], "must not be empty"),
        (["bogus"], "No such command"),
        (["eval", "locomo", "--data", "{}"], "does not exist"),
    ],
)
def test_bad_input_is_one_line(env: Path, args: list[str], needle: str) -> None:
    assert needle in one_line_error(run(*args), 2)


def test_a_pasted_text_starting_with_a_dash_is_told_to_follow_double_dash(env: Path) -> None:
    """A forwarded mail pasted as it is ('---------- Forwarded message ...') is read by the
    option parser as an unknown option; the one line says how to pass it, and that way
    stores it. A mistyped flag keeps the plain help hint."""
    mail = "---------- Forwarded message ---------\nFrom: Rita <r@x.com>\nBudget is 2M CNY"
    line = one_line_error(run("memories", "add", "-u", "u", "-c", "acme", mail), 2)
    assert "goes after `--`" in line and "memories add ... --" in line
    stored = run("memories", "add", "-u", "u", "-c", "acme", "--json", "--", mail)
    assert stored.exit_code == 0, stored.stderr
    assert json.loads(stored.stdout)["stored"] is True
    typo = one_line_error(run("memories", "add", "ok", "-u", "u", "-c", "acme", "--jsn"), 2)
    assert "goes after" not in typo and "--help" in typo


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("root:x:0:0:root:/root:/bin/bash\n", "is not JSON"),
        ("{}", "holds a JSON dict"),
        ("[]", "holds an empty list"),
        ('[{"x": 1}]', "not a LoCoMo conversation"),
        ("\udcff", "not UTF-8"),
    ],
)
def test_eval_locomo_names_what_is_wrong_with_the_file(
    env: Path, tmp_path: Path, content: str, needle: str
) -> None:
    data = tmp_path / "data.json"
    data.write_bytes(content.encode("utf-8", "surrogateescape"))
    line = one_line_error(run("eval", "locomo", "--data", str(data)), 2)
    assert needle in line and str(data) in line


def test_forget_without_an_answer_forgets_nothing(env: Path) -> None:
    assert run("memories", "add", "Budget is 3k.", "-u", "u", "-c", "acme").exit_code == 0
    assert "not confirmed" in one_line_error(run("forget", "-u", "u"), 1)
    listed = run("memories", "list", "-u", "u", "--json")
    assert len(json.loads(listed.stdout)) == 1


def test_forget_prints_a_sentence_and_json_only_when_asked(env: Path) -> None:
    run("memories", "add", "Budget is 3k.", "-u", "u", "-c", "acme")
    human = run("forget", "-u", "u", "-c", "acme", "--yes")
    assert human.exit_code == 0, human.stderr
    assert human.stdout.startswith("forgot customer 'acme' of user 'u': 1 facts")
    with pytest.raises(json.JSONDecodeError):
        json.loads(human.stdout)
    machine = run("forget", "-u", "u", "--json")
    assert json.loads(machine.stdout)["remaining"] == 0


# -- jobs retry ------------------------------------------------------------------------------


def dead_job(thread: str, first: str) -> str:
    q = JobQueue(get_settings().jobs_path, max_attempts=1)
    q.submit(thread_id=thread, user_id="u", customer_id="c", turns=[Turn("user", "x", first)])
    job = q.claim()
    assert job is not None and q.fail(job, "boom") == "dead"
    return job.id


def test_jobs_retry_takes_a_prefix_and_refuses_unknown_or_live_jobs(env: Path) -> None:
    jid = dead_job("t1", "m1")
    assert "no job 'zzz'" in one_line_error(run("jobs", "retry", "zzz"), 2)
    ok = run("jobs", "retry", jid[:8], "--json")
    assert ok.exit_code == 0, ok.stderr
    assert json.loads(ok.stdout) == {"requeued": 1, "ids": [jid]}
    assert "not dead-lettered" in one_line_error(run("jobs", "retry", jid), 2)


def test_retry_jobs_reports_an_ambiguous_prefix(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "jobs.sqlite")
    ids = ["abc111", "abc222"]
    queue.ids = lambda status=None: ids  # type: ignore[method-assign]
    with pytest.raises(LookupError, match="ambiguous: it starts abc111, abc222"):
        cli_jobs.retry_jobs(queue, "abc")


# -- ids of the tables, /memories, delete ----------------------------------------------------


def two_versions(fake: FakeOpenAI) -> None:
    """Budget 20k, then corrected to 25k, in session s1, extracted by the worker."""
    for text in ("Our budget is 20k USD.", "Actually the budget is 25k USD."):
        res = run("ask", text, "-u", "u", "-c", "acme", "-s", "s1", "--json")
        assert res.exit_code == 0, res.stderr
    assert run("jobs", "drain").exit_code == 0


def rows(*args: str) -> list[dict[str, Any]]:
    res = run("memories", *args, "-u", "u", "-c", "acme", "--json")
    assert res.exit_code == 0, res.stderr
    return list(json.loads(res.stdout))


def test_the_ids_a_table_shows_work_everywhere(env: Path, fake_llm: FakeOpenAI) -> None:
    two_versions(fake_llm)
    table = run("memories", "list", "-u", "u", "-c", "acme", "--status", "all")
    full = {r["id"] for r in rows("list", "--status", "all")}
    shown = {s for s in re.findall(r"│ (\S+)\s+│ acme", table.stdout)}
    assert len(shown) == 2 and shown != full
    for short in shown:
        for command in ("show", "history"):
            res = run("memories", command, short, "-u", "u", "-c", "acme", "--json")
            assert res.exit_code == 0, res.stderr
    some = next(iter(shown))
    deleted = run("memories", "delete", some, "-u", "u", "-c", "acme", "--json")
    assert json.loads(deleted.stdout)["deleted"][0].startswith(some)


def test_an_ambiguous_prefix_lists_the_candidates(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})

    @contextlib.asynccontextmanager
    async def opener(settings: object, **kwargs: object) -> AsyncIterator[BaseStore]:
        yield store

    monkeypatch.setattr(resources, "STORE_OPENER", opener)
    for rid, text in (("abc-1", "Budget is 1k."), ("abc-2", "Prefers email."), ("d", "Hi.")):
        write_memory(store, "u", "acme", Candidate(content=text), record_id=rid)
    ids = [r["id"] for r in rows("list")]
    line = one_line_error(run("memories", "show", "abc", "-u", "u", "-c", "acme"), 2)
    assert "ambiguous" in line and all(i in line for i in ids if i.startswith("abc"))
    assert "no memory ''" in one_line_error(run("memories", "show", "", "-u", "u", "-c", "acme"))
    unique = run("memories", "show", ids[-1][:3], "-u", "u", "-c", "acme", "--json")
    assert json.loads(unique.stdout)["id"] == ids[-1]


def test_chat_memories_lists_current_versions_only(env: Path, fake_llm: FakeOpenAI) -> None:
    two_versions(fake_llm)
    res = run("chat", "-u", "u", "-c", "acme", "-s", "s2", input="/memories\n/quit\n")
    assert res.exit_code == 0, res.stderr
    assert "25k USD" in res.stdout and "20k USD" not in res.stdout
    current = [r["content"] for r in rows("list")]
    assert len(current) == 1 and "25k" in current[0]
    assert len(rows("list", "--status", "all")) == 2  # the old version is history


def test_delete_removes_the_memory_from_every_derived_copy(env: Path, fake_llm: FakeOpenAI) -> None:
    two_versions(fake_llm)
    current = rows("list")[0]
    before = json.loads(run("memories", "export", "-u", "u", "-c", "acme").stdout)
    assert current["id"] in before["customers"]["acme"]["profile"]["facts"]
    res = run("memories", "delete", current["id"][:10], "-u", "u", "-c", "acme", "--json")
    assert res.exit_code == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["profile"] == "dropped" and report["episode_turns"] == 2  # said + reply
    assert report["sessions"] == 1
    after = json.dumps(json.loads(run("memories", "export", "-u", "u", "-c", "acme").stdout))
    assert current["id"] not in after and "25k" not in after
    shown = json.loads(run("sessions", "show", "s1", "--json").stdout)
    assert "25k" in json.dumps(shown["messages"])  # the conversation itself stays
    listed = json.loads(run("sessions", "list", "-u", "u", "-c", "acme", "--json").stdout)
    assert [r["session"] for r in listed] == ["s1"]  # and still belongs to u and acme
    taken = run("ask", "hi", "-u", "mallory", "-c", "acme", "-s", "s1")
    assert "belongs to another user" in one_line_error(taken, 2)
    import asyncio

    from memagent.graph.agent import session_state

    state = asyncio.run(session_state("s1"))
    assert state is not None
    assert "25k" not in json.dumps(state["working"]) and "25k" not in state["summary"]


def test_maintain_refreshes_a_profile_that_lists_a_deleted_memory(
    env: Path, fake_llm: FakeOpenAI
) -> None:
    two_versions(fake_llm)
    current = rows("list")[0]
    from memagent.memory.namespaces import namespace
    from memagent.stores import open_store

    with open_store(settings=get_settings()) as store:  # deleted behind the CLI's back
        store.delete(namespace("u", "acme", "facts"), current["id"])
    dry = json.loads(run("maintain", "--dry-run", "--json").stdout)
    assert dry["profiles"] == [{"user_id": "u", "customer_id": "acme", "action": "stale"}]
    done = json.loads(run("maintain", "--json").stdout)
    assert done["profiles"][0]["action"] == "dropped"
    exported = run("memories", "export", "-u", "u", "-c", "acme").stdout
    assert current["id"] not in exported
    assert json.loads(exported)["customers"]["acme"]["profile"] is None


def test_memories_add_keeps_the_profile_current(env: Path) -> None:
    run("memories", "add", "Budget is 3k.", "-u", "u", "-c", "acme")
    data = json.loads(run("memories", "export", "-u", "u", "-c", "acme").stdout)
    assert "Budget is 3k." in data["customers"]["acme"]["profile"]["digest"]


# -- README, .env.example and Settings agree ------------------------------------------------


def test_readme_marks_customer_required_exactly_where_the_commands_do() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines() if line.startswith("memagent memories ")]
    assert lines
    import typer.main

    group = typer.main.get_command(cli_memories.app)
    seen: set[str] = set()
    for line in lines:
        names = re.findall(r"(?:^memagent memories |\|)(\w+)", line)
        optional = "[--customer C]" in line
        for name in names:
            command = group.commands[name]  # type: ignore[attr-defined]
            opt = next(p for p in command.params if "--customer" in p.opts)
            assert opt.required is not optional, (name, line)
            seen.add(name)
    assert seen == set(group.commands)  # type: ignore[attr-defined]


def test_every_setting_is_in_env_example_with_its_default_and_in_the_readme() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    written = dict(re.findall(r"^# (MEMAGENT_\w+)=(.*)$", example, re.MULTILINE))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    in_table = set(re.findall(r"`(MEMAGENT_\w+)`", table))
    fields = {env_name(f): f for f in Settings.model_fields}
    assert set(written) == set(fields), set(written) ^ set(fields)
    assert set(fields) <= in_table, set(fields) - in_table
    for name, field in fields.items():
        info = Settings.model_fields[field]
        if info.default_factory is not None or info.default is None:
            continue  # computed per machine, or unset
        default = info.default
        default = default.get_secret_value() if hasattr(default, "get_secret_value") else default
        parsed = Settings.model_validate({field: written[name]}).__getattribute__(field)
        parsed = parsed.get_secret_value() if hasattr(parsed, "get_secret_value") else parsed
        assert parsed == default, (name, written[name], default)
