"""Keyword tokenizer: English, Chinese, identifiers, options."""

from __future__ import annotations

import pytest

from memagent.stores.tokenize import TokenizerConfig, tokenize


def test_lowercases_and_drops_stopwords() -> None:
    assert tokenize("The Customer and THE order", TokenizerConfig(stem=None)) == [
        "customer",
        "order",
    ]


def test_english_words_are_stemmed_by_default() -> None:
    assert tokenize("Melanie painted two sunsets at the meetings") == [
        "melani",
        "paint",
        "two",
        "sunset",
        "meet",
    ]
    # question and memory meet although they inflect the word differently
    assert set(tokenize("Which painting did she finish?")) & set(tokenize("I paint lakes"))


def test_stemming_leaves_identifiers_numbers_and_chinese_exact() -> None:
    toks = tokenize("Shipping XJ-2000s and PO-2026-118734 on orders 订单号")
    assert "ship" in toks and "order" in toks
    assert {"xj-2000s", "xj2000s", "2000s", "po-2026-118734", "po2026118734", "118734"} <= set(toks)
    assert {"订单", "订单号"} <= set(toks)
    assert tokenize("XJ-2000") == tokenize("XJ-2000", TokenizerConfig(stem=None))


def test_stop_words_apply_before_stemming() -> None:
    # "being" is a stop word; its stem "be" must not sneak in as a token
    assert tokenize("being there", TokenizerConfig(stopwords=frozenset({"being"}))) == ["there"]
    assert tokenize("beings", TokenizerConfig(stopwords=frozenset({"being"}))) == ["be"]


def test_stemming_is_an_option_with_its_own_signature() -> None:
    assert tokenize("meetings", TokenizerConfig(stem=None)) == ["meetings"]
    assert TokenizerConfig(stem=None).signature != TokenizerConfig().signature
    assert tokenize("réunions", TokenizerConfig(stem="french")) == ["réunion"]


def test_identifier_kept_whole_split_and_joined() -> None:
    toks = tokenize("Ship XJ-2000 today")
    assert "xj-2000" in toks and "xj" in toks and "2000" in toks and "xj2000" in toks
    toks = tokenize("PO-2026-118734")
    assert toks[:4] == ["po-2026-118734", "po", "2026", "118734"]
    assert "po2026118734" in toks


def test_trailing_punctuation_is_not_part_of_identifier() -> None:
    assert "xj-2000" in tokenize("We need XJ-2000.")
    assert "xj-2000." not in tokenize("We need XJ-2000.")


def test_words_without_digits_are_not_joined() -> None:
    toks = tokenize("state-of-the-art pump")
    assert "state-of-the-art" in toks and "stateoftheart" not in toks


def test_full_width_characters_are_normalised() -> None:
    assert "xj-2000" in tokenize("ＸＪ－２０００")


def test_chinese_is_cut_into_words_in_search_mode() -> None:
    toks = tokenize("客户的订单号是PO-2026-118734")
    assert "客户" in toks and "订单" in toks and "订单号" in toks
    assert "的" not in toks and "是" not in toks
    assert "po-2026-118734" in toks


def test_exact_chinese_mode_is_coarser() -> None:
    fine = tokenize("订单号", TokenizerConfig(chinese="search"))
    coarse = tokenize("订单号", TokenizerConfig(chinese="exact"))
    assert set(coarse) <= set(fine) and len(coarse) < len(fine)


def test_options_switch_identifier_forms() -> None:
    cfg = TokenizerConfig(keep_identifiers=False, join_identifiers=False)
    assert tokenize("XJ-2000", cfg) == ["xj", "2000"]
    cfg = TokenizerConfig(split_identifiers=False, join_identifiers=False)
    assert tokenize("XJ-2000", cfg) == ["xj-2000"]
    cfg = TokenizerConfig(keep_identifiers=False, split_identifiers=False, join_identifiers=False)
    assert tokenize("XJ-2000", cfg) == ["xj", "2000"]  # never loses the words


def test_custom_stopwords_and_min_length() -> None:
    cfg = TokenizerConfig(stopwords=frozenset({"pump"}), min_length=3)
    assert tokenize("a big pump is ok", cfg) == ["big"]


def test_signature_changes_with_options() -> None:
    assert TokenizerConfig().signature == TokenizerConfig().signature
    assert TokenizerConfig().signature != TokenizerConfig(chinese="exact").signature


def test_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("?!… —,。") == []


def test_bad_options_raise() -> None:
    with pytest.raises(ValueError):
        TokenizerConfig(chinese="fast")
    with pytest.raises(ValueError):
        TokenizerConfig(min_length=0)
    with pytest.raises(ValueError, match="stemmer"):
        TokenizerConfig(stem="klingon")
