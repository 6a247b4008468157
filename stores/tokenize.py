"""Keyword tokenization for BM25: English, Chinese and exact identifiers.

Why a custom tokenizer: BM25 only finds what the tokenizer keeps. Sales memories
carry part numbers and order ids (``XJ-2000``, ``PO-2026-118734``) that a word
tokenizer splits into meaningless pieces, and Chinese text has no spaces at all.
So an identifier is kept whole *and* split into its parts (and, when it has a
digit, joined without separators: ``xj2000``), and runs of Han characters are cut
with jieba (``rjieba``, the Rust port) in search mode, which also emits the
shorter words inside a long one (订单号 -> 订单, 单号, 订单号).

Tokens are lowercased (NFKC first, so full-width ``ＸＪ`` equals ``XJ``), a small
stop list is dropped, and Latin-script words are reduced to their English Snowball
stem (``meetings`` -> ``meet``, ``painted``/``painting`` -> ``paint``), so a question
and the memory that answers it meet even when they inflect a word differently: on
the LoCoMo dev split stemming lifts BM25 evidence recall@10 from 0.577 to 0.619
(bench/locomo_experiments.py). Only tokens made of Latin letters alone are stemmed:
Chinese words, numbers and identifiers (``xj-2000``, ``xj2000``) stay exact. The
result is a bag of words: order is not kept.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """a an the and or but of to in on at for with by from as is are was were be been being
    it its this that these those i me my we our us you your he him his she her they them their
    do does did doing have has had having am if into about than then there here so such
    what which who whom how when where why will would can could should shall may might must
    s t d ll re ve m o y just also very too""".split()  # noqa: SIM905
)
CHINESE_STOPWORDS: frozenset[str] = frozenset(
    "的 了 是 在 和 与 及 或 我 你 他 她 它 们 我们 你们 他们 这 那 这个 那个 就 也 都 而 吗 呢 吧 啊 呀 之 其 着 过 被 把 让".split()  # noqa: SIM905
)
DEFAULT_STOPWORDS: frozenset[str] = ENGLISH_STOPWORDS | CHINESE_STOPWORDS

# Han ideographs (incl. extension A and compatibility ideographs).
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RUN = re.compile(f"[{_HAN}]+")
# A word: letters/digits; a compound joins words with - _ . / : # + (no spaces).
_COMPOUND = re.compile(r"[^\W_]+(?:[-_./:#+][^\W_]+)*")
_PART = re.compile(r"[^\W_]+")
_DIGIT = re.compile(r"\d")
# A word in Latin script only (ASCII letters, Latin-1 and Latin Extended-A/B letters).
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]+")


@dataclass(frozen=True)
class TokenizerConfig:
    """Tokenizer options, tunable without code edits (hashable, so results are cacheable).

    ``keep_identifiers`` keeps ``xj-2000`` whole; ``split_identifiers`` adds its parts;
    ``join_identifiers`` adds ``xj2000`` for identifiers containing a digit, so a user
    typing the id without separators still matches. ``chinese`` picks the jieba mode:
    ``"search"`` (finer, more recall) or ``"exact"`` (one cut, more precision).
    ``stem`` names the Snowball algorithm applied to Latin-script words (``None``: no
    stemming); the stop list is applied before stemming, so it lists surface forms.
    """

    lowercase: bool = True
    stopwords: frozenset[str] = field(default=DEFAULT_STOPWORDS)
    keep_identifiers: bool = True
    split_identifiers: bool = True
    join_identifiers: bool = True
    chinese: str = "search"
    min_length: int = 1
    stem: str | None = "english"

    def __post_init__(self) -> None:
        if self.chinese not in ("search", "exact"):
            raise ValueError(f"chinese must be 'search' or 'exact', got {self.chinese!r}")
        if self.min_length < 1:
            raise ValueError("min_length must be >= 1")
        if self.stem is not None:
            import Stemmer

            if self.stem not in Stemmer.algorithms():
                raise ValueError(
                    f"unknown stemmer {self.stem!r}; expected None or one of "
                    f"{', '.join(Stemmer.algorithms())}"
                )

    @cached_property
    def signature(self) -> str:
        """Short stable id of these options, stored with tokens to detect stale ones."""
        raw = repr(
            (
                self.lowercase,
                sorted(self.stopwords),
                self.keep_identifiers,
                self.split_identifiers,
                self.join_identifiers,
                self.chinese,
                self.min_length,
                self.stem,
            )
        )
        return hashlib.blake2b(raw.encode(), digest_size=6).hexdigest()


DEFAULT_TOKENIZER = TokenizerConfig()


_stemmers = threading.local()  # a Snowball stemmer has state: one per thread and language


def _stemmer(language: str) -> Any:
    by_language: dict[str, Any] | None = getattr(_stemmers, "by_language", None)
    if by_language is None:
        by_language = _stemmers.by_language = {}
    stemmer = by_language.get(language)
    if stemmer is None:
        import Stemmer

        stemmer = by_language[language] = Stemmer.Stemmer(language)
    return stemmer


def _stem_latin(tokens: list[str], language: str) -> list[str]:
    """Snowball stems of the tokens that are Latin-script words; other tokens as they are."""
    stem = _stemmer(language).stemWord
    return [stem(t) if _LATIN_WORD.fullmatch(t) else t for t in tokens]


def _cut_chinese(run: str, mode: str) -> list[str]:
    import rjieba  # lazy: loading the dictionary costs ~0.2 s

    return rjieba.cut_for_search(run) if mode == "search" else rjieba.cut(run)


def _latin_tokens(compound: str, config: TokenizerConfig) -> list[str]:
    parts = _PART.findall(compound)
    if len(parts) == 1:
        return parts
    out: list[str] = []
    if config.keep_identifiers:
        out.append(compound)
    if config.split_identifiers:
        out.extend(parts)
    if config.join_identifiers and _DIGIT.search(compound):
        out.append("".join(parts))
    if not out:  # every option off: fall back to the parts, never lose the words
        out = parts
    return out


def tokenize(text: str, config: TokenizerConfig = DEFAULT_TOKENIZER) -> list[str]:
    """Tokens of ``text`` for BM25 (document or query alike)."""
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text)
    if config.lowercase:
        text = text.lower()
    tokens: list[str] = []
    for run in _HAN_RUN.findall(text):
        tokens.extend(_cut_chinese(run, config.chinese))
    rest = _HAN_RUN.sub(" ", text)
    for compound in _COMPOUND.findall(rest):
        tokens.extend(_latin_tokens(compound, config))
    stop = config.stopwords
    minimum = config.min_length
    kept = [t for t in tokens if len(t) >= minimum and t not in stop and not t.isspace()]
    return _stem_latin(kept, config.stem) if config.stem else kept


@lru_cache(maxsize=4096)
def tokenize_cached(text: str, config: TokenizerConfig = DEFAULT_TOKENIZER) -> tuple[str, ...]:
    """``tokenize`` memoised for repeated queries (returns a tuple: safe to share)."""
    return tuple(tokenize(text, config))
