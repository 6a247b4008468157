"""memagent's namespace labels on every backend: ids with dots (e-mail addresses, domains)
are stored under encoded labels that read back as the ids, stay apart from each other,
and labels of ids valid before the encoding existed are untouched, so data already
stored stays reachable (also after reopening a persistent store)."""

from __future__ import annotations

from store_contract_helpers import is_persistent

from memagent.memory.namespaces import namespace, scope_of

USERS = ["john.smith@corp.com", "john", "john smith@corp com", "j.o.h.n", "..", "张.三"]
CUSTOMERS = ["acme.com", "Acme Inc.", "acme", "acme com", "acme.com.cn"]


def test_encoded_namespaces_round_trip_and_stay_apart(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        for user in USERS:
            for customer in CUSTOMERS:
                s.put(namespace(user, customer, "facts"), "k", {"who": f"{user}|{customer}"})
        for user in USERS:
            listed = s.list_namespaces(prefix=namespace(user), limit=100)
            assert sorted(scope_of(ns) for ns in listed) == sorted(
                (user, c, "facts") for c in CUSTOMERS
            )
            for customer in CUSTOMERS:
                ns = namespace(user, customer, "facts")
                assert s.get(ns, "k").value == {"who": f"{user}|{customer}"}
                found = s.search(namespace(user, customer))
                assert [i.value["who"] for i in found] == [f"{user}|{customer}"]
                assert scope_of(found[0].namespace) == (user, customer, "facts")


def test_labels_of_ids_without_dots_are_unchanged(make_store, api, backend) -> None:
    """Data written under the layout of before (raw ids as labels) is read by
    ``namespace()`` now, on a reopened store too."""
    legacy = ("memagent", "alice", "acme", "facts")
    with make_store() as store:
        api(store).put(legacy, "budget", {"content": "Budget is 3 million."})
        reads(api(store), legacy)
    if is_persistent(backend):
        with make_store() as store:
            reads(api(store), legacy)


def reads(s, legacy: tuple[str, ...]) -> None:
    assert namespace("alice", "acme", "facts") == legacy
    assert s.get(namespace("alice", "acme", "facts"), "budget") is not None
    assert s.list_namespaces(prefix=namespace("alice")) == [legacy]
