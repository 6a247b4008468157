"""The two checks every session's poisoning rule cases make, shared by ``test_poison_rulesN``."""

from __future__ import annotations

from memagent.memory.poison import assess, check_instruction


def assert_blocked_by_rules(text: str) -> None:
    """``text`` is blocked by the rules alone (no learned judge), as `memories add` screens."""
    assert assess(text).reason is not None, text
    assert check_instruction(text, deep=False) is not None, text


def assert_stored(text: str) -> None:
    """``text`` passes the screen `memories add` and the worker run; the rules' hits are
    shown when it does not."""
    assert check_instruction(text, deep=False) is None, (text, assess(text).hits)
