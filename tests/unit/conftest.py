"""Unit tests read the (scripted or fake) model's reply to every message, as they did before
the note acknowledgement became the default: they pin ``MEMAGENT_NOTE_REPLY=model``. The
default (``rules``: a plain note is acknowledged without a model call) is tested where it is
set on purpose (tests/unit/test_note_ack.py) and, unpinned, by the process-level tests in
tests/integration (services, Studio, scale-out, crash recovery)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _model_replies_to_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMAGENT_NOTE_REPLY", "model")
