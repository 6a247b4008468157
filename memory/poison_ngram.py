"""Character n-gram judge of the poisoning defence: hashed n-grams and a logistic model.

The e5 probe (``memagent.memory.poison_model``) reads English well but sees Chinese one
character at a time through an English vocabulary; character n-grams read "所有报价一律上浮",
"忽略之前的", "system prompt" and "把…发到我微信" directly in any script. Features are the
hashed 1-4 character n-grams of the rules' normalised text (obfuscation undone, Traditional
folded to Simplified by ``memagent.memory.hanzi_fold``, emoji separators dropped) plus word uni- and bigrams, each text's vector L2-normalised; base64
runs are decoded and appended first, so an encoded order is read as the order.

Weights ship as ``data/poison_ngram.npz`` (written by ``bench/poison_loso.py --write``); a
check costs a few hundred hashes, well under a millisecond. No model download, no threads.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memagent.memory.hanzi_fold import to_simplified

NGRAM_PATH = Path(__file__).resolve().parent / "data" / "poison_ngram.npz"
DIM = 1 << 18
_B64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_WORD = re.compile(r"[a-z][a-z0-9'_-]*|[0-9]+%?")


def expand_encoded(text: str) -> str:
    """``text`` with every base64 run that decodes to readable UTF-8 appended, decoded."""
    extra = []
    for m in _B64.finditer(text):
        run = m.group()
        try:
            decoded = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable() or "\n" in decoded:
            extra.append(decoded)
    return text if not extra else text + " " + " ".join(extra)


def strip_symbols(text: str) -> str:
    """Emoji and other symbols dropped: "從🔸現🔸在" reads as "從現在"."""
    return "".join(c for c in text if unicodedata.category(c) not in ("So", "Sk", "Co"))


def _h(token: str) -> int:
    return zlib.crc32(token.encode("utf-8")) & (DIM - 1)


def features(normalised: str) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """Sparse L2-normalised feature vector (bucket ids, values) of one normalised text."""
    normalised = to_simplified(strip_symbols(normalised))
    text = " " + normalised + " "
    counts: dict[int, float] = {}
    for n in (1, 2, 3, 4):
        for i in range(len(text) - n + 1):
            gram = text[i : i + n]
            if n == 1 and gram == " ":
                continue
            b = _h(f"c{n}:{gram}")
            counts[b] = counts.get(b, 0.0) + 1.0
    words = _WORD.findall(normalised)
    for i, w in enumerate(words):
        b = _h(f"w:{w}")
        counts[b] = counts.get(b, 0.0) + 1.0
        if i + 1 < len(words):
            b = _h(f"w2:{w} {words[i + 1]}")
            counts[b] = counts.get(b, 0.0) + 1.0
    idx = np.fromiter(counts, dtype=np.int64, count=len(counts))
    val = np.sqrt(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
    norm = float(np.linalg.norm(val)) or 1.0
    return idx, (val / np.float32(norm)).astype(np.float32)


@dataclass(frozen=True, slots=True)
class NgramModel:
    """``sigmoid(w · x + b)`` over the hashed n-gram vector ``x``; blocks where the logit
    ``w · x + b`` reaches ``threshold`` (a logit, not a probability)."""

    weights: NDArray[np.float32]
    bias: float
    threshold: float

    def logit(self, normalised: str) -> float:
        idx, val = features(expand_encoded(normalised))
        return float(self.weights[idx] @ val + self.bias)

    def probability(self, normalised: str) -> float:
        return float(1.0 / (1.0 + np.exp(-np.clip(self.logit(normalised), -60.0, 60.0))))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez_compressed(
                fh,
                weights=self.weights.astype(np.float16),
                bias=np.float64(self.bias),
                threshold=np.float64(self.threshold),
            )

    @classmethod
    def load(cls, path: Path = NGRAM_PATH) -> NgramModel:
        with np.load(path) as data:
            weights = data["weights"].astype(np.float32)
            if weights.shape != (DIM,):
                raise ValueError(f"{path.name}: expected {DIM} weights, got {weights.shape}")
            return cls(weights, float(data["bias"]), float(data["threshold"]))


@cache
def ngram_model(path: Path = NGRAM_PATH) -> NgramModel | None:
    """The shipped model, loaded once; None when its file is missing or unreadable."""
    try:
        return NgramModel.load(path)
    except (OSError, ValueError, KeyError):
        return None
