"""A note is acknowledged with what the rules read in it, not by the model.

Most of what a salesperson sends is a note: facts about the account, nothing asked. Told
in the system prompt to reply "noted" and repeat the key points, the bundled 1.5B model
still answered ten real notes acceptably only five times (session 10, through ``ask``):
two refusals, the system prompt read back, a CRM lookup nobody asked for, a value
misstated. So when the user's message asks for nothing (no question, no request:
``asks_something``) and the rules extractor reads facts in it, the reply lists those
facts, in the note's language, each as the rules wrote it, an uncertain one marked
unconfirmed, and no model is called (a note turn then also costs no model time). A
message that asks something, that the rules read nothing in, or that the injection
screen flags, goes to the model as before. This is the default (``MEMAGENT_NOTE_REPLY=rules``);
``model`` sends every message to the model.

The list is what the rules read, at once; what the background extraction stores may be
more (the LLM extractor) or less (a duplicate merged, a value the write path refuses), so
the reply says "noted" and lists key points, never "stored"."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memagent.core.types import Turn
from memagent.memory.extract_transcript import read_qa
from memagent.memory.extractors import rules_with_context
from memagent.memory.poison import check_instruction
from memagent.memory.write_types import WriteConfig

MAX_POINTS = 12
"""Points listed at most (a long pasted note keeps its first ones and says how many more)."""

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

_ASKS_EN = re.compile(
    r"\?|"
    r"\b(?:can|could|would|will|should|shall|do|does|did|is|are|any)\s+(?:you|we|i|they|there)\b|"
    r"\b(?:please|pls|plz|help\s+me|remind\s+me|tell\s+me|let\s+me\s+know|thoughts|advice|"
    r"ideas|suggestions?)\b|"
    r"(?:^|[.!;:\n]\s*|\b(?:and|then|also|now|so)\s+)"
    r"(?:what|how|why|which|who|whom|whose|where|"  # a question's head, not "a database, which crashes"
    r"draft|write|prepare|summari[sz]e|brief\s+me|show\s+me|give\s+me|find|suggest|"
    r"recommend|compare|explain|look\s+up|translate|rewrite|rephrase|compose|outline|"
    r"estimate|calculate|analy[sz]e|search|delete|forget|remove|export|set\s+up|create|log|"
    r"schedule|book|"
    r"list\s+(?:all|the|my|our|their|every)|check\s+(?:if|whether|what|the|my|our))\b",
    re.IGNORECASE,
)
_ASKS_ZH = re.compile(
    r"[?？]|[吗嗎呢吧][。！!.\s]*$|"
    r"什么|什麼|怎么|怎麼|怎样|怎樣|如何|为什么|為什麼|为啥|為啥|哪[个個位些里裡儿兒家天]|谁|誰|多少|"
    r"帮我|幫我|帮忙|幫忙|请你|請你|请帮|請幫|麻烦你|麻煩你|给我|給我|告诉我|告訴我|提醒我|"
    r"能不能|可不可以|能否|有没有|有沒有|要不要|"
    r"起草|草拟|草擬|写一|寫一|写个|寫個|写封|寫封|总结一下|總結一下|概括|介绍一下|介紹一下|"
    r"列出|列一下|整理一下|准备一下|準備一下|翻译|翻譯|查一下|查查"
)


_ZH_WH = re.compile(r"什么|什麼|哪.|谁|誰|多少")
_ZH_UNKNOWN = re.compile(
    r"还没定|還沒定|没定|沒定|未定|待定|不确定|不確定|不知道|不清楚|还不清楚|還不清楚|说不准|說不準|都行|都可以|都没问题"
)
"""'谁拍板还不清楚', '预算多少还没定': a question word inside a statement of what is not
known yet is a note, not a question."""


def _zh_asks(text: str) -> bool:
    for m in _ASKS_ZH.finditer(text):
        if _ZH_WH.fullmatch(m.group(0)):
            start = max(text.rfind(p, 0, m.start()) for p in "。；;！!\n")
            ends = [e for e in (text.find(p, m.end()) for p in "。；;！!\n") if e >= 0]
            if _ZH_UNKNOWN.search(text[start + 1 : min(ends, default=len(text))]):
                continue
        return True
    return False


_PASTED = re.compile(
    r"^\s*(?:pasting|pasted|forwarding|fwd?:|fw:|got this from|here'?s (?:the|her|his|their) (?:mail|e-?mail)"
    r"|转发|转给你|贴一下|粘贴)[^:\n：]{0,60}[:：\n]",
    re.IGNORECASE,
)
_ASK_AFTER = re.compile(
    r"\n\s*\n\s*(?:can you|could you|please (?:draft|write|summari[sz]e|reply)|draft|write|reply|"
    r"summari[sz]e|帮我|请你|請你|幫我)[^\n]*$",
    re.IGNORECASE,
)


def asks_something(text: str) -> bool:
    """Whether ``text`` asks a question or makes a request of the assistant (a note
    does neither). Errs towards "asks": a request read as a note would go unanswered,
    a note read as a request only gets the model's reply. In a pasted mail ("Pasting
    Lena's mail: … Please send the proposal by the 20th"), the mail's own requests are
    the customer's to the salesperson: only the words around it ask the assistant."""
    text = read_qa(text)  # "Q: What's your budget? A: About 260k": the customer answered
    if (pasted := _PASTED.match(text)) is not None:
        return _asks(text[: pasted.end()]) or bool(_ASK_AFTER.search(text))
    return _asks(text)


def _asks(text: str) -> bool:
    return bool(_ASKS_EN.search(text) or _zh_asks(text))


def acknowledgement(
    message: str,
    customer_id: str,
    *,
    context: Sequence[str] = (),
    pending_below: float = WriteConfig.pending_below,
    screen_model: bool = WriteConfig.instruction_model,
) -> str | None:
    """The reply to a note: "Noted for <customer>:" and the facts the rules read in
    ``message`` (``context``: the session's earlier user messages, to resolve "he" or a
    correction); None when the message asks something, the rules read nothing, or the
    injection screen flags it (the model answers those). ``screen_model``: the learned
    judges on top of the screen's rules, as the write path has them (graph/ passes
    ``MEMAGENT_POISON_MODEL``); the e5 probe never runs here, as for ``memories add``."""
    text = message.strip()
    if not text or asks_something(text) or check_instruction(text, model=screen_model, deep=False):
        return None
    earlier = [Turn("user", c, f"context{i}") for i, c in enumerate(context) if c.strip()]
    candidates, _ = rules_with_context([Turn("user", text, "note")], earlier)
    zh = bool(_CJK.search(text))
    points: list[str] = []
    for cand in candidates:
        point = " ".join(cand.content.split())
        if cand.confidence < pending_below:
            point += "（待确认）" if zh else " (unconfirmed)"
        if point not in points:
            points.append(point)
    if not points:
        return None
    more = len(points) - MAX_POINTS
    lines = [f"- {p}" for p in points[:MAX_POINTS]]
    if more > 0:
        lines.append(f"- ……另有 {more} 条" if zh else f"- … and {more} more")
    head = f"已记下（{customer_id}）：" if zh else f"Noted for {customer_id}:"
    return "\n".join([head, *lines])
