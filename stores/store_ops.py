"""I/O-free building blocks of ``QdrantStore``: ids, payloads, filters, namespaces.

Everything here is a plain function over plain data so the sync and async
paths, and both engines, share it, and it is testable without an engine.

Payload of one item (point id = uuid5 of ``[namespace..., key]``). Few fields,
because the engine's Python binding pays ~10 us per payload field on every
write; what is never filtered on is packed into one JSON string ``doc``::

    ns_0 .. ns_k  one keyword field per namespace label (payload-indexed):
                  a prefix search is an exact match on each label, never a
                  string prefix, so ("u1",) cannot match ("u10", ...) and
                  % _ * are ordinary characters.
    ns            the labels joined with "." (labels never contain "."):
                  the facet behind list_namespaces.
    value         the item (nested, so filters become engine conditions).
    updated_ts    epoch seconds of the last put (ordering of listings).
    expires_at    epoch seconds (NEVER without TTL): every read filters
                  expires_at > now.
    doc           JSON: key, created_at, updated_at, ttl (minutes), text (the
                  indexed text).
    kw            "<tokenizer signature> <BM25 tokens...>" of the indexed text.
    rev           a fresh random token per write of ``value`` (put, touch): the
                  compare-and-set token of ``QdrantStore.put_if``. Items written
                  before it existed have none ("" to ``put_if``).

An item is "indexed" iff it has vectors (``HasVector``). Meta points (version
tokens, store info) have no ``expires_at``, so the live filter keeps them out of
every data query.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from langgraph.store.base import Item, MatchCondition, SearchItem

from memagent.stores.engines import Cond, Match, Missing, Range, Where

NEVER = 1e15  # expires_at of items without TTL (year ~31 million)
NS_INDEXED_DEPTH = 4  # ns_0..ns_3 get payload indexes up front; deeper ones lazily
VALUE_INDEXES = ("status", "type")
"""Value fields with a keyword payload index by default (``QdrantStore.from_location``'s
``value_indexes``): memagent's records are filtered on them (every recall on
``status``, the session start on ``type``). Without an index the engine reads each
candidate's payload to check the filter: a recall at 10k items per customer spent
~10x longer in its dense query (bench/recall_bench.py)."""
_UUID_NS = uuid.UUID("3f9a4f7e-6d1c-5b8e-9a57-2c1d0e6b4a10")
_SIMPLE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
REV = "rev"
ITEM_FIELDS = ["ns", "value", "doc", "expires_at", REV]
KW_VERSION = "kw"  # meta point name: bumped when keyword texts (or the item set) change
VALUES_VERSION = "values"  # bumped when values change but keyword texts do not (touch)
KW_FIELDS = ["kw"]


def point_id(namespace: Sequence[str], key: str) -> str:
    """Deterministic point id of one item."""
    return str(uuid.uuid5(_UUID_NS, json.dumps([*namespace, key], ensure_ascii=False)))


@lru_cache(maxsize=65536)
def meta_id(name: str, prefix: tuple[str, ...] = ()) -> str:
    """Id of a meta point (``name`` + a namespace prefix); never collides with items."""
    return str(uuid.uuid5(_UUID_NS, json.dumps(["\x00meta", name, *prefix], ensure_ascii=False)))


def prefixes(namespace: Sequence[str]) -> list[tuple[str, ...]]:
    """Every prefix of a namespace, the empty one included."""
    ns = tuple(namespace)
    return [ns[:i] for i in range(len(ns) + 1)]


def join_ns(namespace: Sequence[str]) -> str:
    return ".".join(namespace)


def split_ns(joined: str) -> tuple[str, ...]:
    return tuple(joined.split("."))


# ---------------------------------------------------------------- payloads


def item_payload(
    namespace: Sequence[str],
    key: str,
    value: Mapping[str, Any],
    *,
    created_at: str,
    now: datetime,
    ttl: float | None,
    text: str,
    kw: str,
    seq: int = 0,
    rev: str = "",
) -> dict[str, Any]:
    """The payload stored for one item (see module docstring).

    ``seq`` (the item's position in its batch) adds microseconds to ``updated_ts``
    so items written together still have a strict order: ties would make
    ``limit``/``offset`` pages overlap.
    """
    ts = now.timestamp()
    doc = {"key": key, "created_at": created_at, "updated_at": now.isoformat(), "ttl": ttl}
    if text:
        doc["text"] = text
    payload: dict[str, Any] = {f"ns_{i}": label for i, label in enumerate(namespace)}
    payload.update(
        ns=join_ns(namespace),
        value=dict(value),
        updated_ts=ts + seq * 1e-6,
        expires_at=expiry(ttl, ts),
        doc=json.dumps(doc, ensure_ascii=False),
    )
    if kw:
        payload["kw"] = kw
    if rev:
        payload[REV] = rev
    return payload


def new_rev() -> str:
    """A write token no other write can have produced."""
    return uuid.uuid4().hex


def rev_where(expect: str) -> Where:
    """The stored item still carries the write token ``expect`` ("" = written without one)."""
    if expect:
        return Where(must=(Match(REV, expect),))
    return Where(must=(Missing(REV),))


def touched_value(value: Mapping[str, Any], when: str) -> dict[str, Any]:
    """``value`` after one more access at ``when`` (ISO time): the fields recall ranks by
    recency (``last_accessed_at``) and use (``access_count``; 0 if absent or not a number)."""
    raw = value.get("access_count")
    try:
        count = 0 if isinstance(raw, bool) else int(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        count = 0
    return {**value, "last_accessed_at": when, "access_count": count + 1}


def check_value(namespace: Sequence[str], key: str, value: Any) -> None:
    """A value must be a JSON object without NaN/inf or integers beyond 64 bits."""
    if not isinstance(value, Mapping):
        raise ValueError(
            f"value of {tuple(namespace)}/{key} must be a mapping, got {type(value).__name__}"
        )
    try:
        json.dumps(value, allow_nan=False, default=_reject)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"value of {tuple(namespace)}/{key} is not storable as JSON: {exc}"
        ) from exc


def _reject(obj: Any) -> Any:
    raise TypeError(f"{type(obj).__name__} is not JSON-serializable")


def doc(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The packed ``doc`` fields of a payload."""
    raw = payload.get("doc")
    return json.loads(raw) if isinstance(raw, str) else {}


def pack_kw(signature: str, tokens: Sequence[str]) -> str:
    return " ".join([signature, *tokens])


def unpack_kw(kw: str, signature: str) -> list[str] | None:
    """Stored tokens, or None when another tokenizer configuration produced them."""
    head, _, rest = kw.partition(" ")
    return rest.split() if head == signature else None


def expiry(ttl_minutes: float | None, now_ts: float) -> float:
    return NEVER if ttl_minutes is None else now_ts + float(ttl_minutes) * 60.0


def to_item(payload: Mapping[str, Any]) -> Item:
    d = doc(payload)
    return Item(
        value=payload["value"],
        key=d["key"],
        namespace=split_ns(payload["ns"]),
        created_at=datetime.fromisoformat(d["created_at"]),
        updated_at=datetime.fromisoformat(d["updated_at"]),
    )


def to_search_item(payload: Mapping[str, Any], score: float | None) -> SearchItem:
    d = doc(payload)
    return SearchItem(
        namespace=split_ns(payload["ns"]),
        key=d["key"],
        value=payload["value"],
        created_at=datetime.fromisoformat(d["created_at"]),
        updated_at=datetime.fromisoformat(d["updated_at"]),
        score=score,
    )


def alive(payload: Mapping[str, Any], now_ts: float) -> bool:
    """Not expired at ``now_ts`` (the read-time TTL check)."""
    exp = payload.get("expires_at")
    return isinstance(exp, int | float) and exp > now_ts


def utcnow() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------- filters


def live(now_ts: float) -> Range:
    """Not expired at ``now_ts`` (meta points have no expires_at and never match)."""
    return Range("expires_at", gt=now_ts)


def namespace_conds(prefix: Sequence[str], *, wildcard: bool = False) -> list[Cond]:
    """One exact label match per position (``*`` skipped only when ``wildcard``)."""
    return [
        Match(f"ns_{i}", label) for i, label in enumerate(prefix) if not (wildcard and label == "*")
    ]


def simple_key(key: Any) -> bool:
    """A key the engine can address in a payload path (letters, digits, ``_``, ``-``)."""
    return isinstance(key, str) and _SIMPLE_KEY.match(key) is not None


def translate_filter(flt: Mapping[str, Any] | None) -> list[Cond]:
    """Engine conditions selecting a *superset* of what ``matches_filter`` accepts.

    Only safe cases are translated (string equality, numeric equality and
    ranges, nested dicts of those, on plain keys); the rest is checked in Python
    on the results, so a missing translation costs speed, never correctness.
    """
    return list(_translate(flt or {}, "value"))


def engine_checks_all(flt: Mapping[str, Any] | None) -> bool:
    """Whether ``translate_filter`` turns every condition of ``flt`` into an engine
    condition (no filter: True). The engine then returns next to nothing that the
    check in Python drops (only a list or a non-string value that matched a string)."""
    for key, want in (flt or {}).items():
        if not isinstance(key, str) or not _SIMPLE_KEY.match(key):
            return False
        if isinstance(want, dict):
            if not want:
                return False
            if any(str(k).startswith("$") for k in want):
                if not all(_op_translated(op, arg) for op, arg in want.items()):
                    return False
            elif not engine_checks_all(want):
                return False
        elif not (isinstance(want, str) or _is_number(want)):
            return False
    return True


def _op_translated(op: Any, arg: Any) -> bool:
    if op in ("$gt", "$gte", "$lt", "$lte"):
        return _is_number(arg)
    return op == "$eq" and (isinstance(arg, str) or _is_number(arg))


def _translate(flt: Mapping[str, Any], path: str) -> Iterable[Cond]:
    for key, want in flt.items():
        if not isinstance(key, str) or not _SIMPLE_KEY.match(key):
            continue
        field = f"{path}.{key}"
        if isinstance(want, dict):
            if any(str(k).startswith("$") for k in want):
                yield from _translate_ops(field, want)
            else:
                yield from _translate(want, field)
        elif isinstance(want, str):
            yield Match(field, want)
        elif _is_number(want):
            yield Range(field, gte=float(want), lte=float(want))


def _translate_ops(field: str, ops: Mapping[str, Any]) -> Iterable[Cond]:
    bounds = {"$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte"}
    for op, arg in ops.items():
        if op in bounds and _is_number(arg):
            yield Range(field, **{bounds[op]: float(arg)})
        elif op == "$eq" and isinstance(arg, str):
            yield Match(field, arg)
        elif op == "$eq" and _is_number(arg):
            yield Range(field, gte=float(arg), lte=float(arg))


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


_OPS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def validate_filter(flt: Mapping[str, Any] | None) -> None:
    """Reject unknown ``$`` operators up front with a clear message."""
    for want in (flt or {}).values():
        if isinstance(want, dict):
            for k in want:
                if isinstance(k, str) and k.startswith("$") and k not in _OPS:
                    raise ValueError(f"unsupported filter operator {k!r}; expected one of {_OPS}")
            validate_filter({k: v for k, v in want.items() if not str(k).startswith("$")})


def matches_filter(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter semantics (JSONB-like containment plus ``$`` operators).

    A dotted key (``"user.level"``) is a path into nested dicts, as in LangGraph's
    SQL stores and newer ``InMemoryStore``; a key present literally wins, so values
    with dotted keys keep matching as before.
    """
    return all(_compare(_lookup(value, k), want) for k, want in (flt or {}).items())


def _lookup(value: Mapping[str, Any], key: str) -> Any:
    if key in value or not isinstance(key, str) or "." not in key:
        return value.get(key)
    have: Any = value
    for part in key.split("."):
        if not isinstance(have, Mapping):
            return None
        have = have.get(part)
    return have


def _compare(have: Any, want: Any) -> bool:
    if isinstance(want, dict):
        if any(str(k).startswith("$") for k in want):
            return all(_apply(have, op, arg) for op, arg in want.items())
        return isinstance(have, dict) and all(_compare(have.get(k), v) for k, v in want.items())
    if isinstance(want, list | tuple):
        return (
            isinstance(have, list | tuple)
            and len(have) == len(want)
            and all(_compare(h, w) for h, w in zip(have, want, strict=True))
        )
    return bool(have == want)


def _apply(have: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(have == arg)
    if op == "$ne":
        return bool(have != arg)
    try:  # the reference raises on a missing/non-numeric field; we treat it as no match
        h, a = float(have), float(arg)
    except (TypeError, ValueError):
        return False
    if op == "$gt":
        return h > a
    if op == "$gte":
        return h >= a
    if op == "$lt":
        return h < a
    if op == "$lte":
        return h <= a
    raise ValueError(f"unsupported filter operator {op!r}")


def filter_key(flt: Mapping[str, Any] | None) -> str:
    """Canonical text of a filter, for cache keys."""
    return json.dumps(flt or {}, sort_keys=True, default=str)


def data_where(prefix: Sequence[str], flt: Mapping[str, Any] | None, now_ts: float) -> Where:
    """Live items under ``prefix`` whose value may match ``flt``."""
    return Where(must=(*namespace_conds(prefix), live(now_ts), *translate_filter(flt)))


# ---------------------------------------------------------------- namespaces


def namespace_matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    """``prefix``/``suffix`` match with ``*`` as a one-label wildcard (LangGraph semantics)."""
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    if cond.match_type == "prefix":
        pairs = zip(ns, path, strict=False)
    elif cond.match_type == "suffix":
        pairs = zip(reversed(ns), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {cond.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


def list_namespaces_result(
    namespaces: Iterable[tuple[str, ...]],
    conditions: Sequence[MatchCondition],
    max_depth: int | None,
    limit: int,
    offset: int,
) -> list[tuple[str, ...]]:
    kept = [ns for ns in namespaces if all(namespace_matches(c, ns) for c in conditions)]
    if max_depth is not None:
        kept = list({ns[:max_depth] for ns in kept})
    return sorted(set(kept))[offset : offset + limit]
