"""Labelled extraction sets: load and check a file, version 1 or 2, into one shape.

Version 1 (``evals/data/extraction_dialogs.json``): each gold item is one list of
alternative strings (``match``); no split, no customer, no message time.

Version 2 (the labelled sales set): each dialog has a ``split`` (dev or holdout), a
``lang``, a ``customer``, the time ``now`` of the conversation (each turn may carry
its own ``at``), and gold items that need every one of their ``all`` groups (one
string of each group, so "1.2 million" AND "CNY"), with a ``category``; ``pending``
items the speaker marked uncertain, which must be kept only as unconfirmed; and
``stale`` strings no confirmed memory may contain.

A bad file raises ``DatasetError`` with one line that names the dialog and field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from memagent.memory.namespaces import namespace

CATEGORIES: tuple[str, ...] = (
    "stakeholder",
    "budget",
    "timeline",
    "requirement",
    "incumbent",
    "competitor",
    "contact_preference",
    "pain_point",
    "commitment",
    "deal_stage",
    "other",
)
SPLITS: tuple[str, ...] = ("dev", "holdout")
LANGS: tuple[str, ...] = ("en", "zh")
ROLES: tuple[str, ...] = ("user", "assistant")


class DatasetError(ValueError):
    """The labelled file cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class GoldItem:
    """One labelled fact: matched when every group has one string in the memory."""

    groups: tuple[tuple[str, ...], ...]
    category: str = "other"
    approx: bool = False
    fact: str = ""

    def describe(self) -> str:
        need = " AND ".join("|".join(g) for g in self.groups)
        return f"[{self.category}] {self.fact or need}"


@dataclass(frozen=True)
class Dialog:
    """One labelled dialog, whatever the file version."""

    id: str
    turns: tuple[Mapping[str, Any], ...]
    gold: tuple[GoldItem, ...]
    lang: str = "en"
    customer: str = ""
    split: str | None = None
    now: str = ""
    pending: tuple[GoldItem, ...] = ()
    stale: tuple[str, ...] = ()
    contradiction: bool = False
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dataset:
    version: int
    dialogs: tuple[Dialog, ...]
    description: str = ""


def load_dataset(path: Path) -> Dataset:
    """Read and check a labelled file (version 1 or 2)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    try:
        return parse_dataset(data)
    except DatasetError as exc:
        raise DatasetError(f"{path}: {exc}") from None


def parse_dataset(data: Any) -> Dataset:
    if isinstance(data, list):  # the first files were a bare list of v1 dialogs
        data = {"version": 1, "dialogs": data}
    if not isinstance(data, dict):
        raise DatasetError("expected a JSON object with version and dialogs")
    version = data.get("version")
    if version not in (1, 2) or isinstance(version, bool):
        raise DatasetError(f"unsupported version {version!r} (expected 1 or 2)")
    raw = data.get("dialogs")
    if not isinstance(raw, list) or not raw:
        raise DatasetError("'dialogs' must be a non-empty list")
    parse = _v1_dialog if version == 1 else _v2_dialog
    dialogs: list[Dialog] = []
    seen: set[str] = set()
    for i, d in enumerate(raw):
        where = f"dialog {d.get('id')!r}" if isinstance(d, dict) and d.get("id") else f"dialog #{i}"
        if not isinstance(d, dict):
            raise DatasetError(f"{where}: expected an object")
        try:
            dialog = parse(d)
        except DatasetError as exc:
            raise DatasetError(f"{where}: {exc}") from None
        if dialog.id in seen:
            raise DatasetError(f"{where}: duplicate id")
        seen.add(dialog.id)
        dialogs.append(dialog)
    return Dataset(int(version), tuple(dialogs), str(data.get("description", "")))


# -- fields --------------------------------------------------------------------------


def _text(d: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    v = d.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str) or not v.strip():
        raise DatasetError(f"'{key}' must be a non-empty string")
    return v


def _choice(d: Mapping[str, Any], key: str, options: Sequence[str]) -> str:
    v = d.get(key)
    if v not in options:
        raise DatasetError(f"'{key}' must be one of {', '.join(options)}, got {v!r}")
    return str(v)


def _time(v: Any, key: str) -> str:
    if not isinstance(v, str):
        raise DatasetError(f"'{key}' must be an ISO 8601 time string")
    try:
        t = datetime.fromisoformat(v)
    except ValueError:
        raise DatasetError(f"'{key}' is not an ISO 8601 time: {v!r}") from None
    if t.tzinfo is None:
        raise DatasetError(f"'{key}' needs a UTC offset: {v!r}")
    return v


def _strings(v: Any, what: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not v or not all(isinstance(s, str) and s.strip() for s in v):
        raise DatasetError(f"{what} must be a non-empty list of non-empty strings")
    return tuple(v)


def _turns(d: Mapping[str, Any], *, v2: bool) -> tuple[Mapping[str, Any], ...]:
    turns = d.get("turns")
    if not isinstance(turns, list) or not turns:
        raise DatasetError("'turns' must be a non-empty list")
    for j, t in enumerate(turns):
        if not isinstance(t, dict):
            raise DatasetError(f"turn {j}: expected an object")
        try:
            _choice(t, "role", ROLES)
            _text(t, "content")
            if v2 and t.get("at") is not None:
                _time(t["at"], "at")
        except DatasetError as exc:
            raise DatasetError(f"turn {j}: {exc}") from None
    if not any(t["role"] == "user" for t in turns):
        raise DatasetError("'turns' has no user turn")
    return tuple(turns)


def _items(d: Mapping[str, Any], key: str, *, required: bool) -> tuple[GoldItem, ...]:
    raw = d.get(key)
    if raw is None and not required:
        return ()
    if not isinstance(raw, list):
        raise DatasetError(f"'{key}' must be a list")
    items = []
    for j, g in enumerate(raw):
        where = f"{key}[{j}]"
        if not isinstance(g, dict):
            raise DatasetError(f"{where}: expected an object")
        groups = g.get("all")
        if not isinstance(groups, list) or not groups:
            raise DatasetError(f"{where}: 'all' must be a non-empty list of string lists")
        try:
            category = _choice(g, "category", CATEGORIES)
            parsed = tuple(_strings(grp, f"'all' group {k}") for k, grp in enumerate(groups))
        except DatasetError as exc:
            raise DatasetError(f"{where}: {exc}") from None
        approx = g.get("approx", False)
        if not isinstance(approx, bool):
            raise DatasetError(f"{where}: 'approx' must be true or false")
        fact = g.get("fact", "")
        items.append(GoldItem(parsed, category, approx, fact if isinstance(fact, str) else ""))
    return tuple(items)


def _stale(d: Mapping[str, Any]) -> tuple[str, ...]:
    raw = d.get("stale", [])
    if raw == []:
        return ()
    return _strings(raw, "'stale'")


def _v1_dialog(d: Mapping[str, Any]) -> Dialog:
    gold = d.get("gold")
    if not isinstance(gold, list):
        raise DatasetError("'gold' must be a list")
    items = []
    for j, g in enumerate(gold):
        if not isinstance(g, dict):
            raise DatasetError(f"gold[{j}]: expected an object")
        items.append(GoldItem((_strings(g.get("match"), f"gold[{j}] 'match'"),)))
    return Dialog(
        id=_text(d, "id"),
        turns=_turns(d, v2=False),
        gold=tuple(items),
        lang=str(d.get("lang", "en")),
        stale=_stale(d),
        contradiction=bool(d.get("contradiction")),
        tags=tuple(str(t) for t in d.get("tags", [])),
    )


def _v2_dialog(d: Mapping[str, Any]) -> Dialog:
    customer = _text(d, "customer")
    try:
        namespace("eval", customer)
    except ValueError as exc:
        raise DatasetError(f"'customer' is not a usable customer id: {exc}") from None
    if "now" not in d:
        raise DatasetError("'now' is missing")
    return Dialog(
        id=_text(d, "id"),
        turns=_turns(d, v2=True),
        gold=_items(d, "gold", required=True),
        lang=_choice(d, "lang", LANGS),
        customer=customer,
        split=_choice(d, "split", SPLITS),
        now=_time(d["now"], "now"),
        pending=_items(d, "pending", required=False),
        stale=_stale(d),
    )
