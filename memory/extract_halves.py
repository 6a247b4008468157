"""When a clause is the second half of the fact before it, not a fact of its own.

Notes cut one fact across a comma or a dash:

- a grade of the clause before it ("- need SSO with Okta - must have", "必须对接卫宁，这是
  硬性要求"): alone it matches nothing a salesperson would look up, so it is written into
  the fact it grades;
- what the note says next of the rival just named, without naming one ("Competitor是金蝶，
  报价便宜两成", "Workday is in, quoted 1.1M"): one memory per rival;
- the second half of a pain ("Big pain is nursing handover, nurses lose 40 minutes a
  shift", "数据要手动导出，检查的时候很麻烦"): what hurts and what it costs are one memory;
- when the system just named runs out, said without naming it ("现在用的是用友U8，明年6月
  到期", "They run Kronos, expires next June"): the date keeps its own memory, named;
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
    if last_category == "competitor" and category == "amount" and _THEIR_FIGURE.match(body):
        return True  # "Verafin pitched us in December, their number was around 520k a year"
    return category == last_category == "competitor" and competitor_name(body) is None


_THEIR_FIGURE = re.compile(
    r"(?:and |but )?(?:their|its|the) (?:number|price|quote|offer|bid|figure)s? (?:was|is|came)\b"
    r"|(?:他们|对方)的?(?:报价|价格|出价)"
    r"|(?:大概|大约|约|about|around|roughly)\s*(?:每\s?\w{1,3}\s?)?[\d¥$€]",  # "大概每Wh 0.9元左右"
    re.I,
)


_SYSTEM = re.compile(
    r"(?:用的是|在用|使用|用着|用)\s*(?P<zh>[A-Za-z0-9\u4e00-\u9fff][A-Za-z0-9.+\u4e00-\u9fff -]{1,14}?)(?=[，,。；;]|$|系统)"
    r"|\b(?:use|uses|using|run|runs|running|on)\s+(?P<en>[A-Z][\w+.-]*(?: [A-Z0-9][\w+.-]*){0,2})"
)
_EXPIRY_ONLY = re.compile(
    r"^[^，,。；;A-Za-z]{0,14}(?:到期|届满|续约|续签)(?:[，,][^，,。；;]{0,12})?[。！!\s]*$"
    r"|^(?:it |which |and |that |(?:the|their|its) (?:current )?(?:contract|licen[cs]e|subscription|agreement) )?"
    r"(?:expires|ends|runs out|is up for renewal|renews|comes up for renewal)\b",
    re.I,
)


def system_named(body: str) -> str | None:
    """The system an incumbent clause names ("他们现在用的是用友U8" -> "用友U8")."""
    m = _SYSTEM.search(body)
    return re.sub(r"^(?:的是|是)", "", (m.group("zh") or m.group("en")).strip()) if m else None


def named_expiry(
    content: str, body: str, category: str, system: str | None
) -> tuple[str, str | None]:
    """``content`` named after the system an earlier clause named when ``body`` only says
    when something runs out ("明年6月到期" after "用的是用友U8"), and the system to remember
    from here on (an incumbent clause names a new one)."""
    if category == "incumbent":
        return content, system_named(body) or system
    if system and system not in content and _EXPIRY_ONLY.match(body.strip()):
        return f"{system}: {content}", system
    return content, system


def expiry_named(content: str, sentence: str, previous: str, incumbent: bool) -> str:
    """``content`` named after the system the sentence before named, when ``sentence`` only
    says when something runs out ("It expires next June" after "They run SAP Business One");
    ``incumbent``: the sentence before reads as the current system."""
    system = (system_named(previous) or "").rstrip(".") if incumbent else None
    if system and system not in content and _EXPIRY_ONLY.match(sentence.strip()):
        return f"{system}: {content}"
    return content
