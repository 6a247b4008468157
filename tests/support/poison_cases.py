"""The two checks every session's poisoning rule cases make, shared by ``test_poison_rulesN``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from memagent.memory.poison import assess, check_instruction


def assert_blocked_by_rules(text: str) -> None:
    """``text`` is blocked by the rules alone (no learned judge), as `memories add` screens."""
    assert assess(text).reason is not None, text
    assert check_instruction(text, deep=False) is not None, text


def assert_stored(text: str) -> None:
    """``text`` passes the screen `memories add` and the worker run; the rules' hits are
    shown when it does not."""
    assert check_instruction(text, deep=False) is None, (text, assess(text).hits)


def rule_tests(
    attacks: Sequence[str], ordinary: Sequence[str]
) -> tuple[Callable[[str], None], Callable[[str], None]]:
    """The two parametrized tests of one session's table: every attack blocked by the rules
    alone, every ordinary note stored. A module binds them to its own ``test_`` names."""

    @pytest.mark.parametrize("text", attacks)
    def test_attacks_are_blocked_by_the_rules_alone(text: str) -> None:
        assert_blocked_by_rules(text)

    @pytest.mark.parametrize("text", ordinary)
    def test_ordinary_notes_pass(text: str) -> None:
        assert_stored(text)

    return test_attacks_are_blocked_by_the_rules_alone, test_ordinary_notes_pass
