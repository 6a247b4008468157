"""Ids given as any unique prefix, as git takes commit ids.

Tables shorten ids (``abbreviate``: a memory id to 12 characters, longer where two
would look alike); whatever a table shows works where an id is taken (``memories
show/history/delete``, ``jobs retry``). An ambiguous prefix is an error listing the
candidates, never a guess. Stdlib only: the CLI client imports it.
"""

from __future__ import annotations

from collections.abc import Iterable

MARKERS = ("pending-", "q-")
"""Id prefixes that say what an id is rather than which (the write path's
``PENDING_PREFIX``): not counted in an abbreviation's length."""


class IdNotFoundError(LookupError):
    """No id equals or starts with the given reference."""


class AmbiguousIdError(LookupError):
    """A prefix that several ids start with; ``candidates`` lists them."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


def resolve_prefix(
    ref: str,
    keys: Iterable[str],
    *,
    what: str = "id",
    not_found: type[LookupError] = IdNotFoundError,
) -> str:
    """The one key equal to ``ref`` or starting with it (``not_found`` when none,
    ``AmbiguousIdError`` when several; the message lists up to ten candidates)."""
    ref = ref.strip()
    keys = list(keys)
    if ref in keys:
        return ref
    found = sorted(k for k in keys if ref and k.startswith(ref))
    if len(found) == 1:
        return found[0]
    if not found:
        raise not_found(f"no {what} {ref!r}")
    shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
    raise AmbiguousIdError(f"{what} id {ref!r} is ambiguous: it starts {shown}", found)


def abbreviate(ids: list[str], *, length: int = 12) -> dict[str, str]:
    """Each id cut to ``length`` characters (after a marker such as ``pending-``),
    lengthened until it is unique among ``ids``: what a table shows, and what
    ``resolve_prefix`` takes back."""
    out: dict[str, str] = {}
    for rid in ids:
        n = length + next((len(m) for m in MARKERS if rid.startswith(m)), 0)
        while n < len(rid) and any(o != rid and o.startswith(rid[:n]) for o in ids):
            n += 1
        out[rid] = rid[:n]
    return out
