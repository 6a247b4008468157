"""Errors and error helpers shared by every layer.

The CLI (is the model down? which message to show) and the worker (an outage, or a bad
job?) both look past wrapper exceptions to their causes (``exception_chain``).
"""

from __future__ import annotations


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes (``__cause__``, else ``__context__``), outermost first, each once;
    a cycle in the chain ends the walk."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain
