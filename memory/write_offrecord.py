"""What an extractor found that is not a fact about the customer.

Two kinds of figures in a salesperson's notes are about nobody's account, whichever
extractor (rules or model) picked them up:

- placeholders and made-up examples: "use placeholder numbers like a $500k budget",
  "假设预算是100万，帮我算一下折扣";
- the salesperson's own side: their quota or target ("our own Q4 target is $1.8M",
  "我这季度指标500万") and their own company's price changes ("我们公司明年标准版涨价到每用户
  每月68元") or events ("our SKO is in Vegas in January", "我们公司年会在三亚").

Stored, they read as the customer's budget or price. ``off_record`` names why a candidate
is one of them; the write path rejects extracted candidates it flags (a memory added by
hand is the user's own choice and is kept). Placeholders, quotas and prices are judged
only in a text with a figure: "they want SSO, e.g. Okta" is a requirement whatever its
wording; our own company's events ("our SKO", "我们公司年会") in any text. Pure functions.
"""

from __future__ import annotations

import re

_FIGURE = re.compile(r"\d|[一二两三四五六七八九十百千万亿]+(?:万|亿|元|块)")

_PLACEHOLDER = re.compile(
    r"\bplace-?holders?\b|\bdummy (?:numbers?|figures?|data|values?)\b|"
    r"\b(?:made[- ]up|sample|example|fake) (?:numbers?|figures?|values?)\b|\bhypothetical(?:ly)?\b|"
    r"\blet'?s say\b|\bfor the sake of (?:the )?argument\b|"
    r"占位|假设(?:一下|说)?(?:预算|金额|价格|报价|是|有)|打个比方|举个例子|随便(?:写|填|编)(?:个|一个)?数",
    re.I,
)

_OWN_QUOTA = re.compile(
    r"\b(?:my|our)(?:\s+own)?(?:\s+(?:q[1-4]|quarterly|annual|yearly|sales|team|personal|"
    r"regional))*\s+(?:quota|commission|bonus)(?:es|s)?\b|"
    r"\b(?:my|our)\s+(?:own\s+)?(?:q[1-4]|quarterly|annual|yearly|sales|personal|revenue)"
    r"(?:\s+(?:sales|revenue|team))?\s+targets?\b|"
    r"\bour own\b.{0,30}\b(?:target|quota|goal|number)s?\b|"
    r"我(?:这|的|们)?(?:这个?|本|今年|明年)?(?:季度|月|年度?)?的?(?:销售)?(?:指标|业绩目标|任务额|提成|KPI)",
    re.I,
)

_OWN_PRICE = re.compile(
    r"\bour (?:company|list price|pricing|prices?)\b.{0,40}\b(?:go(?:es|ing)? up|increas\w*|rais\w*|"
    r"drop\w*|cut\w*)\b|\bwe(?:'re| are)? (?:raising|increasing|cutting) (?:our )?(?:list )?prices?\b|"
    r"(?:我们公司|我司|我们)(?:明年|今年|下个?月|下季度)?(?:的)?(?:标准版|专业版|旗舰版|产品)?"
    r"(?:要)?(?:涨价|降价|调价)",
    re.I,
)


_OWN_EVENT = re.compile(
    r"\bour (?:own )?(?:sko|sales kick-?off|company (?:offsite|off-site|retreat|party|all-hands)|"
    r"offsite|off-site|all-hands|holiday party|christmas party|team building)\b|"
    r"我们(?:公司|部门|团队)?(?:的|今年的|明年的)?(?:年会|团建|销售大会|内部培训|誓师大会)",
    re.I,
)


def off_record(text: str) -> str | None:
    """Why ``text`` is not a fact about the customer (a placeholder, the salesperson's own
    quota, company price or company event), else None."""
    if _OWN_EVENT.search(text):
        return "our own company's event, not the customer's"
    if not _FIGURE.search(text):
        return None
    if _PLACEHOLDER.search(text):
        return "a placeholder or made-up example, not the customer's figure"
    if _OWN_QUOTA.search(text):
        return "the salesperson's own quota or target, not the customer's"
    if _OWN_PRICE.search(text):
        return "our own company's pricing, not the customer's"
    return None
