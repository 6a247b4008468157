"""Names typed in lower case, capitalised before the rules read a note.

A note typed fast on a phone is all lower case ("the CFO is greg paulsen he signs off on
anything over 500k", "their it director kevin lau"), and the rules know a person by the
capitals of their name. In a note written in lower case, two words right after a title
("cto is nadia petrov", "head of payroll greg ames") are read as the name of the title's
holder and capitalised, unless either is a word of the sentence ("the cto is very keen",
"vp of sales said no"). The text keeps its length: only letters' case changes.
"""

from __future__ import annotations

import re

from memagent.memory.extract_entities import TITLE_EN

_COMMON_WORDS = """
    a an the this that these those it its he she they them his her their our we us you
    your i me my is was are were be been being am has have had do does did will would
    can could should must may might shall not no nor yes and or but so if then than as
    at by for from in into of on onto out over to up with without about after before
    around again also already always just only still very really pretty quite too more
    most less least much many some any all both each every other another such same new
    old now here there when where who whom whose which what why how says said say
    tells told thinks thought wants wanted likes liked loves loved hates hated seems
    seemed looks looked runs ran heads led leads owns signs signed makes made decides
    decided needs needed asked asks agreed agrees left joined starts started retired
    hired approves approved reports reported prefers preferred mentioned confirmed
    sent sends called calls met meets got gets went goes going gone came comes coming
    keen happy unhappy supportive neutral skeptical sceptical skeptic champion blocker
    sponsor lukewarm worried concerned cautious positive negative open against onboard
    aboard fan big huge biggest real main final key basically actually apparently
    probably maybe definitely totally kind kinda sort sorta guy gal person lady man
    woman someone somebody nobody none one two three four five first second last next
    team office department group company firm board budget deal call meeting demo
    pilot and/or plus via per re w/ etc ok okay well oh um uh like lol btw tbd tbh fyi
    asap eod today tomorrow yesterday week month year quarter monday tuesday wednesday
    thursday friday saturday sunday morning afternoon evening tonight soon later
    earlier once twice director manager head lead chief officer vp president owner
    founder engineer analyst admin architect buyer controller counsel partner
    principal dean chair ops it hr he's she's they're it's that's who's there's we're
    i'm i'd i'll don't doesn't didn't isn't wasn't won't can't services service
    operations engineering sales marketing finance procurement purchasing security
    technology tech data product products supply chain logistics legal compliance
    facilities payroll treasury curriculum member members customer customers support
    success people talent infrastructure platform analytics digital strategy business
    development research quality manufacturing production plant retail banking risk
    clinical nursing care education learning training administration accounting
    revenue growth channel transformation innovation cloud network systems software
    applications store stores fleet region regional global north south east west
    central
"""
_COMMON = frozenset(_COMMON_WORDS.split())
"""Words that follow a title and name no one ("the cto is very keen", "vp ops said no")."""
_NOT_NAME = (
    r"(?!(?:"
    + "|".join(re.escape(w) for w in sorted(_COMMON, key=len, reverse=True))
    + r")(?![\w'’-]))"
)
_WORD = _NOT_NAME + r"(?![a-z]+(?:ing|ed|ly)\b)[a-z][a-z'’-]{1,15}"
_LOW_TITLE = r"(?i:\b" + TITLE_EN + r")"
_HOLDER = re.compile(
    _LOW_TITLE
    + r"(?:\s+(?:is|was|=|:|-)|,)?\s+(?:(?:dr|doctor|mr|ms|mrs)\.?\s+)?"
    + r"(?P<first>"
    + _WORD
    + r")\s+(?P<last>"
    + _WORD
    + r")(?![\w'’-])"
)
_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}\b")
_WORDS = re.compile(r"\b[A-Za-z][a-z]{2,}\b")


def lower_case_note(text: str) -> bool:
    """Whether the note is typed in lower case: hardly a word of it starts with a capital
    (acronyms such as "CFO" or "ROI" aside)."""
    words = _WORDS.findall(text)
    return len(words) >= 8 and len(_CAPITALISED.findall(text)) <= len(words) // 40


def capitalised_names(text: str) -> str:
    """``text`` with the names after titles capitalised, when it is typed in lower case."""
    if not lower_case_note(text):
        return text
    out = list(text)
    for m in _HOLDER.finditer(text):
        out[m.start("first")] = m.group("first")[0].upper()
        out[m.start("last")] = m.group("last")[0].upper()
    return "".join(out)
