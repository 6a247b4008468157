"""The one function every store access gets its namespace from, and its inverse.

Layout: ``("memagent", label(user_id), label(customer_id), kind)``. Nothing in
memagent builds a namespace tuple by hand, and nothing searches without a user;
whatever reads namespaces back (listing, export, forget, maintain) turns labels
into ids with ``scope_of`` / ``id_of``.

Ids are e-mail addresses and domains (``john.smith@corp.com``, ``acme.com``), but
LangGraph's ``BaseStore`` refuses a ``.`` in a namespace label. ``label`` writes
each ``.`` as ``SUB`` (U+001A, the "substitute" control character) and ``id_of``
reads it back. Why this encoding: ids that were valid before dots were allowed
(no ``.``, no control character) must keep exactly their label, so data already
stored stays where it is; every dot-free printable string is already such a label,
so an escape made of printable characters (``%2E``, ``\\.``) would collide with an
existing id. A control character cannot, because no id may contain one: the map is
the identity on old ids and one-to-one on all ids.
"""

from __future__ import annotations

from typing import Literal

ROOT = "memagent"
Kind = Literal["facts", "profile", "episodes", "working", "quarantine"]
KINDS: tuple[str, ...] = ("facts", "profile", "episodes", "working", "quarantine")
MAX_ID_LEN = 200
DOT_IN_LABEL = "\x1a"
"""What a ``.`` of an id becomes in a namespace label (see the module docstring)."""


class InvalidScopeError(ValueError):
    """An id (user, customer or session) that cannot scope stored data."""


def check_text_id(name: str, value: str, *, max_len: int = MAX_ID_LEN) -> str:
    """An id typed by a person: a non-blank string of at most ``max_len`` characters,
    no control characters, valid Unicode (no lone surrogate)."""
    if not isinstance(value, str):
        raise InvalidScopeError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidScopeError(f"{name} must not be empty")
    if len(value) > max_len:
        raise InvalidScopeError(f"{name} is longer than {max_len} characters ({len(value)})")
    bad = next((i for i, c in enumerate(value) if ord(c) < 32), None)
    if bad is not None:
        raise InvalidScopeError(f"{name} must not contain control characters (at {bad})")
    bad = next((i for i, c in enumerate(value) if 0xD800 <= ord(c) <= 0xDFFF), None)
    if bad is not None:
        raise InvalidScopeError(
            f"{name} is not valid Unicode text (lone surrogate at character {bad})"
        )
    return value


def check_id(name: str, value: str) -> str:
    """A user or customer id that can name a namespace label (raises ``InvalidScopeError``)."""
    check_text_id(name, value)
    if value.strip() == "*":
        raise InvalidScopeError(f"{name} must not be '*': the store reads it as a wildcard")
    return value


MAX_CUSTOMER_ID_LEN = 64
CUSTOMER_ID_RULE = (
    "1-64 characters: lowercase letters, digits, CJK or other uncased letters, and "
    "'-', '_', '.', '@' inside (not first or last), no spaces"
)
_ID_PUNCT = frozenset("-_.@")


def _customer_id_problem(value: str) -> str | None:
    """What breaks ``CUSTOMER_ID_RULE`` in ``value`` (None: nothing)."""
    if len(value) > MAX_CUSTOMER_ID_LEN:
        return f"it has {len(value)} characters"
    for i, c in enumerate(value):
        if c.isspace():
            return f"it has a space at {i}"
        if c.isupper() or (c.isalpha() and c != c.lower()):
            return f"it has an uppercase letter ({c!r})"
        if not (c.isalnum() or c in _ID_PUNCT):
            return f"it has {c!r} at {i}"
    if value[0] in _ID_PUNCT or value[-1] in _ID_PUNCT:
        return "it starts or ends with punctuation"
    return None


def suggest_customer_id(value: str) -> str:
    """The id ``value`` most likely means under the rule: lowercased, spaces and other
    characters as '-', punctuation trimmed at the ends ('' when nothing is left)."""
    chars = [c if c.isalnum() or c in _ID_PUNCT else "-" for c in " ".join(value.split()).lower()]
    slug = "".join(chars)
    while "--" in slug:
        slug = slug.replace("--", "-")
    return slug.strip("-_.@")[:MAX_CUSTOMER_ID_LEN].strip("-_.@")


def check_customer_id(value: str, name: str = "customer_id") -> str:
    """A customer id for new data (a turn, a manual memory, a CRM account, a Studio run):
    ``check_id`` and ``CUSTOMER_ID_RULE``; raises ``InvalidScopeError`` with the rule and,
    when there is one, the id meant. Ids stored before the rule (``Acme Inc.``) still
    name their data on the read paths (list, search, show, export, forget), which take
    any ``check_id`` id; nothing is renamed or normalised behind the user's back."""
    check_id(name, value)
    problem = _customer_id_problem(value)
    if problem is None:
        return value
    hint = suggest_customer_id(value)
    hint = f"; did you mean {hint!r}?" if hint and hint != value and len(value) <= 64 else ""
    shown = value if len(value) <= 40 else value[:37] + "..."
    raise InvalidScopeError(
        f"{name} {shown!r} is not valid ({problem}): use {CUSTOMER_ID_RULE}{hint} "
        "(data stored under such an id earlier stays readable: `memagent memories list`)"
    )


def label(name: str, value: str) -> str:
    """The namespace label of a valid id: the id itself, with each ``.`` as U+001A."""
    return check_id(name, value).replace(".", DOT_IN_LABEL)


def id_of(label_: str) -> str:
    """The id a namespace label stands for (inverse of ``label``)."""
    return label_.replace(DOT_IN_LABEL, ".")


def namespace(
    user_id: str, customer_id: str | None = None, kind: Kind | None = None
) -> tuple[str, ...]:
    """Namespace of ``kind`` for one user and customer, or a prefix of it.

    ``namespace(u)`` is the prefix of everything of user ``u`` (for forget),
    ``namespace(u, c)`` everything of one customer, ``namespace(u, c, kind)`` one layer.
    """
    ns: tuple[str, ...] = (ROOT, label("user_id", user_id))
    if customer_id is not None:
        ns += (label("customer_id", customer_id),)
    if kind is not None:
        if customer_id is None:
            raise InvalidScopeError("a kind needs a customer_id")
        if kind not in KINDS:
            raise InvalidScopeError(f"unknown kind {kind!r}; expected one of {KINDS}")
        ns += (kind,)
    return ns


def scope_of(ns: tuple[str, ...]) -> tuple[str | None, str | None, str | None]:
    """(user_id, customer_id, kind) of a memagent namespace or prefix, ids decoded;
    ``None`` where the tuple is too short."""
    if not ns or ns[0] != ROOT:
        raise InvalidScopeError(f"not a memagent namespace: {ns!r}")
    user, customer, kind = (*ns[1:4], None, None, None)[:3]
    return (
        None if user is None else id_of(user),
        None if customer is None else id_of(customer),
        kind,
    )
