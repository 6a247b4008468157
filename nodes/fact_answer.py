"""A question about one attribute the notes hold is answered with the recalled facts.

"How should I contact Acme's CTO?", "What is Lanhai's budget?", "Who decides at Acme?",
"华信的预算是多少？" ask for one kind of fact that extraction files under its own key
(``customer:contact_preference:…``, ``customer:budget``, ``customer:decision_maker``).
Handed the contact preference, the bundled 1.5B model answered the first with a letter to
Acme (sessions 14 and 15, through ``ask``); it dropped "about" from "about 2 million"
(session 14, Studio); and on a new session's cold prompt it takes 20-45 s for a line the
notes already hold. So a message that is only such a question (``QUESTIONS``: one short
question, nothing asked about what to say or do) is answered with the recalled facts of
that kind, quoted as the notes state them (an uncertain one marked unconfirmed). Nothing of
that kind recalled and no recalled note that might state it under another kind (``mention``):
it says the notes do not hold it (the model invented a procurement lead as the decision
maker, and "not confirmed yet" for a budget never given, session 15). Recall failed, a
recalled note that might state it, or any other message: the model answers, as before.
Part of ``MEMAGENT_BRIEF_REPLY=rules`` (``rules_reply``), with the account brief.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memagent.nodes.brief_reply import CJK, account_brief, field_of, quotable
from memagent.nodes.briefing_labels import fact_kind, fact_label

_WHO = r"(?P<who>[\w&'’. -]{1,40}?)"
_OF = r"(?:the\s+|their\s+|our\s+|[\w&.' -]{1,30}?(?:'s|’s)\s+)?"
_FOR = r"(?:\s+(?:for|on|at|of)\s+[\w&.' -]{1,40})?"
_ZH_OWNER = r"(?:[\u4e00-\u9fffA-Za-z0-9]{1,12}?(?:的|那边|那邊|這邊|这边)?)?"


@dataclass(frozen=True)
class Question:
    """One kind of attribute question: the fact kinds that answer it, its phrasings, and
    the reply's first line in English and Chinese (``{name}``: the customer)."""

    kinds: tuple[str, ...]
    pattern: re.Pattern[str]
    head_en: str
    head_zh: str
    mention: re.Pattern[str]
    """Words of a recalled note that may state the answer under another kind: with one
    present and no fact of the kind, the model reads the notes."""
    none_en: str
    none_zh: str


_CONTACT = Question(
    ("contact_preference",),
    re.compile(
        r"^(?:(?:how|what(?:'s|\s+is)\s+the\s+best\s+way)\s+"
        r"(?:(?:should|do|can|could|would)\s+(?:i|we)\s+|to\s+)"
        rf"(?:contact|reach|get\s+(?:in\s+touch\s+with|hold\s+of))\s+{_WHO}\s*\??"
        r"|(?:那)?(?:我)?(?:应该|應該|该|該)?(?:怎么|怎样|如何|怎麼|怎樣)(?:才能)?"
        r"(?:联系|联络|聯繫|聯絡|找)(?P<zwho>[^，。,.!?！？]{1,16}?)(?:比较好|比較好|最好)?[？?。]?)$",
        re.IGNORECASE,
    ),
    "Your notes on {name} say how they want to be contacted:",
    "关于 {name} 的联系偏好，你的笔记写道：",
    re.compile(
        r"e-?mail|phone|call|text|whatsapp|wechat|slack|teams|linkedin|contact|reach|"
        r"微信|电话|電話|邮件|郵件|短信|钉钉|飞书|联系|聯繫|联络|聯絡",
        re.IGNORECASE,
    ),
    "Your notes on {name} don't say how they want to be contacted.",
    "关于 {name}，你的笔记里没有写联系偏好。",
)
_BUDGET = Question(
    ("budget",),
    re.compile(
        rf"^(?:(?:what(?:'s|\s+is|\s+was)|how\s+(?:much|big)\s+is)\s+{_OF}"
        rf"(?:current\s+|total\s+|project\s+)?budget{_FOR}\s*\??"
        rf"|{_ZH_OWNER}(?:项目|項目)?(?:预算|預算)(?:是|有|大概|大约|大約)*(?:多少|多大)(?:钱|錢)?[？?。]?)$",
        re.IGNORECASE,
    ),
    "Your notes on {name} about the budget:",
    "关于 {name} 的预算，你的笔记写道：",
    re.compile(r"budget|spend|预算|預算|经费|經費|资金|資金", re.IGNORECASE),
    "There is no budget for {name} in your notes yet.",
    "关于 {name}，你的笔记里还没有预算。",
)
_DECIDES = Question(
    ("decision_maker",),
    re.compile(
        r"^(?:(?:who(?:'s|\s+is)\s+(?:the\s+)?(?:final\s+)?decision[- ]?maker"
        r"|who\s+(?:decides|makes\s+the\s+(?:final\s+)?(?:decision|call)|signs\s+off"
        rf"|has\s+the\s+final\s+say)){_FOR}\s*\??"
        rf"|{_ZH_OWNER}(?:(?:谁|誰)(?:是|来|來)?(?:拍板|决策人|決策人|做决定|做決定|说了算|說了算)(?:的人)?"
        r"|(?:决策人|決策人|拍板的人|决策者|決策者)是(?:谁|誰))[？?。]?)$",
        re.IGNORECASE,
    ),
    "Your notes on {name} about who decides:",
    "关于 {name} 由谁拍板，你的笔记写道：",
    re.compile(
        r"decid|decision|sign(?:s|ed)? off|final say|approv|拍板|决策|決策|决定|決定|说了算|說了算|审批|審批|批准",
        re.IGNORECASE,
    ),
    "Your notes on {name} don't say who decides yet.",
    "关于 {name}，你的笔记里还没有写谁拍板。",
)
QUESTIONS = (_CONTACT, _BUDGET, _DECIDES)

_ABOUT_MORE = re.compile(
    r"\b(?:about|regarding|re|to|and|so|without|after|before)\b"
    r"|谈|談|讨论|討論|说|說|问|問|聊|沟通|溝通|关于|關於|报价|報價|和|跟",
    re.IGNORECASE,
)
"""Words that make a contact question ask for more than a channel ("… about the renewal",
"怎么联系王芳谈价格"): the model answers those."""


def asked(message: str) -> Question | None:
    """The attribute question ``message`` only is, or None."""
    text = " ".join(message.split()).removeprefix("So ").removeprefix("so ")
    for question in QUESTIONS:
        m = question.pattern.match(text)
        if m is None:
            continue
        who = m.groupdict().get("who") or m.groupdict().get("zwho") or ""
        if question is _CONTACT and _ABOUT_MORE.search(who):
            return None
        return question
    return None


def asks_how_to_contact(message: str) -> bool:
    """Whether ``message`` only asks how to contact someone."""
    return asked(message) is _CONTACT


def _lines(question: Question, items: Sequence[Mapping[str, Any]], zh: bool) -> list[str]:
    lines: list[str] = []
    for item in items:
        content = field_of(item, "content")
        if field_of(item, "origin") == "episode" or fact_kind(item) not in question.kinds:
            continue
        if not quotable(content):
            continue
        flat = " ".join(content.split())
        label = fact_label(item, flat)
        said = label is None or flat.casefold().startswith(label.split(",")[0].casefold())
        line = f"- {flat}" if said else f"- {label}: {flat}"
        if field_of(item, "status") in ("pending", "unconfirmed"):
            line += "（待确认）" if zh else " (unconfirmed)"
        if line not in lines:
            lines.append(line)
    return lines


def fact_answer(
    message: str,
    customer_id: str,
    items: Sequence[Mapping[str, Any]],
    *,
    degraded: Sequence[str] = (),
) -> str | None:
    """The reply to an attribute question (``asked``) from the recalled facts of its
    kind, or None when the model should answer."""
    question = None if "recall" in degraded else asked(message)
    if question is None:
        return None
    zh = bool(CJK.search(message))
    lines = _lines(question, items, zh)
    name = customer_id or ("这个客户" if zh else "this customer")
    if not lines:
        if any(_states(question, item) for item in items):
            return None  # a note may say it under another kind: the model reads them
        return (question.none_zh if zh else question.none_en).format(name=name)
    head = (question.head_zh if zh else question.head_en).format(name=name)
    return "\n".join([head, *lines])


def _states(question: Question, item: Mapping[str, Any]) -> bool:
    content = field_of(item, "content")
    return isinstance(content, str) and bool(question.mention.search(content))


def contact_answer(
    message: str,
    customer_id: str,
    items: Sequence[Mapping[str, Any]],
    *,
    degraded: Sequence[str] = (),
) -> str | None:
    """``fact_answer`` for "how should I contact …?" only."""
    if not asks_how_to_contact(message):
        return None
    return fact_answer(message, customer_id, items, degraded=degraded)


def rules_reply(
    message: str,
    customer_id: str,
    items: Sequence[Mapping[str, Any]],
    *,
    degraded: Sequence[str] = (),
) -> str | None:
    """The reply written from the recalled facts (``account_brief``, ``fact_answer``), or
    None when the model should answer."""
    return account_brief(message, customer_id, items, degraded=degraded) or fact_answer(
        message, customer_id, items, degraded=degraded
    )
