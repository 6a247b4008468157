"""Versioning keys of sales facts: which attribute (and value) one clause is stored
under, so single-valued attributes supersede (``budget``, ``decision_maker``,
``deal_stage``) and everything else is keyed by its subject (``deadline:<event>``,
``competitor:<name>:quote``, ``count:<thing>``, ``contact_preference:<person>:channel``,
``stakeholder:<person>:<hash>``, ``requirement:<hash>``...). Pure functions; used by
the sales rules (``extract_sales``) and, through ``content_key``, by the LLM extractor.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from memagent.core.types import Turn
from memagent.memory.extract_account import BUDGET_STATUS, account_detail
from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_calendar import ANY_DAY
from memagent.memory.extract_clauses import counted, label_category
from memagent.memory.extract_corrections import CORRECTS, current_amount, target_date
from memagent.memory.extract_corrections import RESCHEDULE as _RESCHEDULE
from memagent.memory.extract_cues import EVENT_RES
from memagent.memory.extract_dates import DateHit, find_dates
from memagent.memory.extract_entities import competitor_name
from memagent.memory.extract_hedges import is_uncertain
from memagent.memory.extract_labels import preferred_channel


def text_hash(text: str) -> str:
    """A short stable hash of a text, whitespace and case aside."""
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()[:8]


def slug(text: str) -> str:
    """A key-safe form of a name ("Li Wei" -> "li_wei")."""
    s = re.sub(r"[^\w]+", "_", text.strip().lower()).strip("_")
    return s[:40] or text_hash(text)


def event_of(clause: str) -> str | None:
    """The event a dated clause is about ("demo", "signing", "go_live"), or None. An
    event word that only names a document ("POC计划", "PoC scope doc", "reference
    architecture") is not the event: sending that document by Friday moves no PoC."""
    clause = _DOCUMENT.sub(" ", clause)
    return next((name for name, p in EVENT_RES if p.search(clause)), None)


_DOCUMENT = re.compile(
    r"(?:(?<![A-Za-z])(?:poc|pilot|demo|reference|evaluation|eval|rollout|go-live|kickoff|kick-off)"
    r"|试点|测试|演示|评估|上线|启动|投标)(?=\s?(?:(?:需要|要用|所需|用)的?[\u4e00-\u9fff]{0,4}?)?(?:plans?|scope|scoping|docs?|documents?|decks?|agenda|scripts?|"
    r"architecture|templates?|checklists?|reports?|summary|questions|计划|范围|文件|文档|材料|清单|报告|模板|架构|大纲|方案)(?![a-z]))",
    re.I,
)


def fact_key(category: str, clause: str, person: str | None, dates: list[DateHit],
             context: str | None, label: str = "") -> tuple[str, str | None]:  # fmt: skip
    """(attribute, value) of a clause: single-valued attributes share one key, the rest
    are keyed by their subject so one never supersedes another. ``label``, the field a
    note gave the clause ("Close: Dec 15"), names the event or figure as the clause does."""
    if category in ("amount", "budget") and _DEAL_VALUE.search(
        f"{label}: {clause}" if label else clause
    ):
        amounts = parse_amounts(clause)
        if amounts:  # the deal's size: a rescoped deal replaces the old figure
            return "deal_value", current_amount(clause, amounts).normalised
    if label and dates and event_of(clause) is None and event_of(label):
        clause = f"{label}: {clause}"  # "Close: Dec 15" is the close date
    if category == "budget":
        amounts = parse_amounts(clause)
        if not amounts:  # "the budget was approved last week": where it stands, no figure
            return ("budget_status", slug(clause)[:60]) if BUDGET_STATUS.search(clause) else ("budget", None)  # fmt: skip
        amount = current_amount(clause, amounts)
        return "budget", amount.normalised + (" approx" if amount.approx else "")
    if category == "deal_stage":
        return "deal_stage", slug(clause)[:60]
    if category == "profile" and (detail := account_detail(clause, label)) is not None:
        return f"profile:{detail}", slug(clause)[:60]  # a corrected HQ replaces the old one
    if category == "milestone" and dates and _AHEAD.search(clause):
        category = "timeline"  # "希望下个月底之前完成POC": a date ahead, not a milestone passed
    elif category == "milestone":
        return f"deal_stage:milestone:{text_hash(clause)}", None
    event = event_of(clause) if dates else None
    if event and (
        category in ("requirement", "pain_point", "incumbent", "amount", "count")
        or (category == "competitor" and not parse_amounts(clause))
    ):
        category = "timeline"  # "they want the contract signed by Dec 21" is a date first
    if category in ("timeline", "commitment") and dates:
        if event is None and context and (_moves(clause) or is_uncertain(clause)):
            return context, target_date(clause, dates).iso
        if event:  # one date per event, whether a deadline of theirs or a commitment of ours
            return f"deadline:{event}", target_date(clause, dates).iso
        prefix = "deadline" if category == "timeline" else "commitment"
        return f"{prefix}:{text_hash(clause)}", target_date(clause, dates).iso
    if category == "competitor":
        who = competitor_name(clause)
        if who and (quoted := parse_amounts(clause)):
            # a rival's newer quote replaces its older one
            return f"competitor:{slug(who)}:quote", current_amount(clause, quoted).normalised
        return f"competitor:{slug(who or text_hash(clause))}:{text_hash(clause)}", None
    if category == "count" and (c := counted(clause)):
        # one figure per thing counted: "250 stores" versions "200 stores"; a pilot's
        # "10 stores" is not how many stores they have
        trial = ":trial" if _TRIAL.search(clause) else ""
        return f"count:{slug(c[1].rstrip('s'))}{trial}", c[0]
    if category == "contact_preference":
        who = slug(person or "customer")
        if (channel := preferred_channel(clause)) is not None:
            # one preferred channel per person: "Kim now prefers WhatsApp" replaces "Kim prefers email"
            return f"contact_preference:{who}:channel", channel
        return f"contact_preference:{who}:{text_hash(clause)}", None
    if category == "stakeholder" and person:
        return f"stakeholder:{slug(person)}:{text_hash(clause)}", None
    return f"{category}:{text_hash(clause)}", None


_AHEAD = re.compile(
    r"\b(?:by|before|until|plan(?:s|ned)? to|will|want(?:s)? to|need(?:s)? to|must|target)\b|之前|以前|前(?:要|得|必须)?完成|希望|计划|要在|争取|必须",
    re.I,
)


_DEAL_VALUE = re.compile(
    r"^\s*(?:deal |opp(?:ortunity)? |contract |total )?(?:value|amount|size|acv|tcv|arr)\s*:|"
    r"\b(?:deal (?:value|size|amount)|contract value|opportunity (?:value|size))\b|"
    r"\b(?:new |revised |reduced )?scope\b.{0,40}\bdeal\b|"
    r"^\s*(?:合同|项目|商机|成交)?金额\s*[:：]|合同(?:金额|额|总价)|商机金额",
    re.I,
)
"""The size of the deal itself, in a labelled CRM note or said outright ("Value: $410,000
(3-yr)", "New scope ~$120k/yr, 1-year deal", "金额：¥2,680,000"): one figure per deal."""


_TRIAL = re.compile(r"\b(?:pilot\w*|trial\w*|test\w*|poc)\b|试点|试用|测试|POC", re.I)


def _moves(clause: str) -> bool:
    """A clause that moves or corrects a date without naming its event ("push it to Jan 6",
    "Correction: the deadline is October 1, not the 15th"): it keeps the talk's key."""
    return bool(_RESCHEDULE.search(clause) or CORRECTS.search(clause))


SINGLE_VALUED = (
    "budget",
    "budget_status",
    "decision_maker",
    "deal_stage",
    "deal_value",
    "seats",
    "team_size",
)


def content_key(attribute: str, content: str, value: str | None = None) -> str:
    """The versioning key of a fact another extractor (the LLM) found in a category:
    single-valued attributes keep their name, dates are keyed by their event, the
    rest by their content, so two requirements never supersede each other."""
    head = attribute.split(":", 1)[0]
    if head in SINGLE_VALUED or ":" in attribute:
        return attribute
    if head in ("deadline", "commitment", "timeline"):
        event = event_of(content)
        return f"deadline:{event}" if event else f"{head}:{text_hash(content)}"
    return f"{head}:{text_hash(content)}"


def dated_event(turns: Sequence[Turn]) -> str | None:
    """The deadline key the conversation was last about ("deadline:demo"), so "push it to
    Jan 6" in the next message moves that date."""
    for t in reversed(turns):
        if find_dates(t.content, ANY_DAY) and (ev := event_of(t.content)):
            return f"deadline:{ev}"
    return None


def headed(category: str | None, body: str, label: str) -> str | None:
    """The category a heading gives a clause that has none of its own ("Current: FIS for
    core", "竞品：易保", "Pain: false positives ~8%"), or whose only cue is a date
    ("痛点：…，月底对账要一周" is a pain point with a date in it)."""
    heading = label_category(label) if label else None
    if heading == "profile":
        return heading  # a CRM field ("Industry: …", "付款条件：…") says what its value is
    if heading not in (None, "stakeholder", "timeline") and (
        category in (None, "amount", "count")
        or (category == "timeline" and heading != "commitment" and event_of(body) is None)
    ):
        return heading
    return category
