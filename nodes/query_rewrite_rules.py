"""Rule-based search-query rewriting: no model, no I/O, the same answer every time.

What it removes by default: relative time words ("last week", "recently", "as mentioned
on") whose meaning depends on when the question was asked, so they only add noise, and
possessive endings ("Maria's" -> "Maria") so keyword search matches the name. Absolute
dates ("in June 2022") are kept: memories are indexed with their date.

What it keeps by default: the question syntax ("When did", "What kind of"). Measured on
the LoCoMo dev split (bench/locomo_experiments.py), stripping it costs the e5 dense side
about 0.05 recall@10 (e5 is trained on whole questions with the ``query:`` prefix) and
gains BM25 nothing (its stop words drop those words anyway), so it is opt-in
(``strip_question=True``), for keyword-only callers.
"""

from __future__ import annotations

import re

# Leading question phrases, longest first; each is removed only at the start of the query.
_QUESTION_LEAD = re.compile(
    r"""^\s*(?:(?:for|in|at|on|to|from|with)\s+)?(?:
        (?:what|which)\s+(?:kind|kinds|type|types|sort|sorts)\s+of
      | how\s+(?:many|much)(?:\s+times)?
      | how\s+long
      | how\s+often
      | (?:what|which|who|whom|whose|when|where|why|how)
      | (?:is|are|was|were|do|does|did|has|have|had|can|could|would|will|should)
    )\b
    (?:\s+(?:is|are|was|were|do|does|did|has|have|had|can|could|would|will|should)\b)?
    """,
    re.IGNORECASE | re.VERBOSE,
)
_FILLER = re.compile(
    r"""\b(?:
        as\s+mentioned(?:\s+on)?
      | (?:last|this|next|past|previous)\s+(?:week|weekend|month|year|night|time)
      | (?:a\s+few|few|couple\s+of)\s+(?:days|weeks|months|years)\s+ago
      | yesterday | today | tomorrow | recently | lately | currently | nowadays
      | ever | likely | probably | exactly
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# "did"/"does" after the lead ("What kind of deal did John get") are question syntax too.
_DO_AUX = re.compile(r"\b(?:did|does)\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"(\w)['\u2019]s\b")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([?!.,;:])")
_STRAY_PUNCT = re.compile(r"[,;:]+(?=[,;:?!.])")


def rewrite_query(text: str, *, strip_question: bool = False) -> str:
    """A search query from a message; the input itself when nothing would remain.

    >>> rewrite_query("When did Maria's dog go to the vet last week?")
    'When did Maria dog go to the vet?'
    >>> rewrite_query("When did Maria's dog go to the vet last week?", strip_question=True)
    'Maria dog go to the vet?'
    """
    if not isinstance(text, str):
        raise TypeError(f"rewrite_query needs a str, got {type(text).__name__}")
    out = _POSSESSIVE.sub(r"\1", text)
    if strip_question:
        out = _QUESTION_LEAD.sub(" ", out, count=1)
        out = _DO_AUX.sub(" ", out)
    out = _FILLER.sub(" ", out)
    out = _SPACES.sub(" ", out).strip()
    out = _SPACE_BEFORE_PUNCT.sub(r"\1", out)  # "vet ?" -> "vet?"
    out = _STRAY_PUNCT.sub("", out).strip(" ,;:")
    return out if re.search(r"\w", out) else text.strip()


_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s*|\n+")
_NOT_WORD = re.compile(r"[\W_]+")
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def _norm(sentence: str) -> str:
    return _NOT_WORD.sub(" ", sentence.lower()).strip()


def join_unique(parts: list[str]) -> str:
    """The parts joined as one query, each sentence once: a sentence already present (same
    words, whatever the case and punctuation, or inside a longer kept sentence) is left
    out. The previous turn and working memory often hold the message's own sentences."""
    kept: list[str] = []
    seen: list[str] = []
    for part in parts:
        for sentence in _SENTENCE_END.split(part):
            sentence = " ".join(sentence.split())
            norm = _norm(sentence)
            if not norm or any(norm == s or f" {norm} " in f" {s} " for s in seen):
                continue
            kept.append(sentence)
            seen.append(norm)
    return " ".join(kept)


def _in_word(ch: str) -> bool:
    """Part of a word that must not be split: a letter or digit outside Chinese script."""
    return ch.isalnum() and not _CJK_CHAR.match(ch)


def cut_at_word(text: str, limit: int) -> str:
    """``text`` (spaces folded) within ``limit`` characters, never ending inside a word:
    cut at the last space or punctuation before the limit, or next to a Chinese character.
    Only a single word longer than ``limit`` is cut inside (there is no other way)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    for p in range(limit, 0, -1):
        if not (_in_word(text[p - 1]) and _in_word(text[p])):
            return text[:p].rstrip()
    return text[:limit]
