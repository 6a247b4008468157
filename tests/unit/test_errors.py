"""exception_chain: one walker for the CLI and the worker."""

from __future__ import annotations

from memagent.core.errors import exception_chain
from memagent.graph.worker import is_outage


def test_chain_follows_cause_then_context_and_stops_on_a_cycle() -> None:
    root = ConnectionError("refused")
    middle = RuntimeError("store call failed")
    middle.__cause__ = root
    top = ValueError("job failed")
    top.__context__ = middle
    root.__context__ = top  # a cycle
    assert exception_chain(top) == [top, middle, root]
    assert is_outage(top) and not is_outage(ValueError("bad job"))
