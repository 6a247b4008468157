"""Broad questions about the account, and which facts answer them.

"What do you know about Acme?", "brief me before the call", "介绍一下这个客户" name no
attribute, so a search for their words finds whatever shares "Acme" or "客户" with
them. They want the account's current state: the budget, the decision maker, the
deadlines, the requirements, how to reach people. ``is_overview`` tells such a
question apart (phrases in both languages, and a question whose only content words
are the account's name, or "customer", and generic words); ``overview_keys`` picks the most important
current facts, one per kind first, so a dozen requirements do not crowd out the budget.
Pure functions over plain data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

# fmt: off
_OVERVIEW = re.compile(
    r"\bwhat\s+(?:do|did|else\s+do)\s+(?:you|we|i)\s+(?:know|have|remember|got)\b"
    r"|\b(?:what|anything)\s+(?:should|must|do)\s+i\s+know\b"
    r"|\btell\s+me\s+(?:(?:everything|all|more|something)\s+)?(?:about|on)\b"
    r"|\b(?:brief|debrief|prep|prepare|update)\s+me\b|\bbriefing\b"
    r"|\bcatch\s+me\s+up\b|\bfill\s+me\s+in\b|\b(?:get|bring)\s+me\s+up\s+to\s+speed\b"
    r"|\brefresh\s+my\s+memory\b|\bremind\s+me\s+(?:about|of|what)\b"
    r"|\b(?:overview|summary|summari[sz]e|rundown|run-down|recap|lowdown|snapshot|profile"
    r"|background|key\s+facts|the\s+facts|big\s+picture|status\s+update)\b"
    r"|\bwhere\s+(?:do|are)\s+(?:we|things)\s+(?:stand|at)\b"
    r"|\bwhat(?:'s|\s+is)\s+(?:the\s+)?(?:status|situation|story|deal)\b"
    r"|\bbefore\s+(?:the|my|our|this|a)\s+(?:call|meeting|visit|demo|pitch)\b"
    r"|\babout\s+(?:this|the|that)\s+(?:customer|account|client|company|prospect|deal|lead)\b"
    r"|介绍|概况|概述|简介|简报|总结|汇总|梳理|回顾|背景|全貌|整体情况|基本情况|什么情况"
    r"|情况(?:怎么样|如何|吧|呢|[？?])|知道(?:些|哪些|什么|多少)|了解(?:些|哪些|什么|多少)"
    r"|说说|讲讲|聊聊|提醒我|(?:电话|会议|开会|见面|拜访|通话)(?:之?前)"
    r"|介紹|概況|簡介|簡報|總結|匯總|回顧|整體情況|基本情況|什麼情況|情況(?:怎麼樣|如何|吧|呢|[？?])"
    r"|知道(?:什麼)|了解(?:什麼)|說說|講講|提醒我|(?:電話|會議|開會|見面|拜訪|通話)(?:之?前)",
    re.IGNORECASE,
)
_GENERIC = frozenset({
    "what", "about", "and", "the", "a", "an", "so", "ok", "okay", "now", "then", "again",
    "customer", "account", "client", "company", "prospect", "deal", "them", "they", "this",
    "that", "it", "us", "please", "hi", "hey", "anything", "news", "any", "on", "with",
    "客户", "公司", "这个", "那个", "这家", "那家", "呢", "吗", "的", "了", "啊", "吧",
})
_ACCOUNT = frozenset({"customer", "account", "client", "company", "prospect", "客户", "公司"})
# fmt: on
_WORDS = re.compile(r"[A-Za-z0-9]+|[\u3400-\u9fff]+")

PRIORITY = (
    "budget", "budget_status", "decision_maker", "deadline", "requirement", "contact_preference",
    "stakeholder", "commitment", "deal_stage", "incumbent", "competitor", "pain_point",
)  # fmt: skip
"""Kinds of facts (the head of ``attribute``) a briefing about the account shows first."""
PER_KIND_FIRST = 1
"""Facts of one kind taken before the next kind gets its turn."""


def is_overview(query: str, customer_id: str = "") -> bool:
    """Whether ``query`` asks about the account as a whole rather than one attribute."""
    if _OVERVIEW.search(query):
        return True
    names = {w.lower() for w in _WORDS.findall(customer_id.replace("_", " ").replace("-", " "))}
    words = [w.lower() for w in _WORDS.findall(query)]
    rest = [w for w in words if w not in _GENERIC and w not in names]
    named = any(w in names or w in _ACCOUNT for w in words)
    return named and not rest and len(words) <= 4


def _rank(value: Mapping[str, Any]) -> tuple[int, float]:
    head = str(value.get("attribute") or "").split(":", 1)[0]
    kind = PRIORITY.index(head) if head in PRIORITY else len(PRIORITY)
    try:
        importance = float(value.get("importance", 0.5))
    except (TypeError, ValueError):
        importance = 0.5
    return kind, -importance


def overview_keys(items: Iterable[tuple[str, Mapping[str, Any]]], limit: int) -> list[str]:
    """Keys of the ``limit`` facts a broad question should see: each kind's best
    ``PER_KIND_FIRST`` facts in ``PRIORITY`` order first, then the rest by kind and importance; one fact per
    (entity, attribute), the newest version."""
    newest: dict[tuple[str, str], tuple[str, Mapping[str, Any]]] = {}
    for key, value in items:
        slot = (str(value.get("entity", "")), str(value.get("attribute") or key))
        seen = newest.get(slot)
        if seen is None or int(value.get("version", 1)) > int(seen[1].get("version", 1)):
            newest[slot] = (key, value)
    ranked = sorted(newest.values(), key=lambda kv: (_rank(kv[1]), kv[0]))
    firsts: list[str] = []
    rest: list[str] = []
    per_kind: dict[int, int] = {}
    for key, value in ranked:
        kind = _rank(value)[0]
        per_kind[kind] = per_kind.get(kind, 0) + 1
        (firsts if per_kind[kind] <= PER_KIND_FIRST else rest).append(key)
    return (firsts + rest)[:limit]
