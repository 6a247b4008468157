"""The BaseStore contract (LangGraph semantics), run on every backend x sync/async."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any

import pytest
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from store_contract_helpers import DIMS, CountingEmbeddings, is_persistent, reference_fault

from memagent.stores.embeddings import hash_embeddings

# ------------------------------------------------------------------ basics


def test_put_get_roundtrip(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        value = {"text": "hello", "n": 3, "nested": {"a": [1, 2]}, "zh": "客户"}
        s.put(("users", "u1"), "k1", value)
        item = s.get(("users", "u1"), "k1")
        assert item is not None
        assert item.value == value
        assert item.namespace == ("users", "u1")
        assert item.key == "k1"
        assert isinstance(item.created_at, datetime) and item.created_at.tzinfo is not None
        assert item.updated_at >= item.created_at


def test_get_missing_returns_none(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        assert s.get(("nobody",), "nothing") is None
        s.put(("a",), "k", {"x": 1})
        assert s.get(("a",), "other") is None
        assert s.get(("b",), "k") is None


def test_put_overwrites_and_delete_removes(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        s.put(("a",), "k", {"v": 1})
        s.put(("a",), "k", {"v": 2})
        assert s.get(("a",), "k").value == {"v": 2}
        s.delete(("a",), "k")
        assert s.get(("a",), "k") is None
        assert s.search(("a",)) == []
        s.delete(("a",), "never-existed")  # deleting a missing key is fine


def test_put_keeps_created_at_and_moves_updated_at(make_store, api, backend) -> None:
    with make_store() as store:
        s = api(store)
        s.put(("a",), "k", {"v": 1})
        first = s.get(("a",), "k")
        time.sleep(0.01)
        s.put(("a",), "k", {"v": 2})
        second = s.get(("a",), "k")
        assert second.updated_at > first.updated_at
        reference_fault(backend, "put resets created_at")
        assert second.created_at == first.created_at


# ------------------------------------------------------------------ namespaces


@pytest.mark.parametrize(
    "bad",
    [(), ("a.b",), ("",), ("ok", ""), ("langgraph", "x"), ("a", 1)],
    ids=["empty", "dot", "empty-label", "empty-inner", "root-langgraph", "non-str"],
)
def test_put_rejects_invalid_namespace(make_store, api, bad) -> None:
    with make_store() as store, pytest.raises(InvalidNamespaceError):
        api(store).put(bad, "k", {"v": 1})


@pytest.mark.parametrize("bad", [("a.b",), ("",), ("a", "")])
def test_reads_reject_invalid_labels(make_store, api, bad) -> None:
    with make_store() as store:
        s = api(store)
        with pytest.raises(InvalidNamespaceError):
            s.get(bad, "k")
        with pytest.raises(InvalidNamespaceError):
            s.search(bad)
        with pytest.raises(InvalidNamespaceError):
            s.list_namespaces(prefix=bad)


def test_prefix_is_per_label_not_string_prefix(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        s.put(("u1", "c"), "a", {"v": 1})
        s.put(("u10", "c"), "b", {"v": 2})
        s.put(("u1x",), "c", {"v": 3})
        assert [i.key for i in s.search(("u1",))] == ["a"]
        assert {i.key for i in s.search(("u10",))} == {"b"}
        assert s.list_namespaces(prefix=("u1",)) == [("u1", "c")]


@pytest.mark.parametrize("special", ["%", "_", "*", "u%", "u_1"])
def test_special_characters_in_labels_are_literal(make_store, api, special) -> None:
    with make_store() as store:
        s = api(store)
        s.put((special, "x"), "k1", {"v": 1})
        s.put(("u1", "x"), "k2", {"v": 2})
        s.put(("uu1", "x"), "k3", {"v": 3})
        assert [i.key for i in s.search((special,))] == ["k1"]
        assert s.get((special, "x"), "k1").value == {"v": 1}


LANGGRAPH_NAMESPACES = [
    ("a", "b", "c"),
    ("a", "b", "d", "e"),
    ("a", "b", "d", "i"),
    ("a", "b", "f"),
    ("a", "c", "f"),
    ("b", "a", "f"),
    ("users", "123"),
    ("users", "456", "settings"),
    ("admin", "users", "789"),
]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, sorted(LANGGRAPH_NAMESPACES)),
        (
            {"prefix": ("a", "b")},
            [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")],
        ),
        ({"suffix": ("f",)}, [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]),
        ({"prefix": ("a",), "suffix": ("f",)}, [("a", "b", "f"), ("a", "c", "f")]),
        ({"prefix": ("a", "*", "f")}, [("a", "b", "f"), ("a", "c", "f")]),
        ({"suffix": ("*", "f")}, [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]),
        (
            {"prefix": ("a", "b"), "max_depth": 3},
            [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")],
        ),
        ({"max_depth": 1}, [("a",), ("admin",), ("b",), ("users",)]),
        ({"limit": 3}, sorted(LANGGRAPH_NAMESPACES)[:3]),
        ({"limit": 3, "offset": 3}, sorted(LANGGRAPH_NAMESPACES)[3:6]),
        ({"prefix": ("users",)}, [("users", "123"), ("users", "456", "settings")]),
        ({"prefix": ("nope",)}, []),
    ],
)
def test_list_namespaces(make_store, api, kwargs, expected) -> None:
    with make_store() as store:
        s = api(store)
        s.batch([PutOp(ns, "k", {"v": 1}) for ns in LANGGRAPH_NAMESPACES])
        assert s.list_namespaces(**kwargs) == expected


def test_list_namespaces_forgets_deleted(make_store, api, backend) -> None:
    reference_fault(backend, "an emptied namespace is still listed")
    with make_store() as store:
        s = api(store)
        s.put(("x", "y"), "k", {"v": 1})
        s.delete(("x", "y"), "k")
        assert s.list_namespaces(prefix=("x",)) == []


# ------------------------------------------------------------------ search & filters


def _seed_filter_items(s: Any) -> None:
    s.put(("f",), "a", {"color": "red", "score": 4.5, "n": 1, "meta": {"tier": "gold"}})
    s.put(("f",), "b", {"color": "blue", "score": 3.0, "n": 2, "meta": {"tier": "silver"}})
    s.put(("f",), "c", {"color": "red", "score": 1.5, "n": 3, "meta": {"tier": "gold"}})
    s.put(("f",), "d", {"color": ["red", "blue"], "score": 9.0, "n": 4})


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"color": "red"}, {"a", "c"}),
        ({"color": {"$eq": "blue"}}, {"b"}),
        ({"color": {"$ne": "red"}}, {"b", "d"}),
        ({"score": {"$gt": 3.0}}, {"a", "d"}),
        ({"score": {"$gte": 3.0}}, {"a", "b", "d"}),
        ({"score": {"$lt": 3.0}}, {"c"}),
        ({"score": {"$lte": 3.0}}, {"b", "c"}),
        ({"score": {"$gt": 1.0, "$lt": 4.0}}, {"b", "c"}),
        ({"n": 2}, {"b"}),
        ({"meta": {"tier": "gold"}}, {"a", "c"}),
        ({"color": "red", "n": {"$gte": 3}}, {"c"}),
        ({"color": ["red", "blue"]}, {"d"}),
        ({"missing": "x"}, set()),
    ],
)
def test_search_filters(make_store, api, flt, expected) -> None:
    with make_store() as store:
        s = api(store)
        _seed_filter_items(s)
        assert {i.key for i in s.search(("f",), filter=flt)} == expected


def test_filter_combined_with_query(make_store, api, index) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(("q",), "a", {"text": "red apples from the orchard", "kind": "fruit"})
        s.put(("q",), "b", {"text": "red sports car", "kind": "car"})
        s.put(("q",), "c", {"text": "green apples", "kind": "fruit"})
        found = s.search(("q",), query="red apples from the orchard", filter={"kind": "fruit"})
        assert [i.key for i in found][:1] == ["a"]
        assert {i.key for i in found} == {"a", "c"}


def test_pagination_without_query_is_stable_and_complete(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        s.batch([PutOp(("p",), f"k{i:02d}", {"i": i}) for i in range(25)])
        pages = [s.search(("p",), limit=10, offset=o) for o in (0, 10, 20)]
        keys = [i.key for page in pages for i in page]
        assert [len(p) for p in pages] == [10, 10, 5]
        assert sorted(keys) == [f"k{i:02d}" for i in range(25)]
        assert [i.key for i in s.search(("p",), limit=10, offset=10)] == [i.key for i in pages[1]]
        assert all(i.score is None for i in pages[0])


def test_query_scores_present_and_descending(make_store, api, index) -> None:
    with make_store(index=index) as store:
        s = api(store)
        texts = ["blue whale swims", "blue sky today", "red car fast", "whale song recording"]
        for i, t in enumerate(texts):
            s.put(("d",), f"k{i}", {"text": t})
        found = s.search(("d",), query="blue whale", limit=4)
        assert len(found) == 4
        scores = [i.score for i in found]
        assert all(isinstance(x, float) for x in scores)
        assert scores == sorted(scores, reverse=True)
        assert found[0].key == "k0"
        page2 = s.search(("d",), query="blue whale", limit=2, offset=2)
        assert [i.key for i in page2] == [i.key for i in found[2:]]


def test_query_without_index_lists_without_scores(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        s.put(("n",), "a", {"text": "anything"})
        found = s.search(("n",), query="anything")
        assert [i.key for i in found] == ["a"]
        assert found[0].score is None


def test_index_false_item_lists_but_has_no_score(make_store, api, index) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(("i",), "indexed", {"text": "quarterly budget review"})
        s.put(("i",), "hidden", {"text": "quarterly budget review"}, index=False)
        assert {i.key for i in s.search(("i",))} == {"indexed", "hidden"}
        found = s.search(("i",), query="quarterly budget review", limit=5)
        assert found[0].key == "indexed" and found[0].score is not None
        tail = [i for i in found if i.key == "hidden"]
        assert len(tail) == 1 and tail[0].score is None
        assert [i.key for i in s.search(("i",), query="quarterly budget review", limit=1)] == [
            "indexed"
        ]


def test_per_put_index_fields_override(make_store, api, embeddings) -> None:
    index = {"dims": 64, "embed": embeddings, "fields": ["text"]}
    with make_store(index=index) as store:
        s = api(store)
        s.put(
            ("o",), "a", {"text": "alpha beta", "other": "zebra crossing stripes"}, index=["other"]
        )
        s.put(("o",), "b", {"text": "zebra crossing stripes", "other": "nothing here"})
        s.put(("o",), "c", {"text": "gamma delta"})
        found = s.search(("o",), query="zebra crossing stripes", limit=3)
        top_two = {i.key for i in found[:2]}
        assert top_two == {"a", "b"}
        assert "zebra crossing stripes" in [t for call in embeddings.document_calls for t in call]


def test_multiple_fields_score_as_best_field(make_store, api, embeddings) -> None:
    index = {"dims": 64, "embed": embeddings, "fields": ["title", "body"]}
    with make_store(index=index) as store:
        s = api(store)
        s.put(("m",), "a", {"title": "unrelated heading", "body": "penguins live in antarctica"})
        s.put(("m",), "b", {"title": "cooking pasta", "body": "boil water with salt"})
        s.put(("m",), "c", {"title": "stock market", "body": "shares fell today"})
        found = s.search(("m",), query="penguins live in antarctica", limit=3)
        assert found[0].key == "a"


def test_array_paths_index_each_element(make_store, api, embeddings) -> None:
    index = {"dims": 64, "embed": embeddings, "fields": ["notes[*].text"]}
    with make_store(index=index) as store:
        s = api(store)
        s.put(
            ("arr",),
            "a",
            {"notes": [{"text": "unrelated words"}, {"text": "volcano eruption ash"}]},
        )
        s.put(("arr",), "b", {"notes": [{"text": "garden flowers bloom"}]})
        assert s.search(("arr",), query="volcano eruption ash", limit=2)[0].key == "a"


# ------------------------------------------------------------------ batch


def test_batch_results_align_with_ops(make_store, api) -> None:
    with make_store() as store:
        s = api(store)
        s.put(("b",), "existing", {"v": 0})
        results = s.batch(
            [
                PutOp(("b",), "new", {"v": 1}),
                GetOp(("b",), "existing"),
                SearchOp(("b",)),
                ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("b",)),)),
                GetOp(("b",), "missing"),
                PutOp(("b",), "existing", None),
            ]
        )
        assert len(results) == 6
        assert results[0] is None and results[5] is None
        assert results[1].value == {"v": 0}
        assert [i.key for i in results[2]] == ["existing"]  # reads see the pre-batch state
        assert results[3] == [("b",)]
        assert results[4] is None
        assert s.get(("b",), "new").value == {"v": 1}
        assert s.get(("b",), "existing") is None


def test_same_key_puts_in_one_batch_are_deduplicated(make_store, api, index, embeddings) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.batch(
            [
                PutOp(("dd",), "k", {"text": "first version"}),
                PutOp(("dd",), "k", {"text": "second version"}),
            ]
        )
        assert s.get(("dd",), "k").value == {"text": "second version"}
        embedded = [t for call in embeddings.document_calls for t in call]
        assert embedded == ["second version"]
        assert len(s.search(("dd",))) == 1


def test_one_embedding_call_per_batch(make_store, api, index, embeddings) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.batch([PutOp(("e",), f"k{i}", {"text": f"fact number {i}"}) for i in range(7)])
        assert len(embeddings.document_calls) == 1
        assert sorted(embeddings.document_calls[0]) == sorted(f"fact number {i}" for i in range(7))


def test_identical_texts_in_one_batch(make_store, api, index, backend) -> None:
    reference_fault(backend, "identical texts in one batch raise a count mismatch")
    with make_store(index=index) as store:
        s = api(store)
        s.batch(
            [
                PutOp(("same",), "a", {"text": "same words"}),
                PutOp(("same",), "b", {"text": "same words"}),
            ]
        )
        found = s.search(("same",), query="same words")
        assert {i.key for i in found} == {"a", "b"}
        assert all(i.score is not None for i in found)


def test_unknown_filter_operator_is_rejected(make_store, api, backend) -> None:
    with make_store() as store:
        s = api(store)
        s.put(("x",), "k", {"n": 1})
        with pytest.raises(ValueError):
            s.search(("x",), filter={"n": {"$regex": "1"}})


def test_dotted_filter_key_is_a_nested_path(make_store, api, backend) -> None:
    # LangGraph's SQL stores (and InMemoryStore since upstream fixed it) read
    # "a.b" in a filter as value["a"]["b"]; keys with '-' or a leading digit too
    reference_fault(backend, "the installed InMemoryStore reads a dotted key literally")
    with make_store() as store:
        s = api(store)
        s.put(("dot",), "one", {"owner": {"team-id": "t1", "2nd": 2}})
        s.put(("dot",), "two", {"owner": {"team-id": "t2", "2nd": 5}})
        s.put(("dot",), "flat", {"owner": "t1"})
        assert [i.key for i in s.search(("dot",), filter={"owner.team-id": "t1"})] == ["one"]
        found = s.search(("dot",), filter={"owner.2nd": {"$gte": 3}})
        assert [i.key for i in found] == ["two"]
        assert s.search(("dot",), filter={"owner.missing": "t1"}) == []


# ------------------------------------------------------------------ TTL


def _skip_reference_ttl(backend: str) -> None:
    if backend == "reference":
        pytest.skip("InMemoryStore does not support TTL")


def test_expired_item_is_never_returned_even_before_sweep(make_store, api, backend) -> None:
    _skip_reference_ttl(backend)
    with make_store() as store:
        s = api(store)
        s.put(("t",), "short", {"v": 1}, ttl=0.005)  # 0.3 s
        s.put(("t",), "long", {"v": 2}, ttl=10)
        assert s.get(("t",), "short") is not None
        time.sleep(0.5)
        assert s.get(("t",), "short") is None
        assert [i.key for i in s.search(("t",))] == ["long"]
        assert s.list_namespaces(prefix=("t",)) == [("t",)]
        assert store.sweep_ttl() == 1


def test_default_ttl_and_refresh_on_read(make_store, api, backend) -> None:
    _skip_reference_ttl(backend)
    with make_store(ttl={"default_ttl": 0.02, "refresh_on_read": True}) as store:  # 1.2 s
        s = api(store)
        s.put(("t",), "read", {"v": 1})
        s.put(("t",), "unread", {"v": 2})
        s.put(("t",), "forever", {"v": 3}, ttl=None)
        time.sleep(0.8)
        assert s.get(("t",), "read") is not None  # refreshes: expires 1.2 s from now
        time.sleep(0.8)
        assert s.get(("t",), "read", refresh_ttl=False) is not None
        assert s.get(("t",), "unread") is None
        assert s.get(("t",), "forever") is not None


def test_reads_extend_ttl_only_when_the_store_opts_in(make_store, api, backend) -> None:
    # as in LangGraph's SQL stores: without refresh_on_read in the store's ttl
    # config, no read (not even refresh_ttl=True) pushes the expiry back
    _skip_reference_ttl(backend)
    with make_store(ttl={"default_ttl": 0.015}) as store:  # 0.9 s
        s = api(store)
        s.put(("t",), "k", {"v": 1})
        time.sleep(0.6)
        assert s.get(("t",), "k") is not None
        assert s.get(("t",), "k", refresh_ttl=True) is not None
        assert [i.key for i in s.search(("t",), refresh_ttl=True)] == ["k"]
        time.sleep(0.5)  # past the original expiry, before a refreshed one
        assert s.get(("t",), "k") is None


def test_sweeper_thread_removes_expired(make_store, backend) -> None:
    _skip_reference_ttl(backend)
    with make_store() as store:
        store.put(("t",), "k", {"v": 1}, ttl=0.001)
        done = store.start_ttl_sweeper(sweep_interval_minutes=0.002)
        time.sleep(0.6)
        assert store.stop_ttl_sweeper(timeout=5)
        assert done.done()
        assert store.sweep_ttl() == 0  # the thread already swept it


# ------------------------------------------------------------------ persistence & threads


def test_persistence_across_reopen(make_store, backend, index) -> None:
    if not is_persistent(backend):
        pytest.skip("not a persistent backend")
    with make_store(index=index) as store:
        store.put(("p", "u"), "k", {"text": "invoice PO-2026-118734 is overdue"})
        created = store.get(("p", "u"), "k").created_at
    with make_store(index=index) as store:
        item = store.get(("p", "u"), "k")
        assert item is not None and item.created_at == created
        assert [i.key for i in store.search(("p",), query="PO-2026-118734")] == ["k"]
        assert store.list_namespaces() == [("p", "u")]


def test_concurrent_writers_in_threads(make_store, backend) -> None:
    with make_store() as store:
        errors: list[BaseException] = []

        def writer(t: int) -> None:
            try:
                for i in range(25):
                    store.put(("c", f"t{t}"), f"k{i}", {"t": t, "i": i})
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        assert len(store.search(("c",), limit=1000)) == 100
        assert store.list_namespaces(prefix=("c",)) == [("c", f"t{t}") for t in range(4)]


def test_put_with_ttl_on_store_without_ttl_support_raises(backend) -> None:
    if backend != "reference":
        pytest.skip("only the reference lacks TTL")
    from langgraph.store.memory import InMemoryStore

    with pytest.raises(NotImplementedError):
        InMemoryStore().put(("a",), "k", {"v": 1}, ttl=1)


def test_embedder_called_with_query(make_store, api, index, embeddings: CountingEmbeddings) -> None:
    with make_store(index=index) as store:
        s = api(store)
        s.put(("eq",), "k", {"text": "hello world"})
        s.search(("eq",), query="hello")
        assert "hello" in embeddings.query_calls


class _PlainEmbedder:
    """Has embed_documents/embed_query but is not an ``Embeddings`` (LangGraph's
    own tests pass such an object)."""

    dims = DIMS

    def __init__(self) -> None:
        self.inner = hash_embeddings(DIMS)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def test_duck_typed_embedder_is_accepted(make_store, api, backend) -> None:
    reference_fault(backend, "the installed InMemoryStore calls a duck-typed embedder")
    with make_store(index={"dims": DIMS, "embed": _PlainEmbedder(), "fields": ["text"]}) as store:
        s = api(store)
        s.put(("duck",), "a", {"text": "quarterly invoice overdue"})
        s.put(("duck",), "b", {"text": "birthday party on friday"})
        found = s.search(("duck",), query="quarterly invoice overdue")
        assert found[0].key == "a" and found[0].score is not None
