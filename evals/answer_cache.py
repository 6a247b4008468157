"""A chat-model wrapper that records the model's answers on disk by prompt, so a re-run
of an extraction eval after a change outside the prompts asks the model only what it
was never asked (``memagent eval extraction --answers FILE``).

Answers are keyed by the whole request (every message's role and text, and the call's
options): a changed prompt, a changed line list or a retry misses the record and goes
to the model. The run reports how many answers were recorded and how many fresh, so a
figure is never mistaken for a fresh model run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage


class RecordedAnswers:
    """``ainvoke`` of ``inner`` with its answers kept in ``path`` (JSON, prompt hash ->
    answer text). Only what the extractor calls (``ainvoke``) is wrapped."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.answers: dict[str, str] = {}
        if path.exists():
            try:
                self.answers = dict(json.loads(path.read_text(encoding="utf-8")))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path} is not a recorded-answers file: {exc}") from None
        self.recorded = 0
        self.fresh = 0

    @staticmethod
    def key(messages: Sequence[BaseMessage], kwargs: dict[str, Any]) -> str:
        body = json.dumps(
            [[m.type, str(m.content)] for m in messages] + [kwargs],
            ensure_ascii=False,
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(body.encode("utf-8")).hexdigest()

    async def ainvoke(self, messages: Sequence[BaseMessage], **kwargs: Any) -> AIMessage:
        k = self.key(messages, kwargs)
        if k in self.answers:
            self.recorded += 1
            return AIMessage(content=self.answers[k])
        text = str((await self.inner.ainvoke(list(messages), **kwargs)).text)
        self.answers[k] = text
        self.fresh += 1
        self.save()  # a run stopped midway (a slow model, Ctrl-C) keeps what it was told
        return AIMessage(content=text)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.answers, ensure_ascii=False, indent=0), encoding="utf-8")
        tmp.replace(self.path)
