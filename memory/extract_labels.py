"""What a sales fact is, in words: its category named in its content ("Competitor: they
are also talking to HubSpot") and the one channel a contact preference names, so a
person's new preferred channel versions the old. Pure functions.
"""

from __future__ import annotations

import re

PLAIN_LABEL = re.compile(
    r"(?i)note|re\b|fyi|voice memo|memo|(?:quick |short |brief )?(?:recap|summary)|call notes|meeting notes|quick update|update|"
    r"语音|录音|纪要|会议纪要|记录|备忘|小结|总结"
)
"""A label that only says what kind of note follows: not written into each memory."""


_LABELS = {
    "competitor": ("Competitor", "竞争对手", r"competit|rival|竞争|对手|竞品"),
    "incumbent": ("Current system", "现有系统", r"current|today|incumbent|现在|目前|现有|一直"),
    "pain_point": ("Pain point", "痛点", r"pain|痛点"),
    "requirement": ("Requirement", "需求", r"requir|must|need|mandatory|必须|需要|要求|需求"),
    "contact_preference": ("Contact preference", "联系偏好", r"contact|联系"),
    "deal_stage": ("Deal stage", "项目阶段", r"stage|phase|阶段"),
}


def labelled(content: str, category: str) -> str:
    """``content`` naming its category when its words do not ("Competitor: they are also
    talking to HubSpot"), so a question in the category's own words finds it and a small
    model reading the briefing knows what it is."""
    if category not in _LABELS:
        return content
    en, zh, said = _LABELS[category]
    if re.search(said, content, re.I):
        return content
    label = zh if re.search(r"[\u4e00-\u9fff]", content) else en
    sep = "：" if label == zh else ": "
    who = re.match(r"^([^:：]{1,30})[:：]\s*(?=\S)", content)
    if who:  # "Li Wei: hates phone calls" -> "Li Wei (contact preference): hates phone calls"
        inner = label if label == zh else label.lower()
        paren = f"（{inner}）" if label == zh else f" ({inner})"
        return f"{who.group(1)}{paren}{sep}{content[who.end() :]}"
    return f"{label}{sep}{content}"


_CHANNELS = [
    ("email", r"e-?mails?|邮件|邮箱"), ("phone", r"phone|calls?|ring|电话"), ("text", r"texts?|sms|短信"),
    ("whatsapp", r"whatsapp"), ("wechat", r"wechat|微信"), ("signal", r"signal"), ("linkedin", r"linkedin"),
    ("teams", r"\bteams\b"), ("slack", r"slack"), ("dingtalk", r"钉钉|dingtalk"), ("feishu", r"飞书|lark"),
    ("in_person", r"in person|face[- ]to[- ]face|线下|见面|当面"),
]  # fmt: skip


_PREFERS = re.compile(
    r"\b(?:prefers?|preferred|only|best|rather|better|fastest|likes?|wants?|use|via|by)\b|只用|只接受|只看|只回|"
    r"习惯|喜欢|尽量|最好|用.{0,4}(?:联系|沟通)|发到",
    re.I,
)


_AVOIDS = re.compile(
    r"\b(?:no|never|don'?t|do not|not|hates?|can'?t stand|ignores?|avoid)\b|不要|别|不接|不喜欢|反感|不看|不回",
    re.I,
)


def preferred_channel(clause: str) -> str | None:
    """The one channel a clause says a person prefers ("prefers WhatsApp over email",
    "只用微信沟通"), or None (several channels, an avoidance, a time of day)."""
    if not _PREFERS.search(clause):
        return None
    found = [(m.start(), name) for name, p in _CHANNELS if (m := re.search(p, clause, re.I))]
    if not found:
        return None
    first = min(found)[1]
    if len(found) > 1 and not re.search(
        r"over|than|instead|rather|而不是|不要|别|不接", clause, re.I
    ):
        return None
    if len(found) == 1 and _AVOIDS.search(clause):
        return None  # "never email her": an avoidance, kept on its own
    return first
