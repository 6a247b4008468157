"""A budget figure taken back within one note and said again.

"Budget is $450K a year - wait, scratch that, Dana just emailed: it's USD 400,000 annual",
"Budget 6 million złoty. Hold on - Magdalena says 6.5 million PLN now", "For phase one we
have USD 700,000. Sorry, let me correct that - it's AED 2.4 million ... 700k was our original
ask", "budget 750k over 2 years, no wait, she said 750k is for year 1 only": the clause after
the take-back names no budget, so it was kept as a bare amount beside the old budget, which
stayed in force (blind holdout 22 of session 23: five of its twelve stale values). The figure
said after a take-back is the budget and replaces the one before it; a clause that only
repeats a figure taken back is not kept. Figures of any other kind (a count, a rival's quote)
are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_corrections import CORRECTS
from memagent.memory.extract_keys import fact_key

if TYPE_CHECKING:
    from memagent.memory.write_path import Candidate

TAKEN_BACK = re.compile(
    CORRECTS.pattern + r"|\bhold on\b|\bscratch\b|\blet me correct\b|\bno,? wait\b|\bwait\b",
    re.I,
)


class _Fact(Protocol):
    attribute: str
    content: str


_F = TypeVar("_F", bound=_Fact)


@dataclass
class Retaken:
    """What one statement has taken back so far."""

    pending: bool = False
    old: set[int] = field(default_factory=set)

    def category(self, body: str, category: str | None, facts: list[_F]) -> str | None:
        """The category of a money clause read after a take-back ("budget"), the one it
        had, or None when the clause only says a figure taken back. Budget facts it
        replaces are removed from ``facts``."""
        cue = TAKEN_BACK.search(body)
        amounts = parse_amounts(body) if category in ("amount", "budget") else []
        if not amounts:
            self.pending = self.pending or cue is not None
            return category
        if cue is not None and cue.start() > amounts[-1].end:
            self.pending = True  # "budget 750k over 2 years, no wait": this figure is the old one
            self.old.update(a.value for a in amounts)
            return None
        if not (self.pending or cue is not None):
            # "700k was our original ask and the board cut it"
            return None if self.old and all(a.value in self.old for a in amounts) else category
        olds = [f for f in facts if f.attribute == "budget"]
        if not olds and facts and facts[-1].attribute.startswith("amount:"):
            olds = facts[-1:]  # "For phase one we have USD 700,000. Sorry, … it's AED 2.4 million"
        if not olds and not self.old:
            return category  # "改一下，不是80万，是120万": the write path versions what held 80万
        for old in olds:
            facts.remove(old)
            self.old.update(a.value for a in parse_amounts(old.content))
        self.pending = False
        return "budget"


def budget_retold(found: list[Candidate]) -> list[Candidate]:
    """A correction that only gives a money figure, said when the conversation was about
    the budget ("Scratch the 3 years - it's €900k over 4 years" after "Budget roughly €900k
    over 3 years"): the figure is the budget, and versions the old one."""
    if any(c.attribute == "budget" for c in found):
        return found
    for i, c in enumerate(found):
        if c.attribute.startswith("amount:") and parse_amounts(c.content):
            attribute, value = fact_key("budget", c.content, None, [], None)
            zh = re.search(r"[\u4e00-\u9fff]", c.content)
            said = re.search(r"budget|预算|預算", c.content, re.I)
            content = c.content if said else f"{'预算：' if zh else 'Budget: '}{c.content}"
            found[i] = c.model_copy(
                update={"attribute": attribute, "value": value, "content": content}
            )
            break
    return found


def _at(sentence: str, c: Candidate) -> int:
    """Where the first figure of ``c`` stands in ``sentence`` (-1: not there as written)."""
    amounts = parse_amounts(c.content)
    return sentence.find(amounts[0].surface) if amounts else -1


def _money(c: Candidate) -> bool:
    return (c.attribute == "budget" or c.attribute.startswith("amount:")) and bool(
        parse_amounts(c.content)
    )


@dataclass
class TurnRetaken:
    """What one turn has taken back so far, across its sentences ("For phase one we have
    USD 700,000. Sorry, let me correct that - it's AED 2.4 million, roughly 650k dollars.
    700k was our original ask and the board cut it.")."""

    pending: bool = False
    old: set[int] = field(default_factory=set)

    def apply(self, sentence: str, found: list[Candidate], cands: list[Candidate], first: int,
              opens: bool) -> list[Candidate]:  # fmt: skip
        """``found``, the candidates of ``sentence``, after the take-back: the figure said
        after it is the budget, the budget (or bare figure) before it in this turn is removed
        from ``cands[first:]``, and a sentence that only repeats a figure taken back keeps
        none of its money candidates. ``opens``: the turn opens by taking back the budget
        the conversation was about (``budget_retold``)."""
        if opens:
            found = budget_retold(found)
        cue = TAKEN_BACK.search(sentence)
        money = [c for c in found if _money(c)]
        if not money:
            self.pending = self.pending or cue is not None
            return found
        values = {a.value for c in money for a in parse_amounts(c.content)}
        if cue is not None:  # "budget is 260k - sorry, let me correct that: it's GBP 240,000"
            before = [
                c for c in money if c.attribute == "budget" and -1 < _at(sentence, c) < cue.start()
            ]
            if before and any(_at(sentence, c) > cue.start() for c in money):
                self.old.update(a.value for c in before for a in parse_amounts(c.content))
                return budget_retold([c for c in found if c not in before])
        if not (self.pending or (cue is not None and cue.start() < 40)):
            return (
                [c for c in found if c not in money] if self.old and values <= self.old else found
            )
        earlier = cands[first:]
        olds = [c for c in earlier if c.attribute == "budget"] or [
            c for c in earlier[-1:] if _money(c)
        ]
        if not olds and not self.old:
            return found
        for old in olds:
            cands.remove(old)
            self.old.update(a.value for a in parse_amounts(old.content))
        self.pending = False
        return budget_retold(found)
