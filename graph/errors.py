"""Reading an error: the chain of exceptions behind it.

The CLI (is the model down? which message to show) and the worker (an outage, or a bad
job?) both look past wrapper exceptions to their causes.
"""

from __future__ import annotations


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes (``__cause__``, else ``__context__``), each once, outermost
    first; a cycle in the chain ends the walk."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen
