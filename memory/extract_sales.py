"""Sales-grade rules: one memory per salient clause of a note, keyed by its subject.

A note is cut into clauses (``extract_clauses``: ";", " - ", ", and", " but ", "，",
bullets, a "Must-haves:" label carried to each of its items). A clause is kept when it
says something a salesperson needs later: a stakeholder and their stance, a budget, a
date or deadline, a requirement, the incumbent system, a competitor or quote, a contact
preference, a pain point, a commitment or next step, the deal stage, a count
("400 trucks"). Its content is the clause itself, with the person it is about when
it only says "she"/"他", and every date written out absolutely from the message time.

Keys (``attribute``): single-valued attributes supersede (``budget``,
``decision_maker``, ``deal_stage``); everything else is many per account and keyed
by its subject: ``deadline:<event>``, ``commitment:<what>``, ``stakeholder:<person>``,
``requirement:<hash>``, ``competitor:<name>``, ``incumbent:<name>``,
``pain_point:<hash>``, ``contact_preference:<person>:<hash>``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memagent.memory.extract_aliases import with_full_names
from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_clauses import Clause as Clause  # re-exported
from memagent.memory.extract_clauses import categorise, counted, label_category, split_clauses
from memagent.memory.extract_corrections import RESCHEDULE as _RESCHEDULE
from memagent.memory.extract_corrections import drop_old_values, target_date
from memagent.memory.extract_cues import (
    ASIDE,
    BUDGET_WORDS,
    DECIDES,
    LEFT,
    LONE_NAME,
    NOISE,
    NOT_AHEAD,
    NOT_ALLOWED,
    ONLY_NAMES,
    STANCE,
    SUBJECTLESS,
    TITLE_LINE,
)
from memagent.memory.extract_dates import DateHit, find_dates
from memagent.memory.extract_entities import (
    OTHER_PARTY,
    SURNAMES,
    Person,
    find_people,
    full_name,
    known_names,
    last_person,
    pronoun_role,
)
from memagent.memory.extract_entities import competitor_name as competitor_name  # re-exported
from memagent.memory.extract_halves import (
    CHANNEL,
    contact_half,
    grades_previous,
    named_expiry,
    rival_half,
)
from memagent.memory.extract_hedges import BARE_HEDGE, DOUBT_ABOUT, is_uncertain
from memagent.memory.extract_keys import SINGLE_VALUED as SINGLE_VALUED  # re-exported
from memagent.memory.extract_keys import content_key as content_key  # re-exported
from memagent.memory.extract_keys import event_of, fact_key, headed, slug
from memagent.memory.extract_labels import PLAIN_LABEL, labelled
from memagent.memory.extract_retaken import Retaken
from memagent.memory.extract_titles import labelled_decider, role_label

_FILLER = re.compile(
    r"^\s*(?:also|and|plus|so|ok(?:ay)?|update|fyi|anyway|btw|oh|哦对了|另外|还有|对了|"
    r"no(?=\s*[,.!:，])|yes|yeah|yep|correction(?: from [\w' ]+)?|更新一下|纠正|更正)\b[,:，：\s-]*",
    re.I,
)


def with_dates(text: str, dates: list[DateHit]) -> str:
    """``text`` with each relative or partial date followed by its absolute form."""
    out, last = [], 0
    for d in dates:
        out.append(text[last : d.end])
        if d.iso.lower() not in d.surface.lower():
            out.append(f" ({d.iso})")
        last = d.end
    out.append(text[last:])
    return "".join(out)


@dataclass
class SalesFact:
    """One clause worth keeping, before it becomes a ``Candidate``."""

    content: str
    category: str
    attribute: str
    value: str | None
    uncertain: bool
    event_time: datetime | None = None


def _plain(content: str) -> str:
    """A fact's content without the absolute dates written into it ("周一 (2026-12-07)")."""
    return re.sub(r"\s\((?:[^()]|\([^()]*\))*\)", "", content)


def _substance(text: str) -> int:
    """Words (or Chinese characters) a clause has beyond filler."""
    return len(_WORDS.findall(re.sub(r"\b(?:the|a|an|on|of|to|in|per|her|his|its|yes|no)\b", "", text,
                                     flags=re.I)))  # fmt: skip


def sales_facts(
    text: str,
    ref: datetime,
    *,
    context_event: str | None = None,
    names: Sequence[str] = (),
    prior_person: str | None = None,
) -> tuple[list[SalesFact], str | None]:
    """The facts of one user statement (a sentence or bullet line), and the deadline key
    the conversation is now about (for "push it to Jan 6" in a later clause or turn).
    ``names`` are people named in the message, to expand "Zhou" to "Zhou Lin";
    ``prior_person`` the last one named before this statement ("He is our champion")."""
    reader = _Reader(ref, list(dict.fromkeys([*known_names(text), *names])), last_person(text),
                     prior_person, context_event)  # fmt: skip
    people = find_people(text)
    # "Brian is actually SVP of Member Experience" after "Brian Foley": a role by first name
    seen = {p.name for p in people}
    full = with_full_names(text, reader.known)
    reader.facts = [_role_fact(p, text) for p in people] + [
        _role_fact(p, full) for p in find_people(full) if p.name not in seen
    ]
    reader.facts += [SalesFact(f"{p.name}: decision maker.", "stakeholder", "decision_maker",
                               p.name.lower(), False) for p in people if labelled_decider(text, p.start)]  # fmt: skip
    if not people and (said := pronoun_role(text, prior_person)) is not None:
        reader.facts.append(_role_fact(said, text))  # "correction, she's the CDO"
    for clause in split_clauses(drop_old_values(text)):
        reader.read(clause)
    return reader.facts, reader.context_event


def _role_fact(p: Person, text: str) -> SalesFact:
    """ "王芳：采购负责人。"; a person the note says has left is kept as having left
    ("蔡文：信息部经理（已离职）。"), never as the current holder of the role."""
    zh = re.search(r"[\u4e00-\u9fff]", p.role)
    if (lab := role_label(text, p.start)) and lab.lower() not in p.role.lower():
        p = Person(p.name, f"{p.role}（{lab}）" if zh else f"{p.role}, {lab}", p.start, p.end)
    gone = LEFT.search(re.split(r"[。.;；!！?？,，(（)）]", text[p.end :], maxsplit=1)[0])
    if gone:
        role = f"{p.role}（{gone.group(0)}）" if zh else f"{p.role} ({gone.group(0)})"
        p = Person(p.name, role, p.start, p.end)
    content = f"{p.name}：{p.role}。" if zh else f"{p.name}: {p.role}."
    return SalesFact(content, "stakeholder", f"stakeholder:{slug(p.name)}:role", p.role.lower(),
                     False)  # fmt: skip


_NOT_LONE = ("They", "There", "This", "That", "She", "Budget")


@dataclass
class _Reader:
    """Reads the clauses of one statement in order, carrying who and what they are about."""

    ref: datetime
    known: list[str]
    person: str | None
    prior_person: str | None
    context_event: str | None
    facts: list[SalesFact] = field(default_factory=list)
    current_person: str | None = None
    last_rival: str | None = None
    last_system: str | None = None
    prev_body: str = ""
    retaken: Retaken = field(default_factory=Retaken)

    def read(self, clause: Clause) -> None:
        body = _FILLER.sub("", clause.text).strip()
        if not body or NOISE.match(body) or ASIDE.search(body):
            return
        if self.facts and (BARE_HEDGE.match(body) or DOUBT_ABOUT.match(body)):
            # "Go-live moves to Q3, not confirmed yet": the hedge is about the clause before
            self.facts[-1].uncertain = True
            return
        if grades_previous(body):  # "- must have", "这是硬性要求": it grades the clause before
            self._graded(body, clause.label)
            return
        body, category = self._joined(body, clause)
        dates = find_dates(body, self.ref)
        named = (
            last_person(body)
            or full_name(body, self.known)
            or next(
                (
                    n
                    for n in reversed(self.known)
                    if _ZH.search(n) and n in with_full_names(body, self.known)
                ),
                None,
            )  # "钱律师" after 钱文彬
        )
        lone = LONE_NAME.match(body)
        if lone and lone.group(1) not in _NOT_LONE:
            named = full_name(lone.group(1), self.known) or lone.group(1)
        if not named and (by_label := self._label_person(clause.label)):
            named = by_label  # "郑宇：中立，主要关注系统稳定性", "【邓总】：价格太高了"
        self.current_person = named or self.current_person
        if (
            category is None
            and dates
            and self.context_event
            and (_RESCHEDULE.search(body) or is_uncertain(body))
        ):
            category = "timeline"
        if (
            (
                category is None
                or (category in ("requirement", "pain_point", "profile") and self._about_them(body))
            )
            and (STANCE.search(body) or DECIDES.search(body))
            and (self.current_person or self.person or self.prior_person)
        ):
            category = "stakeholder"  # "worried about the integration workload": their stance
        category = self.retaken.category(body, category, self.facts)
        listed = (
            bool(clause.label and label_category(clause.label))
            and _substance(body) >= 1
            and not find_people(body)
        )
        if category is None or not (
            self._substantial(body, dates) or listed or category == "deal_stage"
        ):
            return  # an item under a heading may be one word ("Competitors: Workday")
        if category == "timeline" and self._logged(body, dates, clause.label):
            return  # "Fwd: discovery call 11 Nov", "转发：高层汇报会纪要（11月6日）": a record
        self._add(body, category, dates, clause.label)

    def _graded(self, grade: str, label: str) -> None:
        """Write a grade into the fact before it, or keep the clause it grades when that one
        said nothing the rules knew ("SOC 2 report from the vendor - must have")."""
        glue = "，" if _ZH.search(grade) else " - "
        prev, last = self.prev_body, (self.facts[-1] if self.facts else None)
        if last is not None and (not prev or prev[:20] in _plain(last.content)):
            last.content += f"{glue}{grade}"
        elif prev:
            kind = "pain_point" if re.search(r"pain|痛点", grade, re.I) else "requirement"
            self._add(f"{prev}{glue}{grade}", kind, [], label)

    def _logged(self, body: str, dates: list[DateHit], label: str) -> bool:
        """A dated line that records a meeting already held (a forwarded note's title, a
        visit log's date): every date is before the message's own day, or the line is a
        note's title and none is after it, or it is a meeting dated today ("今天跟X开会")."""
        days = [d.day for d in dates if d.day is not None]
        if not days or len(days) < len(dates):
            return False
        today = self.ref.date()
        met = event_of(body) == "meeting" and all(NOT_AHEAD.search(d.surface) for d in dates)
        held = TITLE_LINE.search(f"{label} {body}") or met
        return all(d < today for d in days) or (bool(held) and all(d <= today for d in days))

    def _label_person(self, label: str) -> str | None:
        """The person a "Name:" label names: one the note names elsewhere ("郑宇：中立"
        after "IT总经理 郑宇"), or a Chinese name with an honorific ("【邓总】")."""
        bare = label.strip(" 【】[]*").strip()
        if not bare or label_category(bare):
            return None
        if _HONORIFIC_NAME.match(bare):
            return bare
        full = next((n for n in self.known if n == bare or n.split()[0] == bare), None)
        return full

    def _about_them(self, body: str) -> bool:
        """The clause is about the person ("worried about...", "Pan is worried..."), so a
        stance word in it makes it their stance rather than a requirement or pain point."""
        first = (self.current_person or "").replace("Dr. ", "").split()[:1]
        return bool(SUBJECTLESS.match(body)) or bool(first and body.startswith(first[0]))

    def _joined(self, body: str, clause: Clause) -> tuple[str, str | None]:
        """The clause and its category; a short Chinese clause that only gives a date or an
        amount finishes the one before ("我们负责搭测试环境，下周三之前搞定")."""
        category = categorise(body) or categorise(clause.text)  # "Also talking to IFS"
        if category in (None, "amount", "count") and clause.label:
            # "Rival quote: Infor at 300k": the label says what the figure is
            category = categorise(f"{clause.label}: {body}") or category
        if category is None and clause.label:
            category = categorise(f"{clause.label}: {body}")
        if category is None and self.facts and _CONTINUES.match(body) and self.prev_body:
            # "必须与东华HIS无缝对接，并通过等保三级测评": the second half says more of the same
            category = self.facts[-1].category if self.facts[-1].category in _CARRIED else None
        if category is None and self.facts and self.facts[-1].category == "contact_preference":
            category = "contact_preference" if CHANNEL.search(body) else None  # "…，要发邮件"
        category = headed(category, body, clause.label)
        prev = self.prev_body
        dated = find_dates(body, self.ref) and event_of(body) is None
        value_only = (dated and (event_of(prev) or len(body) <= 8)) or (
            parse_amounts(body) and not BUDGET_WORDS.search(body) and not parse_amounts(prev)
            and not find_people(body))  # fmt: skip
        last = self.facts[-1] if self.facts and prev else None
        if last and (prev[:20] not in _plain(last.content) or last.attribute.endswith(":role")):
            last = None  # the clause before is not the last fact, or a role that stays one
        # "患者回访没人做，流失严重": a short fragment says how the clause before it is
        fragment = (
            last is not None
            and not find_people(body)
            and (len(body) <= 5 or (last.category == "requirement" and NOT_ALLOWED.match(body)))
            and not (
                category in ("budget", "count", "stakeholder")
                or (category is not None and _PRONOUN_START.match(body))
            )
        )
        if (
            prev
            and (
                not clause.dictated
                or (
                    BUDGET_WORDS.search(prev)
                    and value_only
                    and (last is None or len(_plain(last.content)) <= len(prev) + 6)
                )
            )  # fmt: skip
            and (value_only or fragment)
            and re.search(r"[\u4e00-\u9fff]", body)
            and len(body) <= 14
        ):
            body = f"{prev}，{body}"
            category = categorise(body) or (last.category if fragment and last else "timeline")
            category = headed(category, body, clause.label)
            if last is not None:
                self.facts.pop()
        self.prev_body = body
        return body, category

    @staticmethod
    def _substantial(body: str, dates: list[DateHit]) -> bool:
        people = find_people(body)
        rest = body
        for p in people:
            rest = rest.replace(body[p.start : p.end], " ").replace(p.name, " ")
        if people and LEFT.search(rest):
            return False  # "原来的经理蔡文已经离职": their role fact says they left
        least = (
            0 if DECIDES.search(rest) else 2 if STANCE.search(rest) or CHANNEL.search(rest) else 3
        )
        if people and _substance(ONLY_NAMES.sub("", rest)) < least:
            return False  # only a person and role: kept ("the decision sits with X" says more)
        # "on the pain", "'non-negotiable'": too little to stand alone
        return _substance(body) >= 2 or bool(dates or parse_amounts(body) or counted(body))

    def _add(self, body: str, category: str, dates: list[DateHit], label: str) -> None:
        shown = [target_date(body, dates)] if len(dates) > 1 and _RESCHEDULE.search(body) else dates
        content = with_dates(body, shown)  # a move writes out only the date moved to
        if label and not PLAIN_LABEL.match(label):
            content = f"{label}: {content}"
        who = self.current_person or self.prior_person or self.person or (
            self.known[-1] if self.known else None)  # fmt: skip
        if OTHER_PARTY.match(body) and not find_people(body):
            who = None  # "老板陆总拍板，但财务还在犹豫": finance hesitates, not 陆总
        if self._joins_last(body, category, dates, who):
            return
        content = self._subject(content, body, category, who)
        attribute, value = fact_key(category, body, who, dates, self.context_event, label)
        content = labelled(content, attribute.split(":", 1)[0])
        if self.context_event and attribute == self.context_event and event_of(body) is None:
            content = f"{self.context_event.split(':', 1)[1].replace('_', ' ')}: {content}"
        if who and DECIDES.search(body) and category in ("stakeholder", "requirement", "amount"):
            attribute, value = "decision_maker", who.lower()
        if attribute.startswith(("deadline:", "commitment:")):
            self.context_event = attribute
        event_time = None
        when = target_date(body, dates) if dates else None
        if when is not None and when.day is not None:
            event_time = datetime.combine(when.day, datetime.min.time(), self.ref.tzinfo)
        self.facts.append(
            SalesFact(content, category, attribute, value, is_uncertain(body), event_time)
        )

    def _joins_last(self, body: str, category: str, dates: list[DateHit], who: str | None) -> bool:
        """Whether ``body`` only says more of the fact before it, and joins it: what they
        say about it ("Unhappy with Gong - says renewal price jumped"), or a second half of
        one person's stance ("刘婷比较保守，担心数据迁移的风险")."""
        last = self.facts[-1] if self.facts else None
        if (
            last is None
            or dates
            or (is_uncertain(body) and not last.uncertain and parse_amounts(body))
        ):
            return False  # a hedged figure is not joined to a sure fact ("报价好像是280万")
        says = _SAYS.match(body) and category in (None, last.category, "pain_point", "stakeholder",
                                                  "requirement")  # fmt: skip
        stance = (
            category == "stakeholder" and last.category == "stakeholder"
            and not last.attribute.endswith(":role") and last.attribute != "decision_maker"
            and SUBJECTLESS.match(body) and not _PRONOUN_SUBJECT.match(body)
            and not DECIDES.search(body) and who
            and (who in last.content or last.attribute.startswith(f"stakeholder:{slug(who)}:"))
        )  # fmt: skip
        if not (
            says
            or stance
            or contact_half(category, last.category, last.content, body, who)
            or rival_half(category, last.category, body)
        ):
            return False
        glue = "，" if _ZH.search(body) else (" - " if says else ", ")
        last.content = f"{last.content}{glue}{body}"
        return True

    def _subject(self, content: str, body: str, category: str, who: str | None) -> str:
        """``content`` naming who or what it is about when the clause does not."""
        if category == "competitor":
            rival = competitor_name(body)
            if rival is None and self.last_rival and self.last_rival not in content:
                content = f"{self.last_rival}: {content}"  # "价格比我们低三成" after "选了石基"
            self.last_rival = rival or self.last_rival
            return content
        content, self.last_system = named_expiry(content, body, category, self.last_system)
        short = full_name(body, self.known)
        if short and short not in content:
            return f"{short}: {content}"
        if (
            who
            and who not in content
            and not any(k in with_full_names(content, self.known) for k in self.known)
            and (SUBJECTLESS.match(body) or category in ("contact_preference", "stakeholder")
                 or _THEIR_PRONOUN.search(body))
            and not (category in ("commitment", "timeline") and _REQUEST.match(body))
        ):  # fmt: skip
            return f"{who}: {content}"
        return content


_WORDS = re.compile(r"[A-Za-z]+|[\u4e00-\u9fff]")


_ZH = re.compile(r"[\u4e00-\u9fff]")
_CONTINUES = re.compile(
    r"^(?:并且?|而且|且|以及|同时还?|还要|也要|也得|and also|also|plus|as well as)\b|^(?:并且?|而且|且|以及|还要|也要)",
    re.I,
)
_CARRIED = ("requirement", "pain_point", "contact_preference", "incumbent")
_REQUEST = re.compile(r"^(?:please|pls|kindly)\b", re.I)  # a mail's ask of us, not the person's
_THEIR_PRONOUN = re.compile(r"(?:给|跟|和|对|让|找)(?:她|他)(?!们)|\b(?:her|him)\b", re.I)
"""A clause that speaks of the person without naming them ("给她的材料一定要有ROI测算")."""
_HONORIFIC_NAME = re.compile(r"^[" + SURNAMES + r"](?:总|工|主任|处长|经理|部长|院长|老师|局|董)$")
_SAYS = re.compile(r"^(?:says?|said|adds?|added|and says|说|还说)\b|^(?:说|还说)", re.I)
_PRONOUN_SUBJECT = re.compile(r"^(?:she|he|her|his|him|她|他)", re.I)
_PRONOUN_START = re.compile(r"^(?:他|她)(?!们)")
"""A clause that starts with "他/她" is about a person, not a fragment of the clause before."""
