"""Test stores that claim ``MemoryStoreExtensions`` but implement only part of it.

``ExtensionStubs`` has every method of the Protocol, each raising ``NotImplementedError``;
a fake overrides the ones its test exercises, so ``isinstance(fake,
MemoryStoreExtensions)`` holds and a call to anything else fails loudly.
"""

from __future__ import annotations

from typing import Any


def _missing(name: str) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.{name} is not faked")

    call.__name__ = name
    return call


class ExtensionStubs:
    get_rev = _missing("get_rev")
    aget_rev = _missing("aget_rev")
    put_if = _missing("put_if")
    aput_if = _missing("aput_if")
    touch = _missing("touch")
    atouch = _missing("atouch")
    search_scored = _missing("search_scored")
    asearch_scored = _missing("asearch_scored")
    keyword_idf = _missing("keyword_idf")


def gated(name: str) -> Any:
    """A method that runs ``self._check()`` and then calls ``self.inner.<name>``."""

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        self._check()
        return getattr(self.inner, name)(*args, **kwargs)

    call.__name__ = name
    return call
