"""namespaces: ids with dots encode into labels LangGraph accepts, and decode back.

The property that keeps stored data reachable: an id that was valid before dots were
allowed (no '.') keeps exactly its label, so nothing already stored moves.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.memory import InMemoryStore

from memagent.memory import memory_ops
from memagent.memory.forgetting import fact_scopes, maintain
from memagent.memory.namespaces import (
    MAX_ID_LEN,
    InvalidScopeError,
    check_id,
    id_of,
    namespace,
    scope_of,
)
from memagent.memory.write_path import Candidate, write_memory

# Any text a person could type as an id: every printable character, dots often.
CHARS = st.characters(blacklist_categories=["Cs", "Cc"])
IDS = st.text(st.one_of(CHARS, st.just("."), st.just("@")), min_size=1, max_size=MAX_ID_LEN).filter(
    lambda s: s.strip() not in ("", "*")
)
OLD_IDS = IDS.filter(lambda s: "." not in s)
KINDS = st.sampled_from(["facts", "profile", "episodes", "working"])


@given(user=IDS, customer=IDS, kind=KINDS)
def test_every_valid_id_round_trips_through_its_namespace(
    user: str, customer: str, kind: str
) -> None:
    ns = namespace(user, customer, kind)  # type: ignore[arg-type]
    assert scope_of(ns) == (user, customer, kind)
    assert all("." not in label for label in ns)
    assert scope_of(namespace(user)) == (user, None, None)


@given(a=IDS, b=IDS)
def test_distinct_ids_get_distinct_labels(a: str, b: str) -> None:
    if a != b:
        assert namespace(a) != namespace(b)


@given(user=OLD_IDS, customer=OLD_IDS)
def test_ids_valid_before_dots_keep_exactly_their_label(user: str, customer: str) -> None:
    assert namespace(user, customer, "facts") == ("memagent", user, customer, "facts")
    assert id_of(user) == user


@given(user=IDS, customer=IDS)
def test_langgraph_accepts_every_encoded_namespace(user: str, customer: str) -> None:
    store = InMemoryStore()
    store.put(namespace(user, customer, "facts"), "k", {"content": "x"})
    assert store.get(namespace(user, customer, "facts"), "k") is not None


def test_langgraph_itself_refuses_a_dot() -> None:
    """Why the encoding exists: the raw id would not be a valid label."""
    with pytest.raises(InvalidNamespaceError):
        InMemoryStore().put(("memagent", "john.smith@corp.com"), "k", {})


@pytest.mark.parametrize("value", ["john.smith@corp.com", "acme.com", "Acme Inc.", "..", "a.b.c"])
def test_ids_with_dots_are_accepted(value: str) -> None:
    assert check_id("user_id", value) == value
    assert scope_of(namespace(value, value))[:2] == (value, value)


@pytest.mark.parametrize(
    ("value", "needle"),
    [("", "empty"), ("  ", "empty"), ("*", "wildcard"), ("a\x1ab", "control"),
     ("a\nb", "control"), ("x" * (MAX_ID_LEN + 1), "longer"), ("u\udc80", "Unicode")],
)  # fmt: skip
def test_ids_that_cannot_scope_data_are_refused(value: str, needle: str) -> None:
    with pytest.raises(InvalidScopeError, match=needle):
        namespace(value)


def test_listing_export_forget_and_maintain_decode_dotted_ids() -> None:
    store = InMemoryStore()
    user, customers = "john.smith@corp.com", ["acme.com", "Acme Inc."]
    for c in customers:
        write_memory(store, user, c, Candidate(content=f"Budget of {c} is 3 million."))
    write_memory(store, "john", "acme", Candidate(content="Another user's budget."))
    assert memory_ops.customers_of(store, user) == sorted(customers)
    rows = memory_ops.list_memories(store, user)
    assert {r["customer_id"] for r in rows} == set(customers)
    assert set(memory_ops.export(store, user)["customers"]) == set(customers)
    assert fact_scopes(store, user) == sorted((user, c) for c in customers)
    assert (user, "acme.com") in fact_scopes(store)
    assert maintain(store, user).scopes == 2
    report = memory_ops.forget(store, user, "acme.com")
    assert report["removed"]["facts"] == 1 and report["remaining"] == 0
    assert {r["customer_id"] for r in memory_ops.list_memories(store, user)} == {"Acme Inc."}
    assert memory_ops.list_memories(store, "john", "acme")
