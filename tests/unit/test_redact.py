"""PII redaction over the positive and negative corpora, token stability and configuration."""

from __future__ import annotations

import io
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage

from memagent.core.redact import (
    ALL,
    BANK_CARD,
    CN_ID,
    EMAIL,
    PHONE,
    PLACEHOLDER_RE,
    RedactingFilter,
    cn_id_valid,
    load_or_create_key,
    luhn_valid,
    placeholder,
    redact,
    redact_messages,
)

DATA = Path(__file__).parents[1] / "data"
KEY = bytes(range(32))


def _load(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


POSITIVE = _load("pii_positive.jsonl")
NEGATIVE = _load("pii_negative.jsonl")


def test_corpora_are_big_enough_and_bilingual() -> None:
    for corpus in (POSITIVE, NEGATIVE):
        assert len(corpus) >= 40
        assert {row["lang"] for row in corpus} >= {"en", "zh"}
    assert {t for row in POSITIVE for t, _ in row["expect"]} == set(ALL)


@pytest.mark.parametrize("row", POSITIVE, ids=lambda r: r["text"][:40])
def test_positive_values_become_their_typed_tokens(row: dict[str, Any]) -> None:
    text = row["text"]
    result = redact(text, key=KEY)
    got = sorted((f.type, text[f.start : f.end]) for f in result.found)
    assert got == sorted((t, v) for t, v in row["expect"])
    for found in result.found:
        value = text[found.start : found.end]
        assert found.placeholder == placeholder(found.type, value, key=KEY)
        assert PLACEHOLDER_RE.fullmatch(found.placeholder)
        assert found.placeholder in result.text
        assert value not in result.text


@pytest.mark.parametrize("row", NEGATIVE, ids=lambda r: r["text"][:40])
def test_negative_texts_are_left_alone(row: dict[str, Any]) -> None:
    result = redact(row["text"], key=KEY)
    assert result.found == [], [row["text"][f.start : f.end] for f in result.found]
    assert result.text == row["text"]


SAME_VALUE = {
    "cn mobile": [
        "13800138000", "138 0013 8000", "138-0013-8000", "+86 138 0013 8000", "+8613800138000",
        "0086-138-0013-8000", "86 13800138000", "(+86) 13800138000", "１３８００１３８０００",
        "138\u200b0013\u200b8000",
    ],
    "cn landline": ["010-12345678", "(010) 1234 5678", "+86 10 1234 5678", "0086 10 12345678"],
    "us": ["+1 (415) 555-0100", "(415) 555-0100", "415-555-0100", "415.555.0100", "+1 415 555 0100"],
    "uk": ["+44 20 7946 0958", "+44 (0)20 7946 0958", "0044 20 7946 0958"],
    "email": ["Zhang.Wei@Example.com", "zhang.wei@example.com", "ZHANG.WEI@EXAMPLE.COM"],
    "card": ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111"],
    "id": ["11010519491231002X", "11010519491231002x"],
}  # fmt: skip


@pytest.mark.parametrize("group", SAME_VALUE, ids=str)
def test_same_value_in_any_format_maps_to_one_token(group: str) -> None:
    tokens = set()
    for spelling in SAME_VALUE[group]:
        result = redact(f"联系方式：{spelling}，谢谢", key=KEY)
        assert len(result.found) == 1, spelling
        tokens.add(result.found[0].placeholder)
    assert len(tokens) == 1, tokens


def test_different_values_and_keys_give_different_tokens() -> None:
    firsts = {
        group: redact(f"x {v[0]} y", key=KEY).found[0].placeholder
        for group, v in SAME_VALUE.items()
    }
    assert len(set(firsts.values())) == len(firsts)
    other_key = redact("x 13800138000 y", key=b"another key of 16+ bytes").found[0].placeholder
    assert other_key != firsts["cn mobile"]


ALL_FOUR = "Tel 13800138000, mail a@b.cn, ID 110101198001010053, card 4111 1111 1111 1111."


@pytest.mark.parametrize("enabled", [{PHONE}, {EMAIL}, {CN_ID}, {BANK_CARD}, set(), set(ALL)])
def test_each_type_can_be_switched_on_and_off(enabled: set[str]) -> None:
    result = redact(ALL_FOUR, key=KEY, types=frozenset(enabled))
    assert {f.type for f in result.found} == enabled
    clear = {PHONE: "13800138000", EMAIL: "a@b.cn", CN_ID: "110101198001010053",
             BANK_CARD: "4111 1111 1111 1111"}  # fmt: skip
    for kind, value in clear.items():
        assert (value in result.text) == (kind not in enabled)


def test_a_disabled_id_is_not_redacted_as_a_card_instead() -> None:
    both = "620102199001011057"  # a valid resident id that also passes Luhn
    assert cn_id_valid(both) and luhn_valid(both)
    assert redact(f"ID {both}", key=KEY).found[0].type == CN_ID
    assert redact(f"ID {both}", key=KEY, types=frozenset({BANK_CARD})).found == []


def test_redaction_is_idempotent() -> None:
    once = redact(ALL_FOUR, key=KEY).text
    assert redact(once, key=KEY).text == once


def test_bad_arguments_fail_clearly() -> None:
    with pytest.raises(ValueError, match="at least"):
        redact("x", key=b"short")
    with pytest.raises(ValueError, match="unknown PII types"):
        redact("x", key=KEY, types=frozenset({"ssn"}))
    with pytest.raises(TypeError):
        redact(b"13800138000", key=KEY)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789 -+()@.ab中x#,"), max_size=80))
def test_only_found_spans_change(text: str) -> None:
    result = redact(text, key=KEY)
    rebuilt, pos = [], 0
    for f in result.found:
        assert pos <= f.start < f.end
        rebuilt += [text[pos : f.start], f.placeholder]
        pos = f.end
    rebuilt.append(text[pos:])
    assert "".join(rebuilt) == result.text


def test_redact_messages_copies_langchain_and_dict_messages() -> None:
    human = HumanMessage("call me on 13800138000", id="h1")
    ai = AIMessage([{"type": "text", "text": "noted a@b.cn"}, "plain 4111111111111111"], id="a1")
    plain = {"role": "user", "content": "邮箱 a@b.cn"}
    out = redact_messages([human, ai, plain], key=KEY)
    assert "13800138000" not in out[0].content and out[0].id == "h1"
    assert "[EMAIL#" in out[1].content[0]["text"] and "[BANK_CARD#" in out[1].content[1]
    assert out[2]["content"].startswith("邮箱 [EMAIL#") and out[2]["role"] == "user"
    assert human.content == "call me on 13800138000"  # originals untouched
    with pytest.raises(TypeError):
        redact_messages([42], key=KEY)


def test_logging_filter_redacts_messages_args_and_tracebacks() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("memagent.test.redact")
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter(key=KEY))
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("customer phone %s", "+86 139 1234 5678")
        try:
            raise ValueError("bad email zhang@qiming.cn")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    assert "1234 5678" not in out and "zhang@qiming.cn" not in out
    assert "[PHONE#" in out and "[EMAIL#" in out and "ValueError" in out


def test_key_file_is_created_private_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "home" / "redact.key"
    key = load_or_create_key(path)
    assert len(key) == 32 and load_or_create_key(path) == key
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("not hex")
    with pytest.raises(ValueError, match="not hex"):
        load_or_create_key(path)


def test_the_install_key_is_one_file_under_the_home(tmp_path: Path) -> None:
    from memagent.core.redact import REDACTION_KEY_FILE, install_key, load_or_create_key

    key = install_key(tmp_path)
    assert key == install_key(tmp_path) == load_or_create_key(tmp_path / REDACTION_KEY_FILE)
