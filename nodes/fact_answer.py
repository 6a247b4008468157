"""A question about one attribute the notes hold is answered with the recalled facts.

"How should I contact Acme's CTO?", "What is Lanhai's budget?", "Who decides at Acme?",
"华信的预算是多少？", "谁负责采购？" ask for one kind of fact that extraction files under its
own key (``customer:contact_preference:…``, ``customer:budget``, ``customer:decision_maker``,
``customer:stakeholder:<person>:role``; a role question takes the facts about people that
name the role).
Handed the contact preference, the bundled 1.5B model answered the first with a letter to
Acme (sessions 14 and 15, through ``ask``); it dropped "about" from "about 2 million"
(session 14, Studio); and on a new session's cold prompt it takes 20-45 s for a line the
notes already hold. So a message that is only such a question (``QUESTIONS``: one short
question, nothing asked about what to say or do) is answered with the recalled facts of
that kind, quoted as the notes state them (an uncertain one marked unconfirmed). None of
that kind recalled: it says it found none and lists the facts it did find (``MAX_OTHERS``);
in session 15 the model, asked "Who decides at Lanhai?" and "华信谁拍板？" with no decision
maker stored, named the CTO and the procurement lead. Recall failed, or any other message:
the model answers, as before.
Several such questions in one message ("华信的预算是多少？谁负责采购？", the issue's example,
where the model dropped "大概") are answered one after the other when each can be.
Part of ``MEMAGENT_BRIEF_REPLY=rules`` (``rules_reply``), with the account brief.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memagent.memory.extract_keys import event_of
from memagent.nodes.brief_reply import CJK, account_brief, brief_points, field_of, quotable
from memagent.nodes.briefing_labels import fact_kind, fact_label

MAX_OTHERS = 5
"""Recalled facts listed after "I found no …" (recall brings a handful, so not finding the
kind among them is no proof that none is stored: the user sees what was found)."""
_WHO = r"(?P<who>[\w&'’. -]{1,40}?)"
_OF = r"(?:the\s+|their\s+|our\s+|[\w&.' -]{1,30}?(?:'s|’s)\s+)?"
_FOR = r"(?:\s+(?:for|on|at|of)\s+[\w&.' -]{1,40})?"
_ZH_OWNER = r"(?:[\u4e00-\u9fffA-Za-z0-9]{1,12}?(?:的|那边|那邊|這邊|这边)?)?"


@dataclass(frozen=True)
class Question:
    """One kind of attribute question: the fact kinds that answer it, its phrasings, the
    reply's first line in English and Chinese (``{name}``: the customer, ``{role}``: the
    role asked about), and what it says when no fact of the kind was recalled."""

    kinds: tuple[str, ...]
    pattern: re.Pattern[str]
    head_en: str
    head_zh: str
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
    "I found no contact preference for {name} in your notes.",
    "关于 {name}，我没找到联系偏好的记录。",
)
_BUDGET = Question(
    ("budget", "budget_status"),
    re.compile(
        rf"^(?:(?:what(?:'s|\s+is|\s+was)|how\s+(?:much|big)\s+is)\s+{_OF}"
        rf"(?:current\s+|total\s+|project\s+)?budget{_FOR}\s*\??"
        rf"|{_ZH_OWNER}(?:项目|項目)?(?:预算|預算)(?:是|有|大概|大约|大約)*(?:多少|多大)(?:钱|錢)?[？?。]?)$",
        re.IGNORECASE,
    ),
    "Your notes on {name} about the budget:",
    "关于 {name} 的预算，你的笔记写道：",
    "I found no budget for {name} in your notes.",
    "关于 {name}，我没找到预算的记录。",
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
    "I found no note on who decides at {name}.",
    "关于 {name}，我没找到谁拍板的记录。",
)
_ROLE = Question(
    ("stakeholder", "decision_maker"),
    re.compile(
        r"^(?:(?:who\s+(?:handles|runs|owns|leads|manages|is\s+in\s+charge\s+of|is\s+responsible\s+for)"
        rf"\s+(?:the\s+|their\s+)?(?P<role2>[A-Za-z][\w -]{{1,30}}?){_FOR}"
        rf"|who(?:'s|\s+is|\s+are)\s+{_OF}(?P<role>[A-Za-z][\w -]{{1,30}}?){_FOR})\s*\??"
        rf"|(?:{_ZH_OWNER}?(?:谁|誰)(?:是|负责|負責|管|在管|对接|對接)(?P<zrole>[\u4e00-\u9fffA-Za-z]{{1,12}}?)(?:的人)?"
        rf"|{_ZH_OWNER}?(?P<zrole2>[\u4e00-\u9fffA-Za-z]{{1,8}}?)(?:负责人|負責人|那边|那邊)?是(?:谁|誰))[？?。]?)$",
        re.IGNORECASE,
    ),
    "Your notes on {name} about {role}:",
    "关于 {name} 的{role}，你的笔记写道：",
    "I found no note on {role} at {name}.",
    "关于 {name}，我没找到{role}的记录。",
)
_WHEN = Question(
    ("deadline", "timeline", "commitment"),
    re.compile(
        r"^(?:when\s+(?:is|was|does|do|did|will|are|'s)\s+[^?]{1,80}?\s*\?"
        r"|[^？?。]{0,24}?(?:什么时候|什麼時候|何时|何時|哪天|几号|幾號)[^？?。]{0,16}?[？?。]?)$",
        re.IGNORECASE,
    ),
    "Your notes on {name} about the {role}:",
    "关于 {name} 的这个时间，你的笔记写道：",
    "I found no date for the {role} at {name}.",
    "关于 {name}，我没找到这个时间的记录。",
)
"""A question after the date of one event ("When does their contract expire?", "合同什么时候
到期？"): the event is read as extraction keys it (``event_of``: contract_end, go_live,
decision, demo…); the model answered the first in session 21 from Studio by copying its
notes and adding "The budget for Brightwater is not confirmed yet"."""
QUESTIONS = (_CONTACT, _BUDGET, _DECIDES, _ROLE, _WHEN)

_ABOUT_MORE = re.compile(
    r"\b(?:about|regarding|re|to|and|so|without|after|before)\b"
    r"|谈|談|讨论|討論|说|說|问|問|聊|沟通|溝通|关于|關於|报价|報價|和|跟",
    re.IGNORECASE,
)
"""Words that make a contact question ask for more than a channel ("… about the renewal",
"怎么联系王芳谈价格"): the model answers those."""
_NOT_A_ROLE = re.compile(
    r"\b(?:i|we|you|they|he|she|it|us|them|me|to|should|will|would|can|could|do|does|did|going|"
    r"coming|meeting|calling|next|tomorrow|today|there|this|that|these|those|else|asking|about)\b"
    r"|他们|他們|我们|我們|你们|你們|参加|參加|来|來|去|应该|應該|要|会|會",
    re.IGNORECASE,
)
"""Words that make "who is/are …" ask about something else than a role ("who are we
meeting tomorrow?", "谁来参加"): the model answers those."""
_MORE_THAN_WHEN = re.compile(
    r"\b(?:and|should|how|what|why|which|who|if)\b|[,;]|吗|嗎|怎么|怎麼|为什么|為什麼|还是|還是|和|跟|谁|誰",
    re.IGNORECASE,
)
_PARTS = re.compile(
    r"(?<=[?？])\s*|,?\s+(?:and|&)\s+(?=(?:what|who|when|how)\b)|[，,]?(?:还有|另外|以及)(?=[^，。,]{0,12}(?:多少|谁|誰|什么时候|什麼時候))",
    re.IGNORECASE,
)
"""Where a message asks a second question ("Who signs off at Harbor and what's the budget?",
"谁拍板，还有预算多少？"): each part is answered when each can be. Session 23: the decision
question read "Harbor and what's the budget" as the customer's name."""
_BASE_VERB = re.compile(r"\b(end|renew|run)\b(?=(?:\s+out)?\W*$)", re.IGNORECASE)
"""A question's base verb ("When does their contract end?") as the statement's ("ends"),
which the event words match."""
_THEIR = re.compile(r"^(?:他们|他們|对方|對方|客户|客戶|她们|她們)的")
_GENERIC = frozenset(
    {"lead", "head", "manager", "person", "contact", "owner", "main", "key", "new", "current",
     "the", "their", "our", "负责人", "負責人", "经理", "經理", "主管"}
)  # fmt: skip


def asked(message: str) -> Question | None:
    """The attribute question ``message`` only is, or None."""
    found = _asked(message)
    return found[0] if found else None


def _asked(message: str) -> tuple[Question, str] | None:
    """The attribute question ``message`` only is, with the role it names (role
    questions: "Who is their CTO?" -> "CTO"), or None."""
    text = " ".join(message.split()).removeprefix("So ").removeprefix("so ")
    for question in QUESTIONS:
        m = question.pattern.match(text)
        if m is None:
            continue
        groups = {k: v for k, v in m.groupdict().items() if v}
        if question is _CONTACT and _ABOUT_MORE.search(groups.get("who", groups.get("zwho", ""))):
            return None
        role = next((groups[k] for k in ("role", "role2", "zrole", "zrole2") if k in groups), "")
        role = _THEIR.sub("", role)
        if question is _WHEN:
            if _MORE_THAN_WHEN.search(text[5:]):
                return None  # "When is the demo and what should I show?": the model answers
            event = event_of(_BASE_VERB.sub(r"\1s", text))
            return (question, event.replace("_", " ")) if event else None
        if question is _ROLE and (_NOT_A_ROLE.search(role) or len(role.split()) > 3):
            return None
        return question, role.strip()
    return None


def _role_terms(role: str) -> list[str]:
    """The words a note about ``role`` must hold ("procurement lead" -> ["procurement"])."""
    words = [w for w in re.split(r"[\s-]+", role.casefold()) if w]
    for suffix in ("负责人", "負責人", "经理", "經理", "主管"):
        words = [w.removesuffix(suffix) or w for w in words]
    kept = [w for w in words if w not in _GENERIC]
    return kept or words


def asks_how_to_contact(message: str) -> bool:
    """Whether ``message`` only asks how to contact someone."""
    return asked(message) is _CONTACT


def _lines(
    question: Question, items: Sequence[Mapping[str, Any]], zh: bool, terms: Sequence[str]
) -> list[str]:
    lines: list[str] = []
    for item in items:
        content = field_of(item, "content")
        if field_of(item, "origin") == "episode" or fact_kind(item) not in question.kinds:
            continue
        if not quotable(content) or (
            terms and question is not _WHEN and not _mentions(content, terms)
        ):
            continue
        if question is _WHEN and _event(item) not in terms:
            continue  # "When does their contract expire?": the contract's end, not the demo
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
    kind, or None when the model should answer. Several such questions in one message
    ("华信的预算是多少？谁负责采购？") are answered one after the other, when every one
    of them can be."""
    if "recall" in degraded:
        return None
    parts = [p for p in _PARTS.split(message.strip()) if p and p.strip()]
    answers = [_answer(part, customer_id, items) for part in parts]
    if not answers or any(a is None for a in answers):
        return None
    return "\n\n".join(a for a in answers if a)


def _answer(message: str, customer_id: str, items: Sequence[Mapping[str, Any]]) -> str | None:
    found = _asked(message)
    if found is None:
        return None
    question, role = found
    terms = (
        _role_terms(role)
        if question is _ROLE
        else [role.replace(" ", "_")]
        if question is _WHEN
        else []
    )
    zh = bool(CJK.search(message))
    lines = _lines(question, items, zh, terms)
    name = customer_id or ("这个客户" if zh else "this customer")
    if not lines:
        none = (question.none_zh if zh else question.none_en).format(name=name, role=role)
        others = brief_points(items, zh)[0][:MAX_OTHERS]
        if not others:
            return none
        return "\n".join(
            [none, "我记得的：" if zh else "What I have:", *(f"- {o}" for o in others)]
        )
    head = (question.head_zh if zh else question.head_en).format(name=name, role=role)
    return "\n".join([head, *lines])


def _event(item: Mapping[str, Any]) -> str:
    """The event a dated fact's key names (``customer:deadline:contract_end`` ->
    ``contract_end``), "" if none."""
    parts = str(field_of(item, "slot") or "").removeprefix("customer:").split(":")
    return parts[1] if len(parts) > 1 else ""


def _mentions(content: str, terms: Sequence[str]) -> bool:
    low = content.casefold()
    return any(
        (t in low)
        if CJK.search(t)
        else re.search(rf"(?<![a-z0-9]){re.escape(t)}(?![a-z0-9])", low) is not None
        for t in terms
    )


def contact_answer(
    message: str,
    customer_id: str,
    items: Sequence[Mapping[str, Any]],
    *,
    degraded: Sequence[str] = (),
) -> str | None:
    """``fact_answer`` for "how should I contact …?" only."""
    if not asks_how_to_contact(message) or "recall" in degraded:
        return None
    return _answer(message, customer_id, items)


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
