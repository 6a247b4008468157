"""A broad question about the account is answered with the recalled facts, not by the model.

"Brief me before the call", "What do you know about Acme?", "介绍一下这个客户" want the
account's current state, and recall already pins its most important facts for them
(``recall_overview``). Handed those facts, the bundled 1.5B model still answered "brief me
before the call" for an account with four stored facts "I'm sorry, but I don't have enough
information" (session 14, a fresh home, through ``ask``), and elsewhere read a note about
the CTO as being about "the customer" or invented a budget when nothing was stored. So
when the message is a broad question (``is_overview``) that asks for no piece of writing
(an e-mail, an agenda, a translation: ``_PRODUCES``), the reply lists the recalled facts
as the notes state them, most important kinds first (``PRIORITY``), an uncertain one
marked unconfirmed, then up to ``MAX_EPISODES`` dated quotes of what the user wrote that
no listed fact repeats. Nothing recalled: it says so instead of letting the model guess.
Recall that failed (``degraded``) is not "nothing stored": the model answers, as before.
Notes that read as orders to the assistant, and episodes that only asked something, are
left out as the prompt's briefing leaves them out. This is the default
(``MEMAGENT_BRIEF_REPLY=rules``); ``model`` sends broad questions to the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from memagent.memory.episodes import asks_only
from memagent.memory.poison import screen_for_prompt
from memagent.nodes.recall_overview import PRIORITY, is_overview

MAX_FACTS = 12
"""Facts listed at most (the rest are counted)."""
MAX_EPISODES = 3
"""Dated quotes of the user's own notes listed at most, after the facts."""

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_PRODUCES = re.compile(
    r"\b(?:draft|write|compose|rewrite|rephrase|translate|e-?mail|letter|message|agenda|deck"
    r"|slides?|script|pitch|talking\s+points|questions?\s+(?:to|i\s+should|should\s+i)"
    r"|how\s+(?:should|do|can|would|could)\s+(?:i|we)|plan|strategy|approach|suggest"
    r"|recommend|advi[cs]e)\b"
    r"|起草|草拟|草擬|写|寫|翻译|翻譯|邮件|郵件|议程|議程|话术|話術|提纲|提綱|怎么办|怎麼辦"
    r"|怎么谈|怎麼談|如何(?:应对|應對|推进|推進|谈|談)|建议|建議|策略",
    re.IGNORECASE,
)


_NAMES_ONE = re.compile(
    r"\b(?:budget|price|pricing|quote[sd]?|cost|deadline|date|when|who|whom|competitors?"
    r"|contact|phone|e-?mail|requirements?|decision[-\s]makers?|cto|ceo|cfo|incumbent)\b"
    r"|预算|價格|价格|报价|報價|截止|什么时候|什麼時候|谁|誰|竞争|競爭|对手|對手|联系|聯繫|需求|决策|決策",
    re.IGNORECASE,
)


def wants_brief(message: str, customer_id: str) -> bool:
    """Whether ``message`` asks about the account as a whole: a broad question
    (``is_overview``) that names no single attribute ("what do you know about their
    budget?" is the model's) and asks for nothing to be written."""
    text = message.strip()
    return (
        bool(text)
        and is_overview(text, customer_id)
        and not _PRODUCES.search(text)
        and not _NAMES_ONE.search(text)
    )


def field_of(item: Mapping[str, Any], name: str) -> Any:
    value = item.get(name)
    if value is None and isinstance(item.get("value"), Mapping):
        value = item["value"].get(name)
    return value


def _rank(item: Mapping[str, Any]) -> int:
    head = str(field_of(item, "slot") or field_of(item, "key") or "").removeprefix("customer:")
    head = head.split(":", 1)[0]
    return PRIORITY.index(head) if head in PRIORITY else len(PRIORITY)


def quotable(content: Any) -> bool:
    return isinstance(content, str) and bool(content.strip()) and screen_for_prompt(content) is None


def brief_points(items: Sequence[Mapping[str, Any]], zh: bool) -> tuple[list[str], list[str]]:
    """The fact lines and the dated episode lines of a brief over recalled ``items``."""
    facts: list[str] = []
    said: list[str] = []
    ranked = sorted(
        (i for i in items if field_of(i, "origin") != "episode"), key=_rank
    )  # stable: recall's order within a kind
    for item in ranked:
        content = field_of(item, "content")
        if not quotable(content):
            continue
        flat = " ".join(content.split())
        line = flat + (
            ("（待确认）" if zh else " (unconfirmed)")
            if field_of(item, "status") in ("pending", "unconfirmed")
            else ""
        )
        if line not in facts:
            facts.append(line)
            said.append(flat.casefold())
    quotes: list[str] = []
    for item in items:
        content = field_of(item, "content")
        if field_of(item, "origin") != "episode" or not quotable(content) or asks_only(content):
            continue
        flat = " ".join(content.split())
        if any(s in flat.casefold() for s in said) or len(quotes) == MAX_EPISODES:
            continue  # a listed fact already says it
        day = str(field_of(item, "date") or "")[:10]
        quote = f"“{flat}”"
        quotes.append(
            (f"{day} 你写道：{quote}" if zh else f"{day}, you wrote: {quote}") if day else quote
        )
    return facts, quotes


def account_brief(
    message: str,
    customer_id: str,
    items: Sequence[Mapping[str, Any]],
    *,
    degraded: Sequence[str] = (),
) -> str | None:
    """The reply to a broad question about ``customer_id`` from the recalled ``items``
    (``State.briefing``), or None when the model should answer: the message is not a
    broad question, asks for a piece of writing, or recall failed this turn."""
    if not wants_brief(message, customer_id) or "recall" in degraded:
        return None
    zh = bool(CJK.search(message))
    facts, quotes = brief_points(items, zh)
    name = customer_id or ("这个客户" if zh else "this customer")
    if not facts and not quotes:
        if zh:
            return f"关于 {name}，我还没有任何记录。把拜访笔记发给我，我会记下来。"
        return f"I have nothing stored about {name} yet. Send me your notes and I will keep them."
    lines = [f"- {f}" for f in facts[:MAX_FACTS]]
    more = len(facts) - MAX_FACTS
    if more > 0:
        lines.append(f"- ……另有 {more} 条" if zh else f"- … and {more} more")
    if quotes:
        lines += ["", "你之前的笔记：" if zh else "From your notes:", *(f"- {q}" for q in quotes)]
    head = f"关于 {name}，我记得：" if zh else f"What I have on {name}:"
    return "\n".join([head, *lines])
