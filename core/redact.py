"""PII redaction: phone numbers, emails, CN resident ids and bank cards become keyed tokens.

Redaction runs before anything is stored or logged. Each value is replaced by a typed
placeholder such as ``[PHONE#3fa2]`` whose tag is an HMAC of the value's canonical form
(E.164 for phones, digits for ids and cards, lowercase for emails), so the same number maps
to the same token however it was written, and can be matched later without keeping it.
The key is a per-install secret (see ``load_or_create_key``); no secret lives in the code.

Detection errs towards leaving numbers alone (``pii_detect`` says how); the key lives in
``redaction_key``. Both are re-exported here, the one import path for redaction.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memagent.core.pii_detect import (
    ALL,
    BANK_CARD,
    CN_ID,
    EMAIL,
    PHONE,
    cn_id_valid,
    fold,
    luhn_valid,
    normalise,
    spans,
)
from memagent.core.redaction_key import (
    MIN_KEY_BYTES,
    REDACTION_KEY_FILE,
    install_key,
    load_or_create_key,
    process_key,
)

__all__ = [
    "ALL",
    "BANK_CARD",
    "CN_ID",
    "EMAIL",
    "LABELS",
    "MIN_KEY_BYTES",
    "PHONE",
    "PLACEHOLDER_RE",
    "REDACTED_MARK",
    "REDACTION_KEY_FILE",
    "TAG_HEX",
    "Found",
    "RedactingFilter",
    "Redaction",
    "cn_id_valid",
    "install_key",
    "load_or_create_key",
    "luhn_valid",
    "placeholder",
    "process_key",
    "redact",
    "redact_messages",
    "redact_record",
]

LABELS = {PHONE: "PHONE", EMAIL: "EMAIL", CN_ID: "CN_ID", BANK_CARD: "BANK_CARD"}
TAG_HEX = 8
PLACEHOLDER_RE = re.compile(rf"\[(PHONE|EMAIL|CN_ID|BANK_CARD)#[0-9a-f]{{{TAG_HEX}}}\]")


@dataclass(frozen=True, slots=True)
class Found:
    """One redacted value: its type, its placeholder and its span in the original text."""

    type: str
    placeholder: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Redaction:
    text: str
    found: list[Found]


def placeholder(kind: str, value: str, *, key: bytes) -> str:
    """The token for ``value``: the same for every spelling of the same number or address."""
    message = f"{kind}:{normalise(kind, fold(value))}".encode()
    tag = hmac.new(key, message, hashlib.sha256).hexdigest()[:TAG_HEX]
    return f"[{LABELS[kind]}#{tag}]"


def _check_args(key: bytes, types: frozenset[str]) -> None:
    if not isinstance(key, bytes) or len(key) < MIN_KEY_BYTES:
        raise ValueError(f"redaction key must be at least {MIN_KEY_BYTES} bytes")
    unknown = set(types) - ALL
    if unknown:
        raise ValueError(f"unknown PII types {sorted(unknown)}; expected some of {sorted(ALL)}")


def redact(text: str, *, key: bytes, types: frozenset[str] = ALL) -> Redaction:
    """Replace every enabled PII value in ``text`` by its placeholder.

    All detectors run even when a type is disabled, so a disabled type's value keeps its span
    and is left in clear rather than being re-read as another type (an id as a card).
    """
    if not isinstance(text, str):
        raise TypeError(f"redact expects str, got {type(text).__name__}")
    _check_args(key, types)
    folded = fold(text)
    hits = sorted((s for s in spans(folded) if s[0] in types), key=lambda s: s[1])
    parts: list[str] = []
    found: list[Found] = []
    pos = 0
    for kind, start, end in hits:
        token = placeholder(kind, text[start:end], key=key)
        parts += [text[pos:start], token]
        found.append(Found(kind, token, start, end))
        pos = end
    parts.append(text[pos:])
    return Redaction("".join(parts), found)


def redact_messages(
    messages: Sequence[Any], *, key: bytes, types: frozenset[str] = ALL
) -> list[Any]:
    """Copies of chat messages (LangChain messages or role/content dicts) with text redacted.

    Only message text is touched; ids, roles and tool-call pairing stay as they were.
    """
    _check_args(key, types)

    def text_of(value: Any) -> Any:
        if isinstance(value, str):
            return redact(value, key=key, types=types).text
        if isinstance(value, list):
            return [text_of(part) for part in value]
        if isinstance(value, dict) and isinstance(value.get("text"), str):
            return {**value, "text": text_of(value["text"])}
        return value

    out: list[Any] = []
    for message in messages:
        if isinstance(message, dict):
            out.append({**message, "content": text_of(message.get("content"))})
        elif hasattr(message, "model_copy") and hasattr(message, "content"):
            out.append(message.model_copy(update={"content": text_of(message.content)}))
        else:
            raise TypeError(f"cannot redact message of type {type(message).__name__}")
    return out


REDACTED_MARK = "memagent_redacted"


def redact_record(record: logging.LogRecord, *, key: bytes, types: frozenset[str] = ALL) -> None:
    """Redact a log record in place: its formatted message, traceback and stack.

    The message is formatted once and the args dropped, so no handler can format the raw
    values again; the traceback is formatted into ``exc_text``, which formatters prefer to
    ``exc_info``. A record already redacted is left alone. Never raises for a bad format
    string: the message and args are then redacted as they stand.
    """
    if getattr(record, REDACTED_MARK, False):
        return
    try:
        message = record.getMessage()
    except Exception:  # logging reports bad args at emit time; a log call must not raise here
        message = f"{record.msg} {record.args!r}"
    record.msg = redact(message, key=key, types=types).text
    record.args = None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text, key=key, types=types).text
    if record.stack_info:
        record.stack_info = redact(record.stack_info, key=key, types=types).text
    setattr(record, REDACTED_MARK, True)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts the formatted message and any traceback of a record."""

    def __init__(self, *, key: bytes, types: frozenset[str] = ALL, name: str = "") -> None:
        super().__init__(name)
        _check_args(key, types)
        self._key = key
        self._types = types

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record, key=self._key, types=self._types)
        return True
