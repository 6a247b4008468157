"""When a clause is the second half of the fact before it, not a fact of its own.

Notes cut one fact across a comma or a dash:

- a grade of the clause before it ("- need SSO with Okta - must have", "必须对接卫宁，这是
  硬性要求"): alone it matches nothing a salesperson would look up, so it is written into
  the fact it grades;
- what the note says next of the rival just named, without naming one ("Competitor是金蝶，
  报价便宜两成", "Workday is in, quoted 1.1M"): one memory per rival;
- the second half of a pain ("Big pain is nursing handover, nurses lose 40 minutes a
  shift", "数据要手动导出，检查的时候很麻烦"): what hurts and what it costs are one memory;
- the other half of one person's contact preference ("prefers Signal, she never picks
  up calls", "习惯用钉钉，别给他发短信", "不爱接电话，正式材料要发邮件"): one person's way
  of being reached is one memory, whichever half names the channel.

Pure functions over the clause text, the fact before it and who the clause is about.
"""

from __future__ import annotations

import re

from memagent.memory.extract_entities import competitor_name

GRADE_ONLY = re.compile(
    r"^(?:(?:this|that|it)(?:'s| is)? |(?:and )?(?:it'?s |is )?)?(?:an? |the |a real |their )?"
    r"(?:absolute |hard |top |big(?:gest)? |main )?(?:must[- ]?haves?|non-?negotiable|requirement|"
    r"deal[- ]?breaker|priority|mandatory|critical|red line|the pain|pain(?: point)?)"
    r"(?: for (?:them|him|her|us))?[\s.!]*$"
    r"|^(?:[\u4e00-\u9fff]{1,4}(?:说|觉得|讲|认为))?(?:这|那)(?:个|一点|一条)?(?:是|为|属于)?"
    r"(?:他们的?|她们的?|他的?|她的?)?(?:硬性要求|硬要求|刚需|底线|必须的|必选项|红线|最大的?痛点|痛点|硬指标"
    r"|前提条件|前提|必要条件|最头疼的|最头痛的|最要命的)(?:事|地方)?[。！!\s]*$",
    re.I,
)
"""A clause that only says how much the clause before it matters."""

CHANNEL = re.compile(
    r"企业微信|微信|电话|邮件|邮箱|短信|钉钉|飞书|\bline\b|"
    r"\b(?:e-?mails?|phone|calls?|texts?|whatsapp|wechat|slack|teams|linkedin|signal|telegram)\b",
    re.I,
)


def grades_previous(body: str) -> bool:
    """``body`` only grades the clause before it ("must have", "这是硬性要求")."""
    return bool(GRADE_ONLY.match(body.strip()))


def contact_half(category: str | None, last_category: str, last_content: str,
                 body: str, who: str | None) -> bool:  # fmt: skip
    """``body`` is the second half of the contact preference just kept for ``who``."""
    if last_category != "contact_preference" or not who or who not in last_content:
        return False
    return category == "contact_preference" or (category is None and bool(CHANNEL.search(body)))


def rival_half(category: str | None, last_category: str, body: str) -> bool:
    """``body`` says more of the rival the fact before it named, and names none itself;
    or it is the second half of the pain just kept."""
    if category == last_category == "pain_point":
        return True
    return category == last_category == "competitor" and competitor_name(body) is None
