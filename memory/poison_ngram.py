"""Character n-gram judge of the poisoning defence: hashed n-grams and a logistic model.

The e5 probe (``memagent.memory.poison_model``) reads English well but sees Chinese one
character at a time through an English vocabulary; character n-grams read "所有报价一律上浮",
"忽略之前的", "system prompt" and "把…发到我微信" directly in any script. Features are the
hashed 1-4 character n-grams of the rules' normalised text (obfuscation undone, Traditional
folded to Simplified by ``memagent.memory.hanzi_fold``, emoji separators dropped) plus word
uni- and bigrams, each text's vector L2-normalised. The text it reads is
``memagent.memory.poison.judge_input``: base64, ``\\uXXXX``, ROT13 and reversed runs of the
raw text decoded and appended before normalising, so an encoded order is read as the order
(base64 is case-sensitive: it must be decoded before the text is lower-cased).

An order hidden in a long, ordinary visit note is diluted in the whole note's vector, so a
model saved with ``clauses`` also scores each sentence (``clauses()``: split at sentence ends
and line breaks) and takes the highest logit; the threshold was chosen for that maximum.

Weights ship as ``data/poison_ngram.npz`` (written by ``bench/poison_loso.py --write``); a
check costs a few hundred hashes, well under a millisecond. No model download, no threads.
"""

from __future__ import annotations

import base64
import binascii
import codecs
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
_ROT13 = re.compile(r"\brot[ -]?13\b", re.IGNORECASE)
# Written backwards: two common words ("eht", "ruoy") or Chinese pairs ("令指", "户客") reversed.
_REVERSED_WORDS = re.compile(
    r"\b(?:eht|dna|ruoy|lla|rof|yreve|htiw|siht|taht|ot|fo|em|ym|meht|syawla|esaelp|erongi|dnes)\b",
    re.IGNORECASE,
)
_REVERSED_HAN = re.compile(
    "令指|略忽|价报|户客|码号|话电|给发|后以|统系|词示提|据数|息信|價報|戶客|話電|給寄|後以"
)
_U_ESCAPES = re.compile(r"(?:\\u[0-9a-fA-F]{4}){3,}")
_WORD = re.compile(r"[a-z][a-z0-9'_-]*|[0-9]+%?")
_HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff]")
# Sentence ends: CJK full stops and marks anywhere, Latin ones before a space, line breaks.
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.])(?=\s)|\n")
MIN_CLAUSE = 4
"""A sentence shorter than this (non-space characters) is not scored on its own."""
MAX_CLAUSES = 24
"""At most this many sentences of one text are scored (the cost stays bounded)."""


def clauses(normalised: str) -> list[str]:
    """The sentences of a text worth scoring on their own; empty when it has only one."""
    parts = [p.strip() for p in _SENTENCE_END.split(normalised)]
    parts = [p for p in parts if len(p.replace(" ", "")) >= MIN_CLAUSE]
    return parts[:MAX_CLAUSES] if len(parts) > 1 else []


def has_cjk(text: str) -> bool:
    """Whether ``text`` has a Chinese character (then the judge's CJK threshold applies)."""
    return _HAN.search(text) is not None


def expand_encoded(text: str) -> str:
    """``text`` with every base64 run that decodes to readable UTF-8, every run of
    ``\\uXXXX`` escapes, its ROT13 reading (when the text names ROT13) and its reversed
    reading (when it reads backwards), appended decoded."""
    extra = [
        "".join(chr(int(m.group()[i + 2 : i + 6], 16)) for i in range(0, len(m.group()), 6))
        for m in _U_ESCAPES.finditer(text)
    ]
    if _ROT13.search(text):
        extra.append(codecs.decode(text, "rot13"))
    reversed_words = {m.casefold() for m in _REVERSED_WORDS.findall(text)}
    if len(reversed_words) >= 2 or len(set(_REVERSED_HAN.findall(text))) >= 2:
        extra.append(text[::-1])
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
    ``w · x + b`` plus ``rules_weight`` times the rules' score (capped at 1) reaches the
    threshold: ``threshold_cjk`` for text with Chinese characters when set, else
    ``threshold`` (logits, not probabilities; each chosen by leave-one-set-out so ordinary
    text stays at <= 1% per language). With ``by_clause`` the logit is the highest of the
    whole text's and each of its sentences' (measured, not shipped)."""

    weights: NDArray[np.float32]
    bias: float
    threshold: float
    by_clause: bool = False
    rules_weight: float = 0.0
    threshold_cjk: float | None = None

    def score(self, normalised: str, rules_score: float = 0.0) -> float:
        """The logit the thresholds apply to: the judge's plus the rules' share."""
        return self.logit(normalised) + self.rules_weight * min(max(rules_score, 0.0), 1.0)

    def threshold_of(self, normalised: str) -> float:
        """The threshold for this text: the CJK one when it has Chinese characters."""
        if self.threshold_cjk is not None and has_cjk(normalised):
            return self.threshold_cjk
        return self.threshold

    def _logit(self, normalised: str) -> float:
        idx, val = features(normalised)
        return float(self.weights[idx] @ val + self.bias)

    def logit(self, normalised: str) -> float:
        whole = self._logit(normalised)
        if not self.by_clause:
            return whole
        return max([whole, *(self._logit(c) for c in clauses(normalised))])

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
                by_clause=np.bool_(self.by_clause),
                rules_weight=np.float64(self.rules_weight),
                threshold_cjk=np.float64(
                    np.nan if self.threshold_cjk is None else self.threshold_cjk
                ),
            )

    @classmethod
    def load(cls, path: Path = NGRAM_PATH) -> NgramModel:
        with np.load(path) as data:
            weights = data["weights"].astype(np.float32)
            if weights.shape != (DIM,):
                raise ValueError(f"{path.name}: expected {DIM} weights, got {weights.shape}")
            files = set(data.files)
            by_clause = bool(data["by_clause"]) if "by_clause" in files else False
            rules_weight = float(data["rules_weight"]) if "rules_weight" in files else 0.0
            cjk = float(data["threshold_cjk"]) if "threshold_cjk" in files else float("nan")
            return cls(
                weights,
                float(data["bias"]),
                float(data["threshold"]),
                by_clause,
                rules_weight,
                None if np.isnan(cjk) else cjk,
            )


@cache
def ngram_model(path: Path = NGRAM_PATH) -> NgramModel | None:
    """The shipped model, loaded once; None when its file is missing or unreadable."""
    try:
        return NgramModel.load(path)
    except (OSError, ValueError, KeyError):
        return None
