"""Fusion of dense and keyword scores."""

from __future__ import annotations

import pytest

from memagent.stores.fusion import (
    FusionConfig,
    HybridConfig,
    fuse,
    normalize_dense,
    normalize_keyword,
    rrf_scores,
)


def test_normalize_dense_rescales_and_clamps() -> None:
    assert normalize_dense(0.5) == 0.5
    assert normalize_dense(-0.3) == 0.0
    assert normalize_dense(0.85, floor=0.7) == pytest.approx(0.5)
    assert normalize_dense(1.2) == 1.0


def test_normalize_keyword_max_and_saturate() -> None:
    assert normalize_keyword({"a": 4.0, "b": 1.0, "c": 0.0}) == {"a": 1.0, "b": 0.25, "c": 0.0}
    sat = normalize_keyword({"a": 5.0}, "saturate", 5.0)
    assert sat == {"a": 0.5}
    assert normalize_keyword({"a": 0.0}) == {"a": 0.0}


def test_rrf_top_in_both_lists_is_one() -> None:
    s = rrf_scores([["a", "b"], ["a", "c"]], [1.0, 1.0], k=60)
    assert s["a"] == pytest.approx(1.0)
    assert s["b"] == pytest.approx(s["c"]) and s["b"] < s["a"]


def test_weighted_fusion_combines_both_sides() -> None:
    cfg = FusionConfig(dense_weight=0.5, keyword_weight=0.5)
    out = fuse({"a": 0.9, "b": 0.8}, {"b": 3.0, "c": 1.5}, cfg)
    by_id = {f.id: f for f in out}
    assert by_id["b"].relevance == pytest.approx((0.8 + 1.0) / 2)
    assert by_id["a"].relevance == pytest.approx(0.9 / 2)
    assert by_id["c"].relevance == pytest.approx(0.5 / 2)
    assert [f.id for f in out] == ["b", "a", "c"]
    assert by_id["c"].dense is None and by_id["a"].keyword is None


def test_single_mode_drops_the_other_weight() -> None:
    out = fuse({"a": 0.6}, {}, FusionConfig(), use_keyword=False)
    assert out[0].relevance == pytest.approx(0.6)
    out = fuse({}, {"k": 2.0, "j": 1.0}, FusionConfig(), use_dense=False)
    assert [f.relevance for f in out] == [1.0, 0.5]


def test_rrf_method_ranks_by_position() -> None:
    cfg = FusionConfig(method="rrf")
    out = fuse({"a": 0.9, "b": 0.1}, {"b": 9.0}, cfg)
    assert out[0].id == "b"
    assert all(0.0 <= f.relevance <= 1.0 for f in out)


def test_ties_keep_dense_order_first() -> None:
    out = fuse({"x": 0.5, "y": 0.5}, {}, FusionConfig())
    assert [f.id for f in out] == ["x", "y"]


def test_unrelated_query_stays_low_with_weighted_but_not_rrf() -> None:
    dense = {"a": 0.05, "b": 0.02}
    assert fuse(dense, {}, FusionConfig())[0].relevance < 0.1
    assert fuse(dense, {}, FusionConfig(method="rrf"))[0].relevance > 0.4


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "max"},
        {"dense_weight": -1},
        {"dense_weight": 0, "keyword_weight": 0},
        {"dense_floor": 1.0},
        {"keyword_norm": "log"},
        {"keyword_saturation": 0},
    ],
)
def test_bad_fusion_config_raises(kwargs) -> None:
    with pytest.raises(ValueError):
        FusionConfig(**kwargs)


def test_bad_hybrid_config_raises() -> None:
    with pytest.raises(ValueError):
        HybridConfig(dense_candidates=0)
    with pytest.raises(ValueError):
        HybridConfig(default_mode="fuzzy")  # type: ignore[arg-type]


def test_default_floor_is_the_embedders() -> None:
    base = HybridConfig()
    assert base.fusion.dense_floor is None
    assert base.for_embeddings(0.7).fusion.dense_floor == 0.7
    explicit = HybridConfig(fusion=FusionConfig(dense_floor=0.0))
    assert explicit.for_embeddings(0.7).fusion.dense_floor == 0.0  # an explicit floor wins
    # an unset floor fuses as 0: the cosine is used as it is
    assert fuse({"a": 0.8}, {}, FusionConfig(), use_keyword=False)[0].relevance == pytest.approx(
        0.8
    )


def test_floor_spreads_a_flat_cosine_band() -> None:
    dense, keyword = {"a": 0.86, "b": 0.74}, {"b": 4.0, "a": 2.0}
    flat = fuse(dense, keyword, FusionConfig(dense_floor=0.0))
    floored = fuse(dense, keyword, FusionConfig(dense_floor=0.7))
    assert [f.id for f in flat] == ["b", "a"]  # the band barely moves the ranking
    assert [f.id for f in floored] == ["a", "b"]  # rescaled, the dense gap counts


def test_embedders_declare_their_floor() -> None:
    from memagent.stores.embeddings import E5Embeddings, hash_embeddings, score_floor

    assert score_floor(E5Embeddings()) == 0.7  # class attribute: no model load
    assert score_floor(hash_embeddings(8)) == 0.0

    class Odd:
        score_floor = 1.5

    with pytest.raises(ValueError, match="score_floor"):
        score_floor(Odd())


@pytest.mark.parametrize("fields", ["context", ("",), ("$",)])
def test_bad_keyword_only_fields_raise(fields) -> None:
    with pytest.raises(ValueError, match="keyword_only_fields"):
        HybridConfig(keyword_only_fields=fields)
