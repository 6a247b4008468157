"""The one function every store access gets its namespace from.

Layout: ``("memagent", user_id, customer_id, kind)``. Nothing in memagent builds
a namespace tuple by hand, and nothing searches without a user.
"""

from __future__ import annotations

from typing import Literal

ROOT = "memagent"
Kind = Literal["facts", "profile", "episodes", "working"]
KINDS: tuple[str, ...] = ("facts", "profile", "episodes", "working")
MAX_ID_LEN = 200


class InvalidScopeError(ValueError):
    """A user or customer id that cannot name a namespace."""


def _check_id(name: str, value: str) -> str:
    if not isinstance(value, str):
        raise InvalidScopeError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidScopeError(f"{name} must not be empty")
    if value.strip() == "*":
        raise InvalidScopeError(f"{name} must not be '*': the store reads it as a wildcard")
    if "." in value:
        raise InvalidScopeError(f"{name} must not contain '.': {value!r}")
    if len(value) > MAX_ID_LEN:
        raise InvalidScopeError(f"{name} is longer than {MAX_ID_LEN} characters")
    if any(ord(c) < 32 for c in value):
        raise InvalidScopeError(f"{name} must not contain control characters")
    bad = next((i for i, c in enumerate(value) if 0xD800 <= ord(c) <= 0xDFFF), None)
    if bad is not None:
        raise InvalidScopeError(
            f"{name} is not valid Unicode text (lone surrogate at character {bad})"
        )
    return value


def namespace(
    user_id: str, customer_id: str | None = None, kind: Kind | None = None
) -> tuple[str, ...]:
    """Namespace of ``kind`` for one user and customer, or a prefix of it.

    ``namespace(u)`` is the prefix of everything of user ``u`` (for forget),
    ``namespace(u, c)`` everything of one customer, ``namespace(u, c, kind)`` one layer.
    """
    ns: tuple[str, ...] = (ROOT, _check_id("user_id", user_id))
    if customer_id is not None:
        ns += (_check_id("customer_id", customer_id),)
    if kind is not None:
        if customer_id is None:
            raise InvalidScopeError("a kind needs a customer_id")
        if kind not in KINDS:
            raise InvalidScopeError(f"unknown kind {kind!r}; expected one of {KINDS}")
        ns += (kind,)
    return ns
