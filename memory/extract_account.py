"""Account details a note gives about the customer as a company: its industry, where it
is headquartered, how many people it employs, its payment terms and its purchasing
rules. A CRM paste lists them under labels ("Industry: 3PL", "HQ: Basel", "付款条件：
月结90天"); a spoken note says them in passing ("They're HQ'd in Hartford", "they pay
net 45", "总部在台北内湖", "国企背景"). Each detail is one fact keyed by what it is
(``profile:hq``), so a later, corrected value replaces the earlier one. Pure functions.
"""

from __future__ import annotations

import re

_LABELS: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(r"^(?:" + p + r")$", re.I))
    for name, p in [
        ("industry", r"industry|sector|vertical|行业|所属行业|主营业务|业态"),
        ("hq", r"hq|head ?quarters?|head office|based in|总部|总部地点|总部所在地|所在地|所在城市"),
        ("headcount", r"headcount|head count|employees|staff|fte|ftes|no\.? of employees|company size|"
                      r"员工|员工数|员工人数|人数|人员规模|公司规模"),
        ("payment_terms", r"payment(?: terms?)?|billing terms|付款|付款条件|付款条款|付款方式|账期|结算方式"),
        ("procurement", r"procurement(?: rules?| process| policy)?|purchasing(?: rules?| policy)?|"
                        r"buying process|采购流程|采购规定|采购制度|采购要求|招标要求"),
        ("ownership", r"ownership|company type|企业性质|公司性质"),
    ]
]  # fmt: skip
"""A note's field name for an account detail ("Industry", "HQ", "付款条件")."""

_SAID: list[tuple[str, re.Pattern[str]]] = [
    (
        "hq",
        re.compile(
            r"\bhq(?:'d| is| are)?\s+(?:is\s+|are\s+)?(?:in\s+)?[A-Za-z]{3,}|\bheadquartered in\b|"
            r"\bhead ?quarters? (?:is |are )?in\b|\bhead office (?:is )?in\b|\bbased (?:in|out of) [A-Z]|"
            r"总部(?:在|位于|设在|是)",
            re.I,
        ),
    ),
    (
        "headcount",
        re.compile(
            r"(?:~|about |around |approx\.? |roughly |over |nearly )?\d[\d,.]*\s*k?\+?\s*"
            r"(?:employees|staff|people on staff|FTEs?|workers|headcount)\b|"
            r"员工(?:总数|人数)?(?:约|大概|大约|有|共)?\s*\d|\d[\d,]*\s*(?:多|余)?(?:名|个)?员工",
            re.I,
        ),
    ),
    (
        "payment_terms",
        re.compile(
            r"\bnet[- ]?(?:15|30|45|60|75|90|120)\b|\bpayment terms?\b|"
            r"月结\s*\d+\s*[天日]|账期|(?:验收|到货|开票)后\s*\d+\s*[天日](?:内)?(?:付款|付清|结清)?|"
            r"付款(?:走|条件|条款|方式)|\d+\s*天付款",
            re.I,
        ),
    ),
    (
        "procurement",
        re.compile(
            r"\b(?:three|3|two|2) (?:competing |competitive )?(?:quotes|bids)\b|\bcompetitive tender\b|"
            r"\bpublic tender\b|\bpreferred[- ]supplier list\b|\bapproved vendor list\b|"
            r"公开招标|必须招标|要走招标|走招标|三家(?:比价|报价)|比价|供应商入围|入围名单",
            re.I,
        ),
    ),
    (
        "industry",
        re.compile(
            r"\b(?:in|operate in|work in) the [a-z/&\- ]{3,30} (?:industry|sector|space|business)\b|"
            r"是做[\u4e00-\u9fffA-Za-z0-9/]{2,14}的(?!人)|属于[\u4e00-\u9fff]{2,8}行业|"
            r"[\u4e00-\u9fff]{2,8}行业的?(?:客户|企业|公司)",
            re.I,
        ),
    ),
]
"""An account detail said in passing, by what it is."""

_NOT_OURS = re.compile(r"\b(?:our|we|my|I)\b|我们的|我司|咱们", re.I)
"""'our payment terms', 'we're HQ'd in': the seller's side, not the account's."""


def label_detail(label: str) -> str | None:
    """The account detail a note's field name stands for ("HQ" -> ``hq``), or None."""
    bare = re.split(r"\s[-–—]\s", label)[-1].strip(" 【】[]*#-").strip().rstrip(".:")
    return next((name for name, p in _LABELS if p.match(bare)), None)


def said_detail(clause: str) -> str | None:
    """The account detail a clause states in passing ("HQ'd in Hartford", "they pay net
    45", "验收后60天付款"), or None; the seller's own terms are not the account's."""
    for name, pattern in _SAID:
        m = pattern.search(clause)
        if m is None:
            continue
        before = clause[max(0, m.start() - 25) : m.start()]
        if _NOT_OURS.search(before) and not re.search(
            r"\bthey|\btheir|他们|对方|客户", before, re.I
        ):
            continue
        return name
    return None


def account_detail(clause: str, label: str = "") -> str | None:
    """The detail ``clause`` gives under ``label`` (or says itself), or None."""
    if label and (by_label := label_detail(label)) is not None:
        return by_label
    return said_detail(clause)


BUDGET_STATUS = re.compile(
    r"\b(?:budget|funding|funds)\b.{0,30}?\b(?:approved|signed off|frozen|cut|slashed|unfrozen|released|allocated|"
    r"secured|not disclosed|undisclosed|on hold|not an? (?:issue|problem|concern)|tight|pending)\b"
    r"|\b(?:approved|signed off on|froze|cut|secured|released)\s+(?:the\s+|their\s+|its\s+)?(?:budget|funding)\b"
    r"|(?:预算|经费|资金|的钱).{0,8}?(?:已批|已经批|批了|批下来|没批|未批|冻结|砍|削减|到位|没问题|不是问题|不成问题|"
    r"保密|不透露|充足|紧张|没着落|已列入|列入|花完|用完|花光)",
    re.I,
)
"""Where the budget stands when no figure is given: approved, frozen, cut, not disclosed."""
