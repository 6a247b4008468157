"""What the agent's recall adds to a plain store search: feedback expansion and entity focus.

Both work on the candidates of the first search, so they cost one keyword-only search
(no second query embedding) and some arithmetic. Measured on the LoCoMo dev split through
``memagent eval locomo --path agent`` (bench/results/locomo_variants.md): recall@10 0.767
for the store alone; each part helped on its own and together they helped in four of the
five dev conversations and tied in the fifth.

- **Feedback expansion** (pseudo-relevance feedback, the RM3 idea): the top few results
  usually share vocabulary with the evidence the question did not use ("adopt" ->
  "adoption agency", "kids"), so their rarest terms (by the namespace's BM25 idf) are
  added to the question for one more keyword search, whose scores are added at a lower
  weight. It helps recall@10/@20 and costs a little recall@5. Redaction placeholders
  (``[CN_ID#d235fbea]``) and other ids (hex tags, uuids) are never expansion terms: they
  are the rarest terms of any record that holds one, so they used to join every query
  of the account and pull its phone, e-mail and ID records into unrelated questions.
- **Names out of the search text**: when the query names an entity its records are
  about (a person's name, ``li_wei`` for "Li Wei's budget"), the name is taken out of
  the text that is embedded and matched by keyword, and left to the entity focus. A name
  matches every record that merely mentions or addresses that person ("Thanks, Melanie!")
  and pulls chatter up; measured on the LoCoMo dev split through the agent's memory
  (bench/results/locomo_pipeline_variants.md) it raised recall@10 0.789 -> 0.80.
- **Entity focus**: records carry the ``entity`` they are about. When the query names
  one or more of the entities among the candidates (and not all of them), candidates about
  other entities are scaled down. A question about "Li Wei's rollout" should prefer
  what Li Wei said over what the procurement lead said with the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from memagent.core.redact import LABELS

GENERIC_ENTITIES = frozenset({"customer", "user", "客户", "用户"})
"""Default subjects of every record: naming them focuses nothing."""
_CJK = re.compile(r"[\u3400-\u9fff]")
_SEPARATORS = re.compile(r"[\s_\-]+")
PLACEHOLDER = re.compile(rf"\[?(?:{'|'.join(LABELS.values())})#[0-9a-f]{{4,}}\]?", re.IGNORECASE)
"""A redaction placeholder, bracketed or not, in any case (``[PHONE#3fa2c0de]``)."""
_ID_LIKE = re.compile(r"[a-z_]*(?=[0-9a-f-]*[0-9])(?=[0-9a-f-]*[a-f])[0-9a-f-]{6,}", re.IGNORECASE)
"""A term that is an opaque id: a hex tag or uuid part with digits and letters, maybe
glued to a placeholder label (``d235fbea``, ``cnidd235fbea``, ``3f2a9c1e-77aa``)."""


@dataclass(frozen=True)
class RecallTuning:
    """How recall widens and re-weights a search (the defaults won on the LoCoMo dev split).

    ``candidates``: results fetched from the store before scoring. ``feedback_docs`` /
    ``feedback_terms`` / ``feedback_weight``: how many top results feed the expansion,
    how many terms are added, and the weight of the expanded keyword search (0 turns the
    expansion off). ``entity_focus``: relevance factor for candidates about an entity the
    query does not name when it names another (1 turns the focus off).
    """

    candidates: int = 50
    feedback_docs: int = 3
    feedback_terms: int = 10
    feedback_weight: float = 0.3
    entity_focus: float = 0.5
    names_out: bool = True

    def __post_init__(self) -> None:
        if self.candidates < 1:
            raise ValueError(f"candidates must be >= 1, got {self.candidates}")
        if self.feedback_docs < 1 or self.feedback_terms < 1:
            raise ValueError("feedback_docs and feedback_terms must be >= 1")
        if not 0.0 <= self.feedback_weight <= 1.0:
            raise ValueError(f"feedback_weight must be in [0, 1], got {self.feedback_weight}")
        if not 0.0 <= self.entity_focus <= 1.0:
            raise ValueError(f"entity_focus must be in [0, 1], got {self.entity_focus}")

    @property
    def expands(self) -> bool:
        return self.feedback_weight > 0.0


NO_EXPANSION = RecallTuning(candidates=20, feedback_weight=0.0, entity_focus=1.0, names_out=False)
"""A plain search: the store's ranking, unchanged."""


def without_placeholders(text: str) -> str:
    """``text`` with redaction placeholders removed (expansion reads what is left)."""
    return PLACEHOLDER.sub(" ", text)


def is_opaque_term(term: str) -> bool:
    """A term that names nothing a question could be about: a redaction placeholder or an
    id (never an expansion term)."""
    return "#" in term or _ID_LIKE.fullmatch(term) is not None


def feedback_terms(
    query_terms: Iterable[str], top_texts: Sequence[Mapping[str, float]], n: int
) -> list[str]:
    """The ``n`` best expansion terms: summed idf over the top results that contain them,
    excluding the query's own terms and opaque ones (``is_opaque_term``). ``top_texts``
    holds each top result's terms with their idf (``QdrantStore.keyword_idf``)."""
    own = set(query_terms)
    weight: dict[str, float] = {}
    for terms in top_texts:
        for term, idf in terms.items():
            if term not in own and idf > 0 and not is_opaque_term(term):
                weight[term] = weight.get(term, 0.0) + idf
    return [t for t, _ in sorted(weight.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def mentions(query: str, entity: str) -> bool:
    """Whether ``query`` names ``entity``: whole words in order (records store entities as
    slugs, ``li_wei`` for "Li Wei"), or a substring for Chinese."""
    words = [w for w in _SEPARATORS.split(entity.strip()) if w]
    if not words:
        return False
    if _CJK.search(entity):
        return "".join(words) in _SEPARATORS.sub("", query)
    pattern = _name_pattern(entity)
    return pattern is not None and re.search(pattern, query, re.IGNORECASE) is not None


def _name_pattern(entity: str) -> str | None:
    """The regex of ``entity`` as a query writes it (``mentions``), possessive included."""
    words = [w for w in _SEPARATORS.split(entity.strip()) if w]
    if not words:
        return None
    if _CJK.search(entity):
        return "".join(re.escape(w) for w in words)
    joined = r"[\s_\-]+".join(re.escape(w) for w in words)
    return rf"(?<!\w){joined}(?:['’]s)?(?!\w)"


def mentioned(query: str, entities: Iterable[str | None]) -> set[str]:
    """The specific (not generic) entities among ``entities`` that ``query`` names, all
    of them if it names all."""
    known = {e for e in entities if isinstance(e, str) and e.strip()}
    return {e for e in known if e.strip().lower() not in GENERIC_ENTITIES and mentions(query, e)}


def without_names(query: str, names: Iterable[str]) -> str:
    """``query`` with every mention of ``names`` removed (longest first, so "Li Wei" goes
    before "Li"), spaces collapsed: the text to search when the entity focus, not the
    words, is to prefer what those entities said."""
    out = query
    for name in sorted(set(names), key=len, reverse=True):
        pattern = _name_pattern(name)
        if pattern:
            out = re.sub(pattern, " ", out, flags=re.IGNORECASE)
    return " ".join(out.split())


def named_entities(query: str, entities: Iterable[str | None]) -> set[str]:
    """The specific entities among ``entities`` that ``query`` names; empty when it names
    none, or all of them (then there is nothing to prefer)."""
    known = {e for e in entities if isinstance(e, str) and e.strip()}
    named = mentioned(query, known)
    specific = {e for e in known if e.strip().lower() not in GENERIC_ENTITIES}
    return named if named and named != specific else set()


def focus(
    relevance: Mapping[str, float],
    entity_of: Mapping[str, str | None],
    named: set[str],
    factor: float,
) -> dict[str, float]:
    """``relevance`` with candidates about another specific entity scaled by ``factor``;
    candidates about a generic or no entity keep theirs."""
    out = {}
    for key, rel in relevance.items():
        entity = entity_of.get(key)
        other = (
            isinstance(entity, str)
            and entity.strip().lower() not in GENERIC_ENTITIES
            and entity not in named
        )
        out[key] = rel * factor if other else rel
    return out
