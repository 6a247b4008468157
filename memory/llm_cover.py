"""Which of the user's clauses the rules' facts already read, for the hybrid extractor.

A clause goes to the model unless the rules read it. A rule fact that shares the
clause's words only reads part of it ("Hannah is plant manager at the Wakefield site,
not Leeds" beside "Hannah Cole: plant manager."; "Priya Nair (Director of Clinical IT):
Seven, Greg" beside "Priya Nair: Director of Clinical IT."): such a clause counts as
read only when the facts that share its words also hold its salient content, the
figures, the capitalised names and terms and (Chinese) most of its characters. What
they leave out reaches the model, which sorts the clause whole; the kinds of fact the
rules read there stay theirs (``Line.taken``), so the model's line does not repeat them.
Pure functions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from memagent.memory.llm_items import _bigrams, _similarity, figures_of
from memagent.memory.llm_skip import _words
from memagent.memory.llm_twins import names_more
from memagent.memory.write_path import Candidate, numbers


def fact_core(text: str) -> str:
    """A rule fact's text without its "Label: " prefix."""
    return re.split(r"^[^:：]{1,30}[:：]\s*", text)[-1].strip(" 。.")


def covering(clause: str, rules: Sequence[Candidate]) -> list[Candidate]:
    """The rule facts that share ``clause``'s words: same words, one inside the other,
    most of the clause's character pairs inside the fact, or every word of the fact in
    the clause ("Victor Ramos: CFO." reads "Victor Ramos is the CFO")."""
    out = []
    words = _words(clause)
    pairs = _bigrams(clause)
    for r in rules:
        core = fact_core(r.content)
        inside = len(pairs & _bigrams(r.content)) / len(pairs) if pairs else 0.0
        if (
            clause in r.content
            or (len(core) >= 4 and core in clause)
            or _similarity(clause, core) >= 0.5
            or inside >= 0.8
            or (len(_words(r.content)) >= 2 and _words(r.content) <= words)
        ):
            out.append(r)
    return out


_FIGURE = re.compile(r"\d+")
_TERM = re.compile(r"(?<![\w'’])[A-Z][\w'’&.-]*[A-Za-z0-9]|(?<![\w'’])[A-Z](?![\w'’])")
"""A capitalised word or an acronym ("Wakefield", "SAP", "ServiceTitan", "St")."""
_PLAIN = frozenset(
    re.findall(
        r"\S+",
        "i i'm i'll i've i'd a an the they they're their he she he's she's it it's we we're "
        "our my and but so also oh ok okay yes no not also then just met had",
    )
)
"""Capitalised words that name nothing ("They", "She's", "Also" at a clause's head)."""
_CJK = re.compile(r"[\u4e00-\u9fff]")
_READ_CJK = 0.75
"""Least share of a Chinese clause's characters the facts sharing its words must hold."""


def salient(clause: str) -> tuple[set[str], set[str], list[str]]:
    """The clause's figures, capitalised names and terms (lower case), and Chinese
    characters: what a rule fact must hold to have read it."""
    text = unicodedata.normalize("NFKC", clause)
    figures = set(_FIGURE.findall(text))
    terms = {t.lower() for t in _TERM.findall(text)} - _PLAIN
    return figures, terms, _CJK.findall(text)


def read_whole(clause: str, readers: Sequence[Candidate]) -> bool:
    """Whether the rule facts ``readers`` (those sharing the clause's words) hold its
    salient content (see the module)."""
    if not readers:
        return False
    said = unicodedata.normalize("NFKC", " ".join(f"{r.content} {r.value or ''}" for r in readers))
    figures, terms, hanzi = salient(clause)
    if figures - set(_FIGURE.findall(said)):
        return False
    lower = said.lower()
    if any(t not in lower for t in terms):
        return False
    return not hanzi or sum(ch in said for ch in hanzi) / len(hanzi) >= _READ_CJK


def covered(clause: str, rules: Sequence[Candidate]) -> bool:
    """Whether the rules read ``clause``: facts share its words and hold its salient
    content."""
    return read_whole(clause, covering(clause, rules))


def redundant(cand: Candidate, rules: Sequence[Candidate]) -> bool:
    """An LLM fact the rules already hold: the same key, or the same figures, or the
    same words (a small model often restates one sentence as one long item)."""
    figures = figures_of(_undated(cand.content))
    # a person no rule fact names: only the facts it names no one beyond can hold it
    new_person = cand.attribute.startswith("stakeholder") and names_more(
        cand.content, " ".join(r.content for r in rules)
    )
    for r in rules:
        if new_person and names_more(cand.content, r.content):
            continue  # about someone the rule fact does not name
        if cand.attribute == r.attribute:
            return True
        if figures and figures <= figures_of(_undated(r.content)) | numbers(r.value or ""):
            return True
        if _similarity(cand.content, r.content) >= 0.6:
            return True
        core = fact_core(r.content)
        if len(core) >= 6 and core in cand.content:
            return True  # the item restates the rules' clause inside a longer text
    return False


_RESOLVED = re.compile(r"\s?\((?:[^()]|\([^()]*\))*\d{4}(?:[^()]|\([^()]*\))*\)")


def _undated(text: str) -> str:
    """A text without the absolute dates written after its relative ones ("明年 (2027年)
    要过评级四级"): a year both facts' dates fall in is not a figure they share."""
    return _RESOLVED.sub("", text)
