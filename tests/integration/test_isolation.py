"""Tenant isolation at the store level: no search, get or recall ever crosses a namespace.

200 users x 5 customers with ids chosen to collide: prefixes (``u1``/``u10``), SQL and glob
wildcards (``%``, ``_``, ``*``), spaces, quotes, slashes, CJK, and the same customer id under
many users. Every namespace holds records with the same keys and near-identical text, tagged
with a per-namespace marker; 10,000 randomized reads (recall, scoped searches, prefix
searches, gets, namespace listings) assert that every item seen carries its own scope's tag.
Runs against every store backend (``store`` fixture), so a new backend is one param away.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore

from memagent.memory.namespaces import InvalidScopeError, namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.scoring import ScoreWeights
from memagent.nodes.recall import recall_memories
from memagent.stores.embeddings import hash_embeddings

SEED = 20261129
N_USERS = 200
N_CUSTOMERS = 5
N_OPS = 10_000
NOW = datetime(2026, 11, 1, tzinfo=UTC)
INDEX = {"dims": 64, "fields": ["content"]}

ODD_USERS = [
    "u1", "u10", "u100", "u11", "u1 ", " u1", "u 1", "u_1", "u%1", "u1%", "u1_", "u1*", "u*",
    "%", "_", "*", "%%", "__", "**", "u%", "u_", "用户1", "用户10", "用户 1", "顾客*", "a/b",
    "a\\b", "a'b", 'a"b', "U1", "ü1", "u1/", "(u1)", "[u1]", "u1;drop", "'; --", "客户甲",
]  # fmt: skip
CUSTOMER_POOL = [
    "c1", "c10", "c100", "acme", "acme%", "acme_", "acme*", "ACME", "acme ", " acme", "客户甲",
    "客户甲乙", "%", "_", "*", "c 1", "c_1", "c%1", "u1", "u10", "facts", "profile", "memagent",
]  # fmt: skip
QUERIES = ["rollout budget", "prefers email", "budget million", "预算 邮件", "contact by email"]


@dataclass
class Universe:
    """What was put where: namespace -> tag, and each tag's keys."""

    scopes: list[tuple[str, str]]
    tags: dict[tuple[str, str], str]
    user_tags: dict[str, set[str]] = field(default_factory=dict)


def _accepted(scope_id: str) -> bool:
    """Ids ``namespace()`` refuses are out of scope here (a clear error is also isolation)."""
    try:
        namespace(scope_id, scope_id)
    except InvalidScopeError:
        return False
    return True


def _user_ids(rng: random.Random) -> list[str]:
    users = [u for u in ODD_USERS if _accepted(u)]
    decorations = ["", "%", "_", " ", "*", "客户", "u"]
    i = 2
    while len(users) < N_USERS:
        candidate = f"{rng.choice(decorations)}u{i}{rng.choice(decorations)}"
        if candidate.strip() and candidate not in users:
            users.append(candidate)
        i += 1
    return users


def _content(tag: str, kind: str, n: int) -> str:
    # Same words everywhere, so only the namespace can keep results apart.
    if kind == "budget":
        return f"{tag} budget for the rollout is {n} million; 预算 {n} 百万"
    return f"{tag} contact prefers email over phone calls; 邮件 联系"


def _populate(store: BaseStore) -> Universe:
    rng = random.Random(SEED)
    users = _user_ids(rng)
    customers = [c for c in CUSTOMER_POOL if _accepted(c)]
    scopes = [(u, c) for u in users for c in rng.sample(customers, N_CUSTOMERS)]
    universe = Universe(scopes=scopes, tags={})
    ops: list[PutOp] = []
    for idx, (user, customer) in enumerate(scopes):
        tag = f"ns{idx:04d}"
        universe.tags[(user, customer)] = tag
        universe.user_tags.setdefault(user, set()).add(tag)
        facts = namespace(user, customer, "facts")
        for key in ("budget", "contact"):
            record = MemoryRecord(content=_content(tag, key, idx), last_accessed_at=NOW)
            ops.append(PutOp(facts, key, record.to_store()))
        only_here = MemoryRecord(content=f"{tag} unique note", last_accessed_at=NOW)
        ops.append(PutOp(facts, f"only-{tag}", only_here.to_store()))
        digest = MemoryRecord(content=f"{tag} profile digest: budget and email", type="fact")
        ops.append(PutOp(namespace(user, customer, "profile"), "digest", digest.to_store()))
    for start in range(0, len(ops), 500):
        store.batch(ops[start : start + 500])
    return universe


def _tag_of(text: str) -> str:
    return text.split(" ", 1)[0]


@pytest.fixture(scope="module", params=["memory", "qdrant"])
def populated(request: pytest.FixtureRequest) -> Iterator[tuple[BaseStore, Universe]]:
    index = {**INDEX, "embed": hash_embeddings(64)}
    if request.param == "memory":
        store: BaseStore = InMemoryStore(index=index)  # type: ignore[arg-type]
        yield store, _populate(store)
        return
    from memagent.stores.qdrant_store import QdrantStore

    with QdrantStore.from_location(":memory:", index=index) as qstore:  # type: ignore[arg-type]
        yield qstore, _populate(qstore)


def test_ids_really_collide(populated: tuple[BaseStore, Universe]) -> None:
    """The fixture is adversarial: prefixes, shared customers, wildcard ids all present."""
    _, universe = populated
    users = {u for u, _ in universe.scopes}
    assert len(users) == N_USERS and len(universe.scopes) == N_USERS * N_CUSTOMERS
    assert {"u1", "u10", "u100", "%", "_", "用户1"} <= users
    customers = Counter(c for _, c in universe.scopes)
    assert customers.most_common(1)[0][1] > 20  # the same customer id under many users
    assert any(a != b and b.startswith(a) for a in users for b in users)


def test_prefix_colliding_users_stay_apart(populated: tuple[BaseStore, Universe]) -> None:
    store, universe = populated
    users = sorted({u for u, _ in universe.scopes})
    pairs = [(a, b) for a in users for b in users if a != b and b.startswith(a)]
    for short, _long in pairs:
        items = store.search(namespace(short), query="rollout budget", limit=50)
        assert items, f"no results for {short!r}: the check would be vacuous"
        assert all(item.namespace[1] == short for item in items)
        assert {_tag_of(i.value["content"]) for i in items} <= universe.user_tags[short]


def test_randomized_reads_never_cross_a_namespace(populated: tuple[BaseStore, Universe]) -> None:
    store, universe = populated
    rng = random.Random(SEED + 1)
    all_tags = list(universe.tags.values())
    weights = ScoreWeights(threshold=0.0)
    seen = Counter[str]()
    for _ in range(N_OPS):
        user, customer = rng.choice(universe.scopes)
        tag = universe.tags[(user, customer)]
        query = rng.choice(QUERIES)
        if rng.random() < 0.3:  # ask for another scope's marker by name
            query = f"{rng.choice(all_tags)} {query}"
        op = rng.random()
        if op < 0.3:
            result = recall_memories(
                store, user, customer, query, now=NOW, weights=weights,
                force_search=True, new_session=rng.random() < 0.3,
            )  # fmt: skip
            assert not result.degraded, result.errors
            assert all(_tag_of(i.content) == tag for i in result.items), (user, customer)
            seen["recall"] += len(result.items)
        elif op < 0.55:
            ns = namespace(user, customer, rng.choice(["facts", "profile"]))
            items = store.search(ns, query=query, limit=10)
            assert all(i.namespace == ns and _tag_of(i.value["content"]) == tag for i in items)
            seen["search"] += len(items)
        elif op < 0.65:
            items = store.search(namespace(user, customer), query=query, limit=10)
            assert all(i.namespace[:3] == namespace(user, customer) for i in items)
            assert all(_tag_of(i.value["content"]) == tag for i in items)
            seen["customer-prefix"] += len(items)
        elif op < 0.75:
            items = store.search(namespace(user), query=query, limit=10)
            assert all(i.namespace[:2] == namespace(user) for i in items)
            assert all(_tag_of(i.value["content"]) in universe.user_tags[user] for i in items)
            seen["user-prefix"] += len(items)
        elif op < 0.97:
            ns = namespace(user, customer, "facts")
            own = store.get(ns, rng.choice(["budget", "contact"]))
            assert own is not None and own.namespace == ns
            assert _tag_of(own.value["content"]) == tag
            other = rng.choice(all_tags)
            foreign = store.get(ns, f"only-{other}")
            assert foreign is None if other != tag else foreign is not None
            seen["get"] += 1
        else:
            listed = store.list_namespaces(prefix=namespace(user), limit=100)
            assert listed and all(ns[:2] == namespace(user) for ns in listed)
            seen["list"] += len(listed)
    # Every kind of read returned something: the assertions above were not vacuous.
    assert all(
        seen[kind] > 0
        for kind in ("recall", "search", "customer-prefix", "user-prefix", "get", "list")
    ), seen


def test_a_wildcard_id_is_refused() -> None:
    """LangGraph reads a '*' label in a namespace prefix as a wildcard, so '*' is no id."""
    from memagent.memory.namespaces import InvalidScopeError

    for args in (("*",), ("u1", "*"), ("*", "acme", "facts")):
        with pytest.raises(InvalidScopeError, match="wildcard"):
            namespace(*args)


def test_forgetting_a_wildcard_user_leaves_other_users_alone() -> None:
    from memagent.memory.memory_ops import forget
    from memagent.memory.namespaces import InvalidScopeError

    store = InMemoryStore()
    for user in ("alice", "bob"):
        record = MemoryRecord(content=f"{user} budget is 3 million", last_accessed_at=NOW)
        store.put(namespace(user, "acme", "facts"), "budget", record.to_store())
    with pytest.raises(InvalidScopeError):
        forget(store, "*")
    for user in ("alice", "bob"):
        assert store.get(namespace(user, "acme", "facts"), "budget") is not None, user
