"""One rule for customer ids (``CUSTOMER_ID_RULE``), enforced where new data gets a
customer id: ``chat``/``ask`` (``Crm.check_scope``), ``customers add``, ``memories add``
and a Studio run's context (``check_message``). Ids stored before the rule stay readable.

Session 13: any non-blank id without control characters was taken, so ``--customer
Acme``, ``--customer acme`` and ``--customer "Acme Inc"`` were three customers whose
memories never met, and nothing said so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graph_fakes import scripted
from langchain_core.messages import HumanMessage
from test_cli_robust import one_line_error, run
from test_message_check import Jobs, compiled

from memagent.core.context import Context
from memagent.graph.settings import get_settings
from memagent.memory.crm import Crm, new_customer
from memagent.memory.namespaces import (
    InvalidScopeError,
    check_customer_id,
    suggest_customer_id,
)
from memagent.memory.write_path import Candidate, write_memory

VALID = ["acme", "acme.com", "huaxin.com", "华信", "华信科技-2", "lanhai-robotics", "c1", "a_b",
         "john@corp.com", "x" * 64]  # fmt: skip
INVALID = {
    "Acme": ("uppercase", "acme"),
    "Acme Inc": ("uppercase", "acme-inc"),
    "acme inc": ("space", "acme-inc"),
    " acme": ("space", "acme"),
    "-acme": ("punctuation", "acme"),
    "acme.": ("punctuation", "acme"),
    "a/b": ("'/'", "a-b"),
    "x" * 65: ("65 characters", None),
}


@pytest.mark.parametrize("value", VALID)
def test_valid_ids_pass_unchanged(value: str) -> None:
    assert check_customer_id(value) == value


@pytest.mark.parametrize("value", list(INVALID))
def test_invalid_ids_get_the_rule_and_the_id_meant(value: str) -> None:
    problem, meant = INVALID[value]
    with pytest.raises(InvalidScopeError) as caught:
        check_customer_id(value)
    message = str(caught.value)
    assert problem in message and "lowercase letters, digits, CJK" in message
    assert (f"did you mean {meant!r}" in message) if meant else "did you mean" not in message
    assert suggest_customer_id(value) == meant or meant is None


def test_the_crm_refuses_a_bad_id_for_a_turn_and_an_account(tmp_path: Path) -> None:
    crm = Crm(tmp_path / "crm.sqlite")
    with pytest.raises(InvalidScopeError, match="did you mean 'acme'"):
        crm.check_scope("alice", "Acme")
    with pytest.raises(InvalidScopeError, match="did you mean 'acme-inc'"):
        new_customer("Acme Inc", name="Acme")
    assert crm.check_scope("alice", "华信") is None
    crm.add(new_customer("huaxin.com", name="华信"))
    assert crm.check_scope("alice", "huaxin.com") is not None


async def test_a_studio_run_with_a_bad_customer_id_stores_nothing() -> None:
    model, jobs = scripted("Noted."), Jobs()
    graph = compiled(model, jobs)
    config = {"configurable": {"thread_id": "t"}}
    bad = Context(user_id="alice", customer_id="Acme Inc")
    with pytest.raises(InvalidScopeError, match="did you mean 'acme-inc'"):
        await graph.ainvoke({"messages": [HumanMessage("Budget is 5k.")]}, config, context=bad)
    assert not jobs.turns and not model.seen
    assert not (await graph.aget_state(config)).values.get("messages")
    good = Context(user_id="alice", customer_id="华信")
    out = await graph.ainvoke({"messages": [HumanMessage("Budget is 5k.")]}, config, context=good)
    assert out["messages"][-1].type == "ai" and jobs.turns


@pytest.mark.parametrize(
    "args",
    [
        ["ask", "--user", "alice", "--customer", "Acme Inc", "Budget is 5k."],
        ["memories", "add", "Budget is 5k.", "--user", "alice", "--customer", "Acme"],
        ["customers", "add", "Acme Inc", "--name", "Acme"],
    ],
    ids=["ask", "memories-add", "customers-add"],
)
def test_the_cli_refuses_a_bad_customer_id(cli_env: Path, args: list[str]) -> None:
    line = one_line_error(run(*args), 2)
    assert "is not valid" in line and "did you mean" in line


def test_memories_stored_under_an_old_style_id_stay_readable(cli_env: Path) -> None:
    """An id the rule now refuses (stored by an earlier version) still lists its data."""
    from memagent.stores.store_factory import open_store

    with open_store(settings=get_settings()) as store:
        write_memory(store, "alice", "Acme Inc.", Candidate(content="Budget is 5k."))
    result: Any = run("memories", "list", "--user", "alice", "--customer", "Acme Inc.", "--json")
    assert result.exit_code == 0, result.stderr
    assert "Budget is 5k." in result.stdout
