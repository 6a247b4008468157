"""A turn whose run fails before its end still hands what the user said to extraction,
exactly once, on every path.

One story: the graph hands over what a failing node leaves. The nodes before the
extraction node that can raise (query_rewrite, recall, prompt_assembly, llm; the tools
node returns a tool's error as a message) are wrapped by
``remembering``: when it raises, the turn's user messages go to the extractor before the
error goes on, also when a LangGraph server runs the graph (Studio), where no caller
catches the error for it; the error is then marked (``handed_over``). ``arun_turn``
(``memagent.graph.turn_run.remember_unanswered``) hands over only what the graph could
not: a cancelled turn (Ctrl-C in ``memagent chat``; ``CancelledError`` is not caught
here), and an error no wrapper marked (the wrapper's own hand-over failed, or the run
failed outside a node). The extraction of a message is idempotent per message id, so a
retry's own extraction stores nothing twice."""

from __future__ import annotations

import contextlib
from typing import Any, Final, Protocol

from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State

log = memagent_logger(__name__)

_MARK: Final = "_memagent_handed_over"


class _Node(Protocol):
    async def __call__(self, state: State, runtime: Runtime[Context]) -> dict[str, Any]: ...


def handed_over(exc: BaseException) -> bool:
    """Whether a node's wrapper already handed the failed turn to extraction."""
    return bool(getattr(exc, _MARK, False))


def remembering(node: _Node, extractor: _Node) -> _Node:
    """``node``, which on failure first hands the turn's user messages to ``extractor``
    and marks the error so (``handed_over``), then raises it unchanged."""

    async def node_remembering(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        try:
            return await node(state, runtime)
        except Exception as exc:
            try:
                await extractor(state, runtime)
            except Exception as failed:  # the node's own error is the one to raise
                log.warning("could not hand the unanswered message to extraction: %s", failed)
            else:
                # An error type that takes no attributes stays unmarked: the caller repeats.
                with contextlib.suppress(AttributeError):
                    setattr(exc, _MARK, True)
            raise

    return node_remembering
