"""What a client is told when a request fails, whichever path ran it. Stdlib only."""

from __future__ import annotations


class OpError(Exception):
    """A request failed: ``message`` is one line for the user, ``code`` the exit code.

    ``saved`` is true when the request was a turn whose user message is checkpointed,
    unanswered: retrying (``--retry``, ``/retry``) finishes it.
    """

    def __init__(self, message: str, code: int = 1, *, saved: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.saved = saved


class Interrupted(Exception):
    """The user interrupted a request (Ctrl-C); its turn, if any, was cancelled.

    ``saved`` tells whether the turn's message had been checkpointed before.
    """

    def __init__(self, *, saved: bool = False) -> None:
        super().__init__("interrupted")
        self.saved = saved


class ServiceUnavailableError(OpError):
    """The service could not be started or reached."""


def describe(exc: BaseException) -> tuple[str, int]:
    """One line and an exit code for any exception a request raised (service side and
    in-process mode: the same words either way). Imports the CLI's own wording lazily."""
    if isinstance(exc, OpError):
        return exc.message, exc.code
    from memagent.graph.cli import explain
    from memagent.memory.memory_ops import MemoryNotFoundError

    if isinstance(exc, MemoryNotFoundError):
        return str(exc), 2
    return explain(exc)
