"""Sales-grade rules: one memory per salient clause of a note, keyed by its subject.

A note is cut into clauses (";", " - ", ", and", " but ", "，", bullets, a "Must-haves:"
label carried to each of its items). A clause is kept when it says something a
salesperson needs later: a stakeholder and their stance, a budget, a date or
deadline, a requirement, the incumbent system, a competitor or quote, a contact
preference, a pain point, a commitment or next step, the deal stage, a count
("400 trucks"). Its content is the clause itself, with the person it is about when
it only says "she"/"他", and every date written out absolutely from the message time.

Keys (``attribute``): single-valued attributes supersede (``budget``,
``decision_maker``, ``deal_stage``); everything else is many per account and keyed
by its subject: ``deadline:<event>``, ``commitment:<what>``, ``stakeholder:<person>``,
``requirement:<hash>``, ``competitor:<name>``, ``incumbent:<name>``,
``pain_point:<hash>``, ``contact_preference:<person>:<hash>``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memagent.core.types import Turn
from memagent.memory.extract_amounts import Amount, parse_amounts
from memagent.memory.extract_dates import DateHit, find_dates
from memagent.memory.extract_entities import Person, find_people, last_person
from memagent.memory.extract_hedges import is_uncertain

_CLAUSE_SPLIT = re.compile(
    r"\s*;\s*|；|\s+[-–—]\s+(?![$€£¥\d])|,\s+(?=(?:maybe|perhaps|possibly|probably|nothing confirmed|"
    r"not confirmed|tbd)\b)|,?\s+but\s+|，(?:但是?|不过|而且|另外|同时)?|,\s+(?:and\s+)?(?=(?:they|we|he|she|"
    r"i|it)\b)|\s+and\s+(?=(?:they|we|he|she|i|our|their|were|was|are|is|has|have|"
    r"had|will|needs?|wants?|prefers?)\b)|(?<=\))\s*,\s*|\n",
    re.I,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)、]|[一二三四五六七八九十]+[、.])\s*")
_LABEL = re.compile(r"^(?P<label>[^:：\n]{2,30})[:：]\s*(?=\S)")
_FILLER = re.compile(
    r"^\s*(?:also|and|plus|so|ok(?:ay)?|update|fyi|anyway|btw|oh|哦对了|另外|还有|对了|"
    r"no|yes|yeah|yep|correction(?: from [\w' ]+)?|更新一下|纠正|更正)\b[,:，：\s-]*",
    re.I,
)

_SELF_NOTE = re.compile(
    r"\b(?:don'?t (?:record|note|save|write down)|do not (?:record|note|save)|"
    r"off the record|thinking out loud|nothing from them|not from (?:them|the customer))\b"
    r"|别记|不要记|不用记|先不记|先自己琢磨|不用记录|别记录",
    re.I,
)
"""The user says the message is not about the customer or must not be kept."""

_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("milestone", re.compile(
        r"\b(?:signed off on|passed|cleared|completed|approved|finished)\b.{0,30}\b(?:review|evaluation|"
        r"assessment|audit|poc|pilot|trial)\b|\b(?:review|evaluation|assessment|poc|pilot|trial)\b.{0,20}"
        r"\b(?:passed|signed off|cleared|completed|approved)\b"
        r"|(?:通过|过了|完成)了?[\u4e00-\u9fff]{0,4}(?:评估|评审|测试|验收|审核|POC|试点)", re.I)),
    ("deal_stage", re.compile(
        r"\b(?:shortlist(?:ed)?|short-list|finalists?|on hold|paused|stalled|frozen|"
        r"legal review|redlines?|in legal|commercial (?:stage|phase|negotiation)|negotiation stage|"
        r"going with us|verbal(?:ly)? (?:yes|commit)|we (?:won|lost)|lost the deal|deal is lost|"
        r"selected us|chose us|picked us|closed[- ]won|closed[- ]lost|poc stage|in (?:a |the )?pilot|"
        r"in negotiations?|negotiating|(?:reviewing|redlining|reviews?) (?:the |our )?(?:msa|contract|order form|sow|terms)|"
        r"(?:discovery|evaluation|proposal|poc|pilot|trial|procurement|negotiation|rfp|contracting|closing) "
        r"(?:stage|phase)|moved? (?:us )?to (?:the )?(?:next|final) (?:round|stage)|final round|"
        r"went dark|gone (?:dark|quiet)|no decision|budget (?:was )?(?:cut|frozen|pulled)|"
        r"final (?:two|three|round|stage)|down to (?:two|three|the last)|stuck in \w+|"
        r"signed (?:the |an |our )?(?:loi|letter of intent|contract|order form|po|msa|sow|nda)|"
        r"issued (?:a |the |us a )?po|awarded|proposal (?:went out|is out|was sent|sent)|sent (?:the|our|them the) proposal|"
        r"submitted (?:the |our )?(?:proposal|bid|quote)|waiting (?:for|on) (?:their |the |board |a )?"
        r"(?:feedback|approval|decision|sign-?off|answer|budget))\b"
        r"|商务谈判|谈判阶段|谈判中|进入[\u4e00-\u9fff]{2,6}阶段|(?:在|处于|到了|还在)[A-Za-z\u4e00-\u9fff]{1,8}阶段|"
        r"走(?:采购|审批|招标|合同)?流程|等[\u4e00-\u9fff]{0,6}(?:审批|反馈|回复|决定|批准)|已经?提交|提交了|中标通知|定了我们|选了我们|卡在|审批中|评估中|谈价格|进入第二轮|最后一轮|没消息了|黄了|丢了|输了|落选|"
        r"未中标|中标了|赢了|搁置|暂停|签了合同|已签约|入围|短名单", re.I)),
    ("contact_preference", re.compile(
        r"\b(?:prefers?|preferred|only reads|only answers|email only|by email|via email|"
        r"can'?t stand|don'?t call|do not call|no calls|hates? (?:phone|calls|email|teams|zoom)|"
        r"reach (?:him|her|them)|best (?:way|time) to|contact (?:him|her|them)|text (?:him|her)|"
        r"(?:a )?texts?|texting|whatsapp|signal|wechat|linkedin|slack|e-?mails?|phone calls?|calls?|"
        r"in writing|in person|face[- ]to[- ]face|invites?|assistant|cold calls?|voicemail|"
        r"(?:reach|call|ping|message|contact) [A-Z][a-z]+|responds?|replies|answers (?:on|by|via))\b"
        r"|微信|电话|邮件|邮箱|短信|钉钉|飞书|企业微信沟通|沟通|联系|找他|找她|发消息|视频会|线下|见面|回消息", re.I)),
    ("competitor", re.compile(
        r"\b(?:competitors?|competing|rival|incumbent bid|quoted|quote from|bid from|bids? (?:at|of)|"
        r"also (?:evaluating|looking at|talking to)|evaluating|up against|against [A-Z]|"
        r"(?:their|a|the|new|revised|lower|higher|cheaper) (?:quote|bid|offer|price)|quotes?)\b"
        r"|\b(?:cheaper than us|undercut|lower than ours|priced below us|came in (?:at|below|under|lower|cheaper)|"
        r"(?:below|under|cheaper than) our (?:price|quote|bid)|lost (?:the deal )?to|went with [A-Z])\b"
        r"|竞争对手|竞品|对手|报价|报了|在接触|选了|投标|比我们低|比我们便宜", re.I)),
    ("commitment", re.compile(
        r"\b(?:next steps?|i(?:'ll| will)|we(?:'ll| will)|i send|we send|we owe|i owe|owe them|"
        r"promised|committed|our side|on us|will send|will share|will provide|will call|"
        r"to send|to deliver|follow[- ]up|i'?d|we'?d|agreed (?:to|that)|action items?|"
        r"(?:is|are) to (?:send|share|review|prepare|draft|schedule|set up)|will (?:review|prepare|draft|schedule|set up)|"
        r"reviews? (?:it|the \w+) by|owes? (?:us|them))\b"
        r"|约好|说好|安排|答应|承诺|我们负责|我们需|我们要|我们去|我们会|给出|下一步|他们负责|发过来|发给|提交|搞定", re.I)),
    ("requirement", re.compile(
        r"\b(?:must(?:-haves?)?|needs?(?! more time)|required?|requires|requirements?|mandatory|has to|have to|"
        r"non[- ]negotiable|insists?|wants?|deal[- ]breaker|should support|support for|"
        r"integrat\w*|sso|single sign[- ]on|on[- ]prem\w*|data (?:stays?|must|residency|hosted))\b"
        r"|\b(?:goal is|objective is|aim(?:s|ing)? to|target is to|want(?:s)? to (?:cut|reduce|get|bring))\b"
        r"|目标是|目标|指标是|要做到|必须|需要|需支持|要求|一定要|想要|希望|想把|得支持|打通|对接(?!人)|集成|私有化|国产化|信创|"
        r"(?:数据|系统|服务器)(?:不能|不得|不可以)|不能出境|境内", re.I)),
    ("pain_point", re.compile(
        r"\b(?:pain(?: point)?s?|problems?|issues?|hates?|frustrat\w*|complain\w*|slow|"
        r"expensive|too costly|late|outages?|downtime|crash\w*|manual(?:ly)?|takes? (?:them )?"
        r"(?:\d+|two|three|several)|costs? them|fines?|penalt\w*|unhappy|struggl\w*|end[- ]of[- ]life)\b"
        r"|\b(?:nightmare|painful|headaches?|bottlenecks?|broken|clunky|error-prone|too slow|"
        r"outdated|legacy)\b"
        r"|\b(?:(?:main|biggest|key|big) (?:concern|worry|complaint|challenge|issue)|worr(?:y|ied|ies) about|"
        r"concerned about|errors?|mistakes|delays?|backlogs?|churn|losing|takes? (?:forever|ages|too long)|"
        r"too (?:expensive|slow|complex|complicated)|hard to|can'?t (?:see|track|get)|no visibility|"
        r"inaccurate|out of sync|duplicate data|spreadsheets? hell|data entry|waste\w*|keep (?:missing|losing|failing)|"
        r"missing|wrong|spend (?:half|hours|days|most)|can'?t (?:scale|keep up))\b"
        r"|痛点|问题|宕机|故障|投诉|嫌|太贵|太重|很慢|罚款|停止维护|不好用|麻烦|头疼|损失|卡顿|落后|"
        r"担心|顾虑|不准|出错|延误|效率(?:很)?低|耗时|抱怨|难用|跟不上|对不上|看不到|靠人工|手工|手动|发错|错单|退货|太老|用不了|不方便|经常出|老出", re.I)),
    ("profile", re.compile(
        r"\b(?:hq|headquarter(?:s|ed)|based in|offices? in|plants? in|sites? in|located in|factory in)\b"
        r"|总部|工厂在|位于|分布在|工厂设在", re.I)),
    ("incumbent", re.compile(
        r"\b(?:use|uses|using|used|run|runs|running|(?:they'?re|are|is|still|currently) on|"
        r"core (?:system )?is|erp is|crm is|system is|live in|lives in|outsourced|"
        r"(?:current|existing) (?:system|vendor|provider|tool|crm|erp|platform)|switch(?:ing)? from|"
        r"replace|replacing|migrat\w* (?:from|off|away from)|moving (?:off|away from)|switch\w* (?:off|away from)|"
        r"(?:current|existing|legacy|old) (?:system|vendor|provider|tool|crm|erp|platform|solution) is|"
        r"(?:tracked|managed|done|kept|handled|stored|tracking|managing) (?:in|on|with|via))\b"
        r"|用的|一直用|(?:ERP|CRM|WMS|MES|OA|HR|HIS|财务系统|业务系统|系统|平台)(?:用的)?是"
        r"|用的是|现在用|目前用|在用|现有|外包|系统(?:就)?是|换掉|(?:数据|系统|业务)(?:都)?(?:在|放在)"
        r"[A-Za-z\u4e00-\u9fff]{2,12}(?:里|上)", re.I)),
]  # fmt: skip

_EVENTS = [
    ("workshop", r"workshop|研讨会"), ("demo", r"\bdemo|演示"), ("poc", r"\bpoc\b|试点|测试"),
    ("pilot", r"\bpilot"), ("proposal", r"proposal|方案"), ("pricing", r"pric(?:e|ing)|报价|quote"),
    ("contract_end", r"contract\b.{0,30}\b(?:ends|ended|expires|runs out|is up|up for renewal)|renewal|到期|expir"),
    ("tender", r"tender|\brfp\b|招标|投标"), ("signing", r"\bsign|signature|签约|签合同|签字|签署|前签|要签|合同"),
    ("go_live", r"go[- ]live|\blive\b|launch|上线"), ("rollout", r"roll-?out|推广"),
    ("decision", r"decision|decide|select(?:ing)? a vendor|vendor selection|决定|定下来|拍板|立项|"
     r"确定供应商|选定|定供应商"), ("close", r"\bclose\b|成交"),
    ("kickoff", r"kick-?off|启动"), ("meeting", r"meeting|会议|开会|院办会"),
    ("questionnaire", r"questionnaire|问卷"), ("reference", r"reference|参考客户"),
    ("budget_cycle", r"budget cycle|预算周期"), ("freeze", r"freeze|冻结"),
    ("procurement", r"procure|purchas|采购"),
]  # fmt: skip
_EVENT_RES = [(name, re.compile(p, re.I)) for name, p in _EVENTS]
_RESCHEDULE = re.compile(
    r"\b(?:moved?|push(?:ed)?|slipp?(?:ed)?|resched\w*|postpone\w*|delay\w*|instead|brought forward)\b"
    r"|改到|推迟|延到|延期|提前到|挪到|换到",
    re.I,
)
_BUDGET = re.compile(
    r"\bbudget(?:ed)?\b|预算|总投资|资金|经费|拨款|专款|投入|\bspend\b|\bset aside\b|\bearmarked\b|"
    r"\ballocated\b|\bfunding\b|\bfunds?\b|\bcan (?:spend|afford)\b|\bcan (?:only )?(?:do|go to|stretch to)\b|\bwilling to (?:spend|pay)\b|"
    r"\bceiling\b|\bcap(?:ped)? (?:at|of)\b|\bapproved\b|能花|愿意花|最多(?:能)?(?:给|出|花)|上限|批下来|的钱|"
    r"项目金额|合同金额|合同额|投资规模|投资额|立项金额",
    re.I,
)
_COUNT = re.compile(
    r"(?:~|about |around |约|大概)?(?P<n>\d[\d,]*)\s*(?:\+\s*)?(?:(?:名|个|家|位|台|辆)[\u4e00-\u9fff]{0,3}?)?\s*(?P<noun>"
    r"trucks?|stores?|hotels?|sites?|plants?|branches|seats?|users?|licen[cs]es|employees|staff|warehouses|"
    r"factories|offices|outlets|restaurants|beds|students|patients|orders|shipments|订单|单|仓库|分公司|床位|学生|患者|"
    r"reps|agents|drivers|vehicles|properties|locations|clinics|schools|store mgrs|managers|"
    r"门店|工人|员工|用户|账号|席位|司机|车辆|酒店|网点|工厂|医院|学校|人)",
    re.I,
)
_SUBJECTLESS = re.compile(
    r"^\s*(?:she|he|her|his|him|pls|please|only|prefers?|hates?|can'?t|don'?t|"
    r"wants?|says?|said|pretty|very|neutral|skeptical|"
    r"她|他(?!们)|人很好|打电话|发邮件|只用|别|不要|习惯|喜欢|对价格|态度|主要)",
    re.I,
)


@dataclass
class Clause:
    text: str
    label: str = ""


def _h(text: str) -> str:
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()[:8]


def _slug(text: str) -> str:
    s = re.sub(r"[^\w]+", "_", text.strip().lower()).strip("_")
    return s[:40] or _h(text)


def split_clauses(sentence: str) -> list[Clause]:
    """A sentence (or bullet line) cut into clauses; a short "Label:" prefix is carried
    to every clause after it ("Must-haves: SSO, and data in EU")."""
    line = _BULLET.sub("", sentence)
    if _HEADING.search(line):
        return []  # "Requirements are as follows:" introduces, it says nothing
    label = ""
    m = _LABEL.match(line)
    if m and not find_dates(m.group("label"), datetime(2000, 1, 1)):
        label, line = m.group("label").strip(), line[m.end() :]
    out: list[Clause] = []
    for part in _CLAUSE_SPLIT.split(line):
        part = (part or "").strip(" ,.，。;；")
        if len(part) >= 3:
            out.extend(Clause(p, label) for p in _comma_parts(part))
    return out


def _comma_parts(clause: str) -> list[str]:
    """An English clause cut at its commas when every piece says something on its own
    ("Budget is 1.2M for the rollout, decision by end of March"); "Sarah, our CFO, is
    the decision maker" stays whole."""
    parts = [p.strip() for p in clause.split(", ")]
    if len(parts) < 2 or re.search(r"[\u4e00-\u9fff]", clause):
        return [clause]
    ok = all(
        len(p.split()) >= 2
        and p.count("(") == p.count(")")
        and not _DEPENDENT.match(p)
        and categorise(p)
        for p in parts
    )
    return parts if ok else [clause]


_DEPENDENT = re.compile(
    r"(?:who|whom|whose|which|that|where|when|including|incl|e\.g|i\.e|or|than|because|since|"
    r"so|as|per|plus|with)\b|[~$€£¥\d(]",
    re.I,
)
"""A piece that leans on the one before it ("who quoted $410k", "~$30k more per year")."""


def self_note(text: str) -> bool:
    """The user says not to keep this message, or that it is not about the customer."""
    return bool(_SELF_NOTE.search(text))


def with_dates(text: str, dates: list[DateHit]) -> str:
    """``text`` with each relative or partial date followed by its absolute form."""
    out, last = [], 0
    for d in dates:
        out.append(text[last : d.end])
        if d.iso.lower() not in d.surface.lower():
            out.append(f" ({d.iso})")
        last = d.end
    out.append(text[last:])
    return "".join(out)


def categorise(clause: str) -> str | None:
    """The sales category a clause speaks to, or None when it holds nothing salient."""
    has_date = bool(find_dates(clause, datetime(2026, 1, 1)))
    amounts = parse_amounts(clause)
    if amounts and _BUDGET.search(clause):
        return "budget"
    for name, cue in _CUES:
        if not cue.search(clause):
            continue
        if name == "incumbent" and _LEADS.search(clause):
            continue  # "Sarah runs the warehouse team": a person leading a team, not a system
        if name == "incumbent" and not re.search(
            r"(?<=.)(?<![A-Za-z0-9])[A-Z][\w+.]*[A-Za-z0-9]|[A-Z]{2,}|\b(?:excel|spreadsheets?|paper|in-house|"
            r"homegrown)\b|自研|自己写|自建|外包|纸质|[\u4e00-\u9fff]{2,}的",
            clause,
        ):
            continue  # "uses" needs a product name
        if name == "contact_preference" and not re.search(
            r"prefer|only|can'?t stand|don'?t|hate|best|not to|never|asked|likes?|ignores?|fastest|"
            r"(?:after|before|until) \d|mornings?|afternoons?|evenings?|weekends?|keep|short|"
            r"directly|through|\bno\b|always|instead|better|rather|"
            r"习惯|只用|只接受|只看|只回|别|不要|不怎么|就行|先|再|尽量|不喜欢|喜欢|直接|以后|都发|晚上|白天|上午|下午|周末|"
            r"最好|比.{0,4}好|"
            r"不接|偏好|反感",
            clause,
            re.I,
        ):
            continue
        if name == "commitment" and not (has_date or re.search(r"next step|下一步", clause, re.I)):
            continue
        return name
    if has_date and any(p.search(clause) for _, p in _EVENT_RES):
        return "timeline"
    if amounts:
        return "amount"
    if _COUNT.search(clause):
        return "count"
    return None


@dataclass
class SalesFact:
    """One clause worth keeping, before it becomes a ``Candidate``."""

    content: str
    category: str
    attribute: str
    value: str | None
    uncertain: bool
    event_time: datetime | None = None


def _event(clause: str) -> str | None:
    return next((name for name, p in _EVENT_RES if p.search(clause)), None)


def _key(category: str, clause: str, person: str | None, dates: list[DateHit],
         context: str | None) -> tuple[str, str | None]:  # fmt: skip
    """(attribute, value) of a clause: single-valued attributes share one key, the rest
    are keyed by their subject so one never supersedes another."""
    if category == "budget":
        amounts = parse_amounts(clause)
        if not amounts:
            return "budget", None
        amount = current_amount(clause, amounts)
        return "budget", amount.normalised + (" approx" if amount.approx else "")
    if category == "deal_stage":
        return "deal_stage", _slug(clause)[:60]
    if category == "milestone" and dates and _AHEAD.search(clause):
        category = "timeline"  # "希望下个月底之前完成POC": a date ahead, not a milestone passed
    elif category == "milestone":
        return f"deal_stage:milestone:{_h(clause)}", None
    event = _event(clause) if dates else None
    if event and (
        category in ("requirement", "pain_point", "incumbent", "amount", "count")
        or (category == "competitor" and not parse_amounts(clause))
    ):
        category = "timeline"  # "they want the contract signed by Dec 21" is a date first
    if category in ("timeline", "commitment") and dates:
        if event is None and context and (_RESCHEDULE.search(clause) or is_uncertain(clause)):
            return context, target_date(clause, dates).iso
        if event:  # one date per event, whether a deadline of theirs or a commitment of ours
            return f"deadline:{event}", target_date(clause, dates).iso
        prefix = "deadline" if category == "timeline" else "commitment"
        return f"{prefix}:{_h(clause)}", target_date(clause, dates).iso
    if category == "competitor":
        who = competitor_name(clause)
        if who and (quoted := parse_amounts(clause)):
            # a rival's newer quote replaces its older one
            return f"competitor:{_slug(who)}:quote", current_amount(clause, quoted).normalised
        return f"competitor:{_slug(who or _h(clause))}:{_h(clause)}", None
    if category == "count" and (m := _COUNT.search(clause)):
        # one figure per thing counted: "250 stores" versions "200 stores"
        return f"count:{_slug(m.group('noun').rstrip('s'))}", m.group("n").replace(",", "")
    if category == "contact_preference":
        who = _slug(person or "customer")
        if (channel := preferred_channel(clause)) is not None:
            # one preferred channel per person: "Kim now prefers WhatsApp" replaces "Kim prefers email"
            return f"contact_preference:{who}:channel", channel
        return f"contact_preference:{who}:{_h(clause)}", None
    if category == "stakeholder" and person:
        return f"stakeholder:{_slug(person)}:{_h(clause)}", None
    return f"{category}:{_h(clause)}", None


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


_TO_DATE = re.compile(
    r"(?:\bto|\buntil|\btill|\bfor|改到|推迟到|延到|延期到|提前到|挪到|换到|定在|改成)\s*$", re.I
)


def target_date(clause: str, dates: Sequence[DateHit]) -> DateHit:
    """The date a clause sets: the one a move points to ("moved the workshop to Wednesday
    next week, Maria has a conflict on the 3rd"), else the last one."""
    if len(dates) > 1 and _RESCHEDULE.search(clause):
        for d in dates:
            if _TO_DATE.search(clause[max(0, d.start - 12) : d.start]):
                return d
    return dates[-1]


_OLD_BEFORE = re.compile(
    r"(?:[,，]?\s*(?:\b(?:not|instead of|rather than|down from|up from|from|vs\.?|versus)\s+(?:the\s+)?)"
    r"|(?:[,，]?\s*(?:而不是|不是|之前说的|之前的|原来的|原先的|上次说的|从|由)\s*))$",
    re.I,
)
_NEGATED = re.compile(
    r"\b(?:not|instead of|rather than)\s+(?:the\s+)?$|不是\s*$|(?:之前|上次)说的\s*$", re.I
)
_OLD_AFTER = re.compile(
    r"^\s*(?:as (?:i|we) (?:said|wrote|mentioned|noted|had)(?: (?:before|earlier|last time))?|"
    r"(?:is|was) (?:wrong|outdated|out of date|old)|不对|是错的|有误|作废|是旧的)",
    re.I,
)


_OLD = r"(?P<old>[^,;.，；。]{1,30}?)"
_REWRITES = [
    # "The demo isn't Dec 8 anymore, it's Dec 10" / "Decision maker is no longer Tom; it's Ana"
    (re.compile(r"\b(?:isn'?t|is not|is no longer)\s+" + _OLD + r"(?:\s+any ?more)?\s*[,;]\s*"
                r"(?:it'?s|it is|but|now|they'?re)\s+", re.I), "is "),
    # "Not Salesforce - they use HubSpot"
    (re.compile(r"^\s*(?:no,?\s+)?not\s+" + _OLD + r"\s*[-–—,;:]\s*(?=\S)", re.I), ""),
    # "Scratch the 400 seats, it's 350 seats"
    (re.compile(r"\b(?:scratch|forget|ignore)\s+(?:the|that|what i said about)?\s*" + _OLD
                + r"\s*[-–—,;:]\s*(?:it'?s|make it|it is)\s+", re.I), ""),
    # "250 stores, not 200"
    (re.compile(r",?\s*not\s+\d+(?:[.,]\d+)*(?!\d|[.,]\d|\s*(?:k|m|bn|million|billion|万|亿|元|[a-z%$€¥]))", re.I), ""),
    # "演示不是周二了，改到周四" / "决策人不是王总了，换成李总" / "不是SAP，是Oracle"
    (re.compile(r"不是" + _OLD + r"了?[，,]\s*(?P<verb>改到|推迟到|延到|提前到|挪到)"), r"\g<verb>"),
    (re.compile(r"不是" + _OLD + r"了?[，,]\s*(?:换成了?|改成了?|而是|变成了?|是)"), "是"),
]  # fmt: skip
REPLACED = re.compile(
    "|".join(p.pattern.replace("?P<old>", "?:") for p, _ in _REWRITES[:3])
    + r"|不是[^，,。]{1,30}?了?[，,]",
    re.I,
)
"""A sentence that replaces an old value: a correction, whatever its opening words."""


def replaced_by_new(text: str) -> str:
    """A sentence that replaces an old value by a new one, with the old value left out
    ("The demo isn't Dec 8 anymore, it's Dec 10" -> "The demo is Dec 10",
    "决策人不是王总了，换成李总" -> "决策人是李总"), so no memory keeps the old one."""
    for pattern, repl in _REWRITES:
        text = pattern.sub(repl, text)
    return text


def drop_old_values(text: str) -> str:
    """``text`` without the amounts it marks as no longer true ("650k, not 500k as I said
    before", "went from 500k to 650k", "不是300万，是350万", "之前说的200万不对"), so a
    memory never carries the old value beside the new one."""
    text = _drop_old_dates(text)
    amounts = parse_amounts(text)
    if not amounts:
        return text
    cuts: list[tuple[int, int]] = []
    for a in amounts:
        before = _OLD_BEFORE.search(text[max(0, a.start - 16) : a.start])
        after = _OLD_AFTER.match(text[a.end :])
        others = [b for b in amounts if b is not a]
        negated = (before and _NEGATED.search(before.group(0))) or after
        if not (negated or (before and others)):
            continue
        start = a.start - (len(before.group(0)) if before else 0)
        end = a.end + (after.end() if after else 0)
        cuts.append((start, end))
    for start, end in sorted(cuts, reverse=True):
        head, tail = text[:start], text[end:]
        if re.match(r"\s*[,，]\s*(?:而)?是", tail):
            tail = re.sub(r"^\s*[,，]\s*(?:而)?", "", tail)  # "不是300万，是350万" -> "是350万"
        head, tail = head.rstrip(), tail.lstrip()
        text = (
            head
            + (" " if re.match(r"[A-Za-z0-9]", tail) and re.search(r"[A-Za-z0-9]$", head) else "")
            + tail
        )
    return text


_BARE_HEDGE = re.compile(
    r"^(?:but |though |although )?(?:(?:it'?s |that'?s |this is )?(?:not (?:yet )?(?:confirmed|final|decided|approved)"
    r"(?: yet)?|unconfirmed|tbd|tbc|to be confirmed|not sure|unsure|nothing confirmed)|还没定|没定|未定|待定|不确定|"
    r"还不确定|没确认|未确认|还没确认|还没批)[\s.!。！]*$",
    re.I,
)
_DATE_FROM = re.compile(r"(?:\bfrom|从|由)\s*$", re.I)
_DATE_OFF = re.compile(
    r"^\s*(?:is (?:off|cancelled|canceled|out|dead)|(?:is )?no longer|any ?more|取消了?|不行了|作废)",
    re.I,
)


def _drop_old_dates(text: str) -> str:
    """ "moved from March 1 to April 15" -> "moved to April 15"; "so Dec 15 is off" goes."""
    dates = find_dates(text, datetime(2026, 1, 1))
    if len(dates) < 2:
        return text
    for d in reversed(dates):
        before = _DATE_FROM.search(text[max(0, d.start - 6) : d.start])
        after = _DATE_OFF.match(text[d.end :])
        if before:
            text = text[: d.start - len(before.group(0))].rstrip() + " " + text[d.end :].lstrip()
        elif after:
            head = re.sub(r"[,，;；]?\s*(?:so|and|因此|所以)?\s*$", "", text[: d.start], flags=re.I)
            text = head + text[d.end + after.end() :]
    return text


_AHEAD = re.compile(
    r"\b(?:by|before|until|plan(?:s|ned)? to|will|want(?:s)? to|need(?:s)? to|must|target)\b|之前|以前|前(?:要|得|必须)?完成|希望|计划|要在|争取|必须",
    re.I,
)
_NEW_VALUE = re.compile(
    r"(?:\bto|\bnow|\bis now|→|->|调整为|调整到|调到|提到|提高到|增加到|加到|降到|降为|砍到|压到|改为|改成|变成|变为|现在是)"
    r"了?\s*(?:about|around|roughly|approx\.?|约|大概)?\s*$",
    re.I,
)


def current_amount(clause: str, amounts: Sequence[Amount]) -> Amount:
    """The amount a clause leaves in force: "went from 500k to 650k", "从200万提到280万"
    give the second; otherwise the first."""
    for a in amounts[1:]:
        if _NEW_VALUE.search(clause[max(0, a.start - 14) : a.start]):
            return a
    return amounts[0]


_NOT_VENDOR = {"They", "We", "Our", "Their", "The", "Rival", "Competitor", "Competitors", "It", "He",
              "She", "That", "This", "Price", "Pricing", "Budget", "Quote"}  # fmt: skip


def competitor_name(clause: str) -> str | None:
    """The vendor a competitor clause names ("quoted by Digiwin", "他们选了石基")."""
    name = re.search(r"(?<=.)(?<![A-Za-z0-9])([A-Z][\w&]+(?: [A-Z][\w&]+)?)\b", clause)
    if name:
        return name.group(1)
    first = re.match(r"([A-Z][\w&]+(?: [A-Z][\w&]+)?)\s+(?:quoted|dropped|came|offered|bid|is|was|has|cut|lowered|raised|at|@)\b",
                     clause)  # fmt: skip
    if first and first.group(1).split()[0] not in _NOT_VENDOR:
        return first.group(1)
    zh = re.search(r"([\u4e00-\u9fff]{2,4})(?:报价|那边|已经报|在接触)|(?:选了|输给了?|对手是)([\u4e00-\u9fff]{2,4})",
                   clause)  # fmt: skip
    return (zh.group(1) or zh.group(2)) if zh else None


def _substance(text: str) -> int:
    """Words (or Chinese characters) a clause has beyond filler."""
    return len(_WORDS.findall(re.sub(r"\b(?:the|a|an|on|of|to|in|per|her|his|its|yes|no)\b", "", text,
                                     flags=re.I)))  # fmt: skip


def sales_facts(
    text: str,
    ref: datetime,
    *,
    context_event: str | None = None,
    names: Sequence[str] = (),
    prior_person: str | None = None,
) -> tuple[list[SalesFact], str | None]:
    """The facts of one user statement (a sentence or bullet line), and the deadline key
    the conversation is now about (for "push it to Jan 6" in a later clause or turn).
    ``names`` are people named in the message, to expand "Zhou" to "Zhou Lin";
    ``prior_person`` the last one named before this statement ("He is our champion")."""
    reader = _Reader(ref, list(dict.fromkeys([*known_names(text), *names])), last_person(text),
                     prior_person, context_event)  # fmt: skip
    reader.facts = [_role_fact(p) for p in find_people(text)]
    for clause in split_clauses(drop_old_values(text)):
        reader.read(clause)
    return reader.facts, reader.context_event


def _role_fact(p: Person) -> SalesFact:
    zh = re.search(r"[\u4e00-\u9fff]", p.role)
    content = f"{p.name}：{p.role}。" if zh else f"{p.name}: {p.role}."
    return SalesFact(content, "stakeholder", f"stakeholder:{_slug(p.name)}:role", p.role.lower(),
                     False)  # fmt: skip


_ONLY_NAMES = re.compile(
    r"\b(?:met|also|with|and|attendees)\b|见了|和|对接人|联系人|是|的|为", re.I
)
_NOT_LONE = ("They", "There", "This", "That", "She", "Budget")


@dataclass
class _Reader:
    """Reads the clauses of one statement in order, carrying who and what they are about."""

    ref: datetime
    known: list[str]
    person: str | None
    prior_person: str | None
    context_event: str | None
    facts: list[SalesFact] = field(default_factory=list)
    current_person: str | None = None
    last_rival: str | None = None
    prev_body: str = ""

    def read(self, clause: Clause) -> None:
        body = _FILLER.sub("", clause.text).strip()
        if not body:
            return
        if self.facts and _BARE_HEDGE.match(body):
            # "Go-live moves to Q3, not confirmed yet": the hedge is about the clause before
            self.facts[-1].uncertain = True
            return
        body, category = self._joined(body, clause)
        dates = find_dates(body, self.ref)
        named = last_person(body) or _full_name(body, self.known)
        lone = re.match(
            r"([A-Z][a-z]{2,})\s+(?:is|was|has|will|just|also|now|says|said|prefers|wants|likes|asked|hates)\b",
            body,
        )
        if lone and lone.group(1) not in _NOT_LONE:
            named = _full_name(lone.group(1), self.known) or lone.group(1)
        self.current_person = named or self.current_person
        if (
            category is None
            and dates
            and self.context_event
            and (_RESCHEDULE.search(body) or is_uncertain(body))
        ):
            category = "timeline"
        if (
            category is None
            and _STANCE.search(body)
            and (self.current_person or self.person or self.prior_person)
        ):
            category = "stakeholder"
        if category is None or not self._substantial(body, dates):
            return
        self._add(body, category, dates, clause.label)

    def _joined(self, body: str, clause: Clause) -> tuple[str, str | None]:
        """The clause and its category; a short Chinese clause that only gives a date or an
        amount finishes the one before ("我们负责搭测试环境，下周三之前搞定")."""
        category = categorise(body)
        if category in (None, "amount", "count") and clause.label:
            # "Rival quote: Infor at 300k": the label says what the figure is
            category = categorise(f"{clause.label}: {body}") or category
        if category is None and clause.label:
            category = categorise(f"{clause.label}: {body}")
        prev = self.prev_body
        dated = find_dates(body, self.ref) and _event(body) is None
        value_only = (dated and (_event(prev) or len(body) <= 8)) or (
            parse_amounts(body) and not _BUDGET.search(body) and not parse_amounts(prev)
            and not find_people(body))  # fmt: skip
        if prev and value_only and re.search(r"[\u4e00-\u9fff]", body) and len(body) <= 14:
            body = f"{prev}，{body}"
            category = categorise(body) or "timeline"
            if self.facts and self.facts[-1].content.startswith(prev[:20]):
                self.facts.pop()
        self.prev_body = body
        return body, category

    @staticmethod
    def _substantial(body: str, dates: list[DateHit]) -> bool:
        people = find_people(body)
        rest = body
        for p in people:
            rest = rest.replace(body[p.start : p.end], " ")
        if people and _substance(_ONLY_NAMES.sub("", rest)) < (2 if _STANCE.search(rest) else 3):
            return False  # the clause only names a person and role: already kept
        # "on the pain", "'non-negotiable'": too little to stand alone
        return _substance(body) >= 2 or bool(dates or parse_amounts(body) or _COUNT.search(body))

    def _add(self, body: str, category: str, dates: list[DateHit], label: str) -> None:
        shown = [target_date(body, dates)] if len(dates) > 1 and _RESCHEDULE.search(body) else dates
        content = with_dates(body, shown)  # a move writes out only the date moved to
        if label and not re.match(r"(?i)note|re\b|fyi", label):
            content = f"{label}: {content}"
        who = self.current_person or self.prior_person or self.person or (
            self.known[-1] if self.known else None)  # fmt: skip
        content = self._subject(content, body, category, who)
        attribute, value = _key(category, body, who, dates, self.context_event)
        content = labelled(content, attribute.split(":", 1)[0])
        if self.context_event and attribute == self.context_event and _event(body) is None:
            content = f"{self.context_event.split(':', 1)[1].replace('_', ' ')}: {content}"
        if who and _DECIDES.search(body) and category in ("stakeholder", "requirement", "amount"):
            attribute, value = "decision_maker", who.lower()
        if attribute.startswith(("deadline:", "commitment:")):
            self.context_event = attribute
        event_time = None
        when = target_date(body, dates) if dates else None
        if when is not None and when.day is not None:
            event_time = datetime.combine(when.day, datetime.min.time(), self.ref.tzinfo)
        self.facts.append(
            SalesFact(content, category, attribute, value, is_uncertain(body), event_time)
        )

    def _subject(self, content: str, body: str, category: str, who: str | None) -> str:
        """``content`` naming who or what it is about when the clause does not."""
        if category == "competitor":
            rival = competitor_name(body)
            if rival is None and self.last_rival and self.last_rival not in content:
                content = f"{self.last_rival}: {content}"  # "价格比我们低三成" after "选了石基"
            self.last_rival = rival or self.last_rival
            return content
        short = _full_name(body, self.known)
        if short and short not in content:
            return f"{short}: {content}"
        if (
            who
            and who not in content
            and (_SUBJECTLESS.match(body) or category in ("contact_preference", "stakeholder"))
        ):
            return f"{who}: {content}"
        return content


_STANCE = re.compile(
    r"\b(?:champion|sponsor|advocate|supporter|pushing for us|pushed (?:hard )?(?:internally|for us)|"
    r"skeptic\w*|neutral|blocker|detractor|on the fence|on our side|likes us|fan of|"
    r"retir\w*|leaving|left the company|takes over|decision[- ]maker|makes? the (?:call|decision)|"
    r"signs?(?: off)?|signed off|approves?|decides?|final say|cadillac|economic buyer|"
    r"supportive|supports us|on board|in (?:our )?favou?r|against (?:us|it|the|cloud|moving|switching|change)|"
    r"opposed|opposes|resist\w*|cautious|wary|hesitant|reluctant|doubtful|not convinced|unconvinced|"
    r"keen|enthusiastic|excited|positive about|negative about|push(?:es|ing)? back|pushback|"
    r"(?:loves?|likes?|prefers?) (?:us|our|the competitor|them|the product|the demo|it)|"
    r"\w+ contact (?:is|was)|contact (?:person|point) (?:is|was)|leans? (?:toward|towards)|blocking|"
    r"own(?:s)? the decision|satisfied|happy with (?:us|our|the)|impressed|"
    r"gatekeeper|influencer|key contact|main contact|point of contact|our contact|owns? the (?:budget|project|relationship))\b"
    r"|支持|内线|中立|反对|力推|看好|认可|觉得我们|更看重|敏感|说了算|拍板|签字|授权|审批|否过|离职|退休|接任|决策|"
    r"满意|不满|认同|欣赏|保守|谨慎|犹豫|积极|热情|不感冒|倾向|不看好|有顾虑|抵触|站在我们这边|持保留|很配合|不配合|偏向|对接人|联系人|牵头|主导|负责这个项目",
    re.I,
)

_DECIDES = re.compile(
    r"\b(?:is|will be) (?:the )?(?:final )?decision[- ]maker|\b(?:make|makes|will make)(?: the| every)?"
    r" (?:final )?(?:call|decision|purchase decision)|\bhas the final say|\bsigns (?:off|anything|every)"
    r"|\b(?:the )?(?:final )?decision[- ]maker (?:is|was|will be|now)\b|\bdecision (?:now )?(?:sits|rests|lies) with\b"
    r"|\b(?:she|he)'ll make the call|\bwill sign (?:the|off)|\bwill own the decision|\bowns the decision"
    r"|决策人|拍板|说了算|最终签字|签字的是|做最终决定",
    re.I,
)
_LEADS = re.compile(
    r"\b(?:runs?|running|manages?|heads?|leads?)\s+(?:the\s+|their\s+|our\s+|a\s+)?[\w&/ -]{0,30}?"
    r"\b(?:team|department|dept|group|division|unit|office|function|org|organi[sz]ation|region|plant|site|project|"
    r"procurement|purchasing|finance|it|operations|ops|sales|marketing|legal|hr|engineering|security|logistics|"
    r"supply chain|the show)\b",
    re.I,
)
_HEADING = re.compile(r"[:：]\s*$")
_WORDS = re.compile(r"[A-Za-z]+|[\u4e00-\u9fff]")


def dated_event(turns: Sequence[Turn]) -> str | None:
    """The deadline key the conversation was last about ("deadline:demo"), so "push it to
    Jan 6" in the next message moves that date."""
    for t in reversed(turns):
        if find_dates(t.content, datetime(2026, 1, 1)) and (ev := _event(t.content)):
            return f"deadline:{ev}"
    return None


def known_names(text: str) -> list[str]:
    return [p.name for p in find_people(text) if " " in p.name]


def _full_name(clause: str, names: list[str]) -> str | None:
    """ "Zhou just wants..." -> "Zhou Lin" when the note named Zhou Lin before."""
    for name in names:
        if name in clause:
            return None
        parts = [w for w in name.replace("Dr. ", "").split() if len(w) > 2]
        if any(re.search(r"\b" + re.escape(w) + r"\b", clause) for w in parts):
            return name
    return None


SINGLE_VALUED = ("budget", "decision_maker", "deal_stage", "seats", "team_size")


def content_key(attribute: str, content: str, value: str | None = None) -> str:
    """The versioning key of a fact another extractor (the LLM) found in a category:
    single-valued attributes keep their name, dates are keyed by their event, the
    rest by their content, so two requirements never supersede each other."""
    head = attribute.split(":", 1)[0]
    if head in SINGLE_VALUED or ":" in attribute:
        return attribute
    if head in ("deadline", "commitment", "timeline"):
        event = _event(content)
        return f"deadline:{event}" if event else f"{head}:{_h(content)}"
    return f"{head}:{_h(content)}"
