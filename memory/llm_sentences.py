"""The user's sentences as the hybrid LLM extractor reads them: which clauses state a
fact, which a condition governs, and which conditional sentences go to the model whole.

A condition governs only its own clause: "Budget ~600k, could stretch to 650 if we add
training" states the budget; "in German if possible" and "if needed" are no condition
at all. A sentence a condition governs whole ("If legal approves, kickoff in May") is
never a plain fact, but it is sent to the model whole, and what the model finds there
is kept with its condition in its words. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memagent.core.types import Turn
from memagent.memory.extract_clauses import split_clauses
from memagent.memory.extract_hedges import is_uncertain
from memagent.memory.extract_rules import sentence_label, user_sentences

_IF = re.compile(
    r"(?:,\s*|\s+)(?:(?:and|but|so|or)\s+)?(?:if|suppose|supposing|imagine|what if|let's say|"
    r"in theory|would be)\b|(?:，|,)?(?:如果|假如|假设|万一)",
    re.I,
)
_NEXT_TOPIC = re.compile(r"\s*[,，]\s*(?=(?:also|oh|plus|anyway|btw)\b|另外|还有|而且)", re.I)
"""Where a run-on's condition ends and the next topic begins ("... if it goes well the
deal is 900k, also they got a pitch from Zuora")."""
_RUN_ON = 3
"""Fewest clauses of a statement with no condition read clause by clause when the
model's items are checked (``clause_hedges``): each clause hedged or not on its own."""
_LEADS_IF = re.compile(
    r"^\s*(?:(?:and|but|so|or|also)\s+)?(?:if|suppose|supposing|imagine|what if|let's say)\b|"
    r"^(?:另外|还有|而且|但是?|不过)?(?:如果|假如|假设|万一)",
    re.I,
)
"""A clause that opens with a condition ("if the pilot works they ...", "如果试点顺利")."""
_OWN_RESULT = re.compile(
    r"\b(?:will|would|could|'ll|'d|then|they'?re going to)\b|"
    r"(?<![事员协学工商年例开])会(?![议计员长所])|[就将能]|可以",
    re.I,
)
"""A condition clause that states its own result ("if it works they will roll out"; the
会 of 董事会 or 会议 is no "will"): the clause after it is not that result."""
_JOKED = re.compile(r"\b(?:joked?|joking|kidding|lol|haha+|jk)\b|[😂🤣😆]|开玩笑|哈哈|说笑", re.I)
"""A sentence that reports a joke ("their buyer joked they'd pay $5 million if ...")."""
_NEW_CONDITION = re.compile(r"\s*(?:[,，]|(?:and|but|so|or)\b)", re.I)
"""A condition after a comma or a conjunction starts a new thought ("he wants a pilot,
and if it goes well ..."): what precedes it stands on its own."""
_ONLY_IF = re.compile(
    r"^\s*(?:(?:and|but|so)\s+)?(?:only if|unless|as long as|provided|assuming)\b|"
    r"^(?:但是?|不过)?(?:只要|前提是|除非|条件是)",
    re.I,
)
"""A trailing condition on the clause before it ("They sign in March, but only if legal
approves"): that clause is hypothetical too."""


_IDIOM_IF = re.compile(
    r"[,，]?\s*\b(?:if (?:possible|needed|necessary|required|applicable|any|at all|need be)|"
    r"where possible|as needed)\b|(?:如果|若)?(?:可能|方便|需要|必要)的话",
    re.I,
)
"""An "if" that states no condition ("in German if possible", "如果方便的话")."""
_PARTS = re.compile(r"\s*[,，;；]\s*")


def statement_sentences(
    turns: Sequence[Turn], *, clause_hedges: bool = False
) -> list[tuple[str, str, bool]]:
    """The user's sentences as the rules label them (``user_sentences``), except a
    sentence that holds a condition and more than one clause (or comma-separated part):
    its clauses are read on their own, so a clause the condition does not govern is a
    statement ("They run Oracle today, but if the pilot works they would move to us";
    "Budget ~600k, could stretch to 650 if we add training"), while the condition, the
    result it states, the clause after a bare leading condition ("if they sign, we give
    10% off") and a clause a trailing "only if"/"unless" governs stay hypothetical. An
    "if" that states no condition ("if possible") leaves a statement a statement.
    With ``clause_hedges`` (what the model's items are checked against) a long statement
    is its clauses too, each hedged or not on its own, and a conditional sentence is
    also a statement whole: the model's fact that keeps its condition is the user's."""
    out: list[tuple[str, str, bool]] = []
    for sentence, label, hedged in user_sentences(turns):
        plain = _IDIOM_IF.sub("", sentence)
        if (
            label == "hypothetical"
            and plain != sentence
            and sentence_label([plain], 0) == ("statement")
        ):
            label = "statement"
        if label == "hypothetical" and _JOKED.search(sentence):
            out.append((sentence, "joke", hedged))  # a joke with an "if" in it is a joke
            continue
        conditional = label == "hypothetical" or (
            label == "statement" and bool(_IF.search(" " + plain))
        )
        split = conditional or (clause_hedges and label == "statement")
        clauses = [c.text for c in split_clauses(sentence)] if split else []
        if conditional and len(clauses) < 2:
            clauses = [p for p in _PARTS.split(sentence.strip(" .。")) if p]
        if len(clauses) < (2 if conditional else _RUN_ON):
            out.append((sentence, label, hedged))
            continue
        if not conditional:
            # a hedge is its own clause's ("..., 卫宁报价好像比我们低，但是他也不确定具体多少"):
            # it makes no other clause of a long run-on unconfirmed
            out.extend((c, label, is_uncertain(c)) for c in clauses)
            continue
        out.extend(_conditional_clauses(clauses, hedged))
    if clause_hedges:
        out.extend((s, "statement", is_uncertain(s)) for s in conditional_sentences(turns))
    return out


_COND_WORDS = 5
"""Fewest words (or twice as many Chinese characters) of a conditional sentence sent
whole: a condition alone ("If the levy passes") states nothing."""


_SPECULATES = re.compile(r"\b(?:would|could|might)\b|\w'd\b|可能|也许|或许|说不定", re.I)
"""A result the speaker only imagines ("the budget would be 300k"), not a plan."""


def conditional_sentences(turns: Sequence[Turn]) -> list[str]:
    """The user's sentences a condition governs whole ("If legal approves, kickoff in
    May", "if it goes well the full rollout is about 2 million"): no clause of theirs is
    a plain statement, so the model is asked about the sentence whole, condition and all.
    Jokes, questions and imagined results ("..., the budget would be 300k") are left out."""
    out = []
    for sentence, label, _ in user_sentences(turns):
        if label not in ("hypothetical", "statement") or _JOKED.search(sentence):
            continue
        if not _IF.search(" " + _IDIOM_IF.sub("", sentence)) or _SPECULATES.search(sentence):
            continue
        if len(sentence.split()) < _COND_WORDS and len(re.findall(r"[\u4e00-\u9fff]", sentence)) < (
            2 * _COND_WORDS
        ):
            continue
        pieces = [p for p in statement_sentences([Turn("user", sentence, "", "")]) if p[0]]
        if all(label != "statement" for _, label, _ in pieces):
            out.append(sentence)
    return out


def _conditional_clauses(clauses: Sequence[str], hedged: bool) -> list[tuple[str, str, bool]]:
    """The clauses of a sentence holding a condition, each labelled (see
    ``statement_sentences``)."""
    out: list[tuple[str, str, bool]] = []
    after_if = False
    for i, text in enumerate(clauses):
        governed = i + 1 < len(clauses) and bool(_ONLY_IF.search(clauses[i + 1]))
        if (
            after_if
            or governed
            or _LEADS_IF.search(text)
            or (sentence_label([text], 0) != "statement")
        ):
            m = _IF.search(" " + text)
            head = text[: max(m.start() - 1, 0)].strip(" ,，") if m else ""
            if m and head and not _NEW_CONDITION.match(m.group(0)):
                # "they'd pay us $5 million if ...": a bare trailing "if" governs its head
                out.append((text, "hypothetical", hedged))
                after_if = len(text[len(head) :].split()) <= 1  # its body is the next clause
                continue
            # a bare leading condition ("if they sign,") governs the clause after it
            after_if = m is not None and not head and not _OWN_RESULT.search(text[m.end() - 1 :])
            if len(head.split()) >= 4 or len(re.findall(r"[\u4e00-\u9fff]", head)) >= 6:
                out.append((head, "statement", is_uncertain(head)))
            condition, *more = _NEXT_TOPIC.split(text[len(head) :].strip(" ,，"))
            out.append((condition, "hypothetical", hedged))
            for part in more:
                label = sentence_label([part], 0)
                out.append((part, label, is_uncertain(part)))
                after_if = label != "statement"
            continue
        out.append((text, "statement", is_uncertain(text)))
    return out
