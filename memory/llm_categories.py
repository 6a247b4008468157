"""A sorted line's category, checked by its own words: the cheap checks that drop a
category a clause cannot hold, the category its words show instead (a 1.5B model puts
about a third of the lines in a wrong category), and the names a clause holds.

Used by the hybrid LLM extractor (``llm_hybrid``): the model sorts, these words decide
what is kept. Traditional characters are read as their simplified forms.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memagent.memory.extract_entities import find_people
from memagent.memory.extract_rules import parse_amount
from memagent.memory.extract_script import fold


@dataclass(frozen=True)
class Line:
    """A clause for the model, and the person the note named last before it (for a
    clause that refers back to them: "he's lukewarm on us", "强烈支持")."""

    text: str
    person: str | None = None
    dated: str = ""
    """The clause with each relative date followed by its absolute form."""
    taken: frozenset[str] = frozenset()
    """The kinds of fact the rules already read in the clause's sentence: the model's
    fact of one of these kinds would restate theirs (a second memory of one fact)."""
    conditional: bool = False
    """A sentence a condition governs whole: its fact holds only under the condition,
    so it never replaces a current value (a budget "if the levy passes")."""


def spaced(text: str) -> str:
    """``text`` with a space between a Chinese character and a Latin word or figure, so a
    word's ``\\b`` holds next to Chinese ("用WhatsApp", "Excel排产")."""
    text = re.sub(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9$])", " ", text)
    return re.sub(r"(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])", " ", text)


_MYSELF = re.compile(
    r"^(?!i'?d say\b|i (?:think|guess|believe|reckon|feel)\b)(?:i|i'm|i've|i'll|i'd|im|me)\b|"
    r"^(?:我)(?!们|觉得|感觉|估计|看)",
    re.I,
)
"""The salesperson about themselves; "I'd say", "I think", "我觉得" only hedge a fact."""
_EMPTY = re.compile(r"^(?:that'?s|this is|it'?s|这是|那是|这个是)", re.I)


_ROLE = re.compile(
    r"\b(?:ceo|cto|cfo|cio|coo|cmo|cro|vp|director|head|manager|chief|officer|lead|owner|"
    r"sponsor|champion|blocker|decides?|decision|signs?|approv\w*|supports?|against|skeptic\w*|"
    r"lukewarm|neutral|fan|leaving|left|joined|boss|reports? to|partner|controller|buyer|champ|"
    r"dir|runs|in charge|procurement|compliance|attendees?|cautious|onboard|on board|architect|"
    r"engineer|analyst|specialist|coordinator|administrator|counsel|sceptic\w*)\b|"
    r"感兴趣|表态|点头|保守|积极|认可|看好|犹豫|\b(?:interested|keen|hesitant|conservative)\b|"
    r"总|经理|主任|总监|负责|部长|处长|院长|厂长|董事|财务长|局长|科长|校长|行长|店长|组长|首席|支持|反对|中立|冷淡|拍板|决策|对接|调去|离职|关注|认为|觉得",
    re.I,
)
_CHANNEL = re.compile(
    r"\b(?:e-?mail|call|phone|text|whatsapp|wechat|line|slack|teams|meeting|summary|deck|slides?|"
    r"morning|afternoon|evening|weekend|brief|short|written|in person|video|demo|portal|"
    r"feishu|lark|in writing)s?\b|\bcontact \w+ directly\b|"
    r"微信|邮件|电话|短信|钉钉|飞书|视频|材料|案例|上午|下午|晚上|周末|当面|简短|书面|门户|PPT|ppt|(?-i:LINE)",
    re.I,
)
_VENDOR = re.compile(
    r"[A-Z][A-Za-z0-9]+|[A-Za-z]{2,}|对手|竞品|竞争|报价|投标|在跟|\b(?:quot|bid|pitch|compet|rival)|"
    r"(?:对比|比较|接触|谈|看|试用|评估)过|来谈|在谈|也在看|"
    r"[\u4e00-\u9fff]{2,4}(?:软件|科技|信息|数据)|收到(?:了)?邀请|的人[^，。]{0,6}来(?:了|过)",
)
_NEED = re.compile(
    r"\b(?:needs?|must|requires?|required|requirement|wants?|has to|have to|should|looking for|"
    r"insists?|mandatory|only if|can'?t|cannot|without|asks? for|asked for|requests?|requested|"
    r"expects?)\b|要|需|必须|希望|想|得|不能|只能|一定|要求|也能|能够",
    re.I,
)
_NUMBER = re.compile(r"\d|[三四五六七八九十百千万亿]+(?:个|家|人|辆|台|头|名|所|座|条|年|万|亿)")
_TIMEWORD = re.compile(
    r"\b(?:by|before|until|deadline|due|end of|q[1-4]|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
    r"nov|dec|week|month|year|monday|tuesday|wednesday|thursday|friday|date|dated)\w*|"
    r"\b\d{1,4}[/.-]\d{1,2}(?:[/.-]\d{1,4})?\b|"
    r"之前|以前|截止|月|周|号|季|年底|年中|明年|今年|下周|本周|这周|月底|日期",
    re.I,
)


def fits(category: str, line: Line) -> bool:
    """A cheap check that the line can hold a fact of the category the model chose
    (a 1.5B model files a visit header as a timeline, "no news" as a competitor)."""
    text = spaced(fold(line.text))
    if _EMPTY.search(text):
        return False
    if _MYSELF.search(text) and category != "commitment":
        return False  # the salesperson's own state or plans ("I'm at 60% of quota")
    checks = {
        "stakeholder": lambda: bool(_ROLE.search(text)),
        "contact_preference": lambda: bool(_CHANNEL.search(text)),
        "competitor": lambda: bool(_VENDOR.search(text)),
        "incumbent": lambda: bool(
            _VENDOR.search(text) or re.search(r"系统|自研|excel", text, re.I)
        ),
        "budget": lambda: bool(
            parse_amount(text) is not None or _SPELLED.search(text) or _SCALED.search(text)
        ),
        "requirement": lambda: bool(_NEED.search(text)),
        "other": lambda: bool(_NUMBER.search(text) or _SITE.search(text)),
        "timeline": lambda: bool(_TIMEWORD.search(text)),
        "commitment": lambda: bool(
            _TIMEWORD.search(text)
            or re.search(r"next|tomorrow|下一步|明天|后天", text, re.I)
            or _PROMISE.search(text)
        ),
        "deal_stage": lambda: bool(_STAGE.search(text)),
        "pain_point": lambda: bool(_PAIN.search(text) or _HURTS.search(text)),
    }
    return checks.get(category, lambda: True)()


_DELIVER = (
    r"send|share|provide|prepare|draft|set up|arrange|schedule|book|deliver|follow up|"
    r"get back|introduce|loop in|submit|organi[sz]e|host|run|walk|give|email|forward"
)
_PROMISE = re.compile(
    rf"\b(?:promised?|promising|committed to|commit to|agreed to|we owe|i owe|owes? (?:us|them)|"
    rf"on us to|(?:will|'ll|is going to|are going to|am going to) (?:\w+ )?(?:{_DELIVER})|"
    rf"(?:is|are) to (?:{_DELIVER}))\b|"
    r"承诺|答应|保证|说好|约好|(?:会|来|负责|回头|再)(?:发|给|提供|安排|准备|整理|寄|约)",
    re.I,
)
"""A promise with no time word ("we promised to send the SOC 2 report", "答应给他们发一份
案例"): still a commitment (who will do what), so the check of that category takes it."""


_SPELLED = re.compile(
    r"\b(?:hundred|thousand|million|billion|grand|k)\b.{0,20}\b(?:pounds?|dollars?|euros?|"
    r"usd|eur|gbp|cny|rmb|yuan|budget|spend)\b|\b(?:budget|spend)\b.{0,30}\b(?:thousand|million|"
    r"billion)\b|[百千]万|[一二三四五六七八九十两]+(?:万|亿)",
    re.I,
)
_SCALED = re.compile(
    r"\d(?:[\d,.]*\d)?\s*(?:k|m|mn|mio|bn|grand|l|lakhs?|lacs?|cr|crores?|million|billion)\b|"
    r"[$€£¥]\s?\d",
    re.I,
)
"""An amount in a form the amount parser may not know ("80L pa", "2.4 cr", "1,3 Mio",
"400 grand"): enough for a line the model sorted as a budget."""
_SITE = re.compile(
    r"\b(?:headquarter\w*|hq|head office|offices? in|branch(?:es)? in|based in|plants? in|"
    r"sites? in|warehouses? in|depots? in)\b|总部|分公司|办公室|办事处|分所|厂区|工厂|分厂|"
    r"冻仓|仓库|(?:有|个)[^，。,]{0,3}仓|门店|分店|分行|主要在[^，。,]{1,6}(?:和|、|跟|及)",
    re.I,
)
"""Where the customer is: its head office, branches, plants, warehouses ("新加坡有个分公司",
"葵涌有个冻仓", "主要在广州和佛山"), an account fact with no figure in it."""


def a_site(line: Line) -> bool:
    """Whether a line says where the customer is (``_SITE``): a fact of its own beside a
    count or profile field the rules read in the same sentence."""
    return bool(_SITE.search(spaced(fold(line.text))))


_SYSTEM = re.compile(
    r"\b(?:(?i:tms|erp|crm|wms|mes|sap|oracle|excel|spreadsheets?|in-house|homegrown|legacy)|"
    r"(?:run|runs|running|use|uses|using) (?:on )?[A-Z]\w+)\b|系统|自研|老 ?[A-Za-z]+|在用|现用|"
    r"(?:现在|目前)[^，。,]{0,12}(?:是)?用|用的是|"
    r"^(?i:tools?|stack|current(?:ly)?|curr?|using|现行|现用|目前)\s*[:：]\s*[A-Z\u4e00-\u9fff]",
)


def _names_a_role(text: str) -> bool:
    """A named person with a role ("Attendees: Jens Möller (Procurement Manager)")."""
    named = re.search(
        r"\b[A-Z][a-z]+ [A-Z][\w'’-]+|[\u4e00-\u9fff]{2,3}[，,、（(]|"
        r"(?:厂长|总监|经理|主任|处长|院长|部长)[\u4e00-\u9fff]{2,3}",
        text,
    )
    # one first name leading a role ("Freja will be day-to-day owner", "Meera = champion")
    led = re.match(r"^[A-Z][a-z]+(?:'s| is| will be| =| as|:)\s", text)
    return bool(find_people(text)) or (bool(named or led) and bool(_ROLE.search(text)))


_PAIN = re.compile(
    r"\b(?:by hand|manually|too slow|way too slow|takes? (?:them |their )?\w+ (?:hours|days)|"
    r"waits?|errors?|re-?key\w*)\b|人工|手工|靠人手|不可见|看不到|停工|卡得|太慢|很慢|要等|出错|错单|对不上",
    re.I,
)
"""A problem the customer has today, in words no other fact uses."""
_STAGE = re.compile(
    r"\b(?:stage|verbal(?:ly)?|signed|won|lost|closed?|shortlist\w*|short-list\w*|proposal|"
    r"negotiat\w*|poc|pilot|trial|evaluat\w*|on hold|stalled|paused|discovery|procurement|"
    r"legal review|redlines?|contract|tender|rfp|rfq|down-?selected|finalists?|committed|go-ahead|"
    r"green light|approved)\b|阶段|入围|谈判|签约|签了|签署|中标|丢单|赢单|输了|出局|评估|试点|测试|"
    r"暂停|搁置|立项|招标|投标|定标|采购流程|走流程|验收|上线",
    re.I,
)
"""Words that show where a deal stands."""
_HURTS = re.compile(
    r"\b(?:complain\w*|slow|manual\w*|paper|mistakes?|delays?|lags?|late|lost|missed|problems?|"
    r"issues?|pain|struggl\w*|hard|difficult|can'?t|cannot|unable|no visibility|outdated|clunky|"
    r"old|aging|ageing|broken|fail\w*|crash\w*|downtime|outages?|costly|expensive|waste\w*|frustrat\w*|hates?|"
    r"sick of|tired of|bottlenecks?|backlogs?|overtime|outgrow\w*|spreadsheets?|excel|churn|"
    r"fines?|penalt\w*|\d+ (?:hours|days|weeks)|(?:done|run|handled|planned) (?:by|over|via|on) "
    r"(?:phone|hand|e-?mail|fax|paper|whiteboards?))\b|"
    r"痛点|慢|麻烦|问题|投诉|抱怨|错|延迟|延误|丢|漏|难|累|加班|麻木|忙|卡|乱|不通|看不到|不可见|停|浪费|贵|"
    r"头疼|吐槽|效率|罚|瓶颈|[\\d一二三四五六七八九十两几来]+(?:个)?(?:天|小时|周)|老旧|老化|落后",
    re.I,
)
"""Words of a problem the customer has (wider than ``_PAIN``, which alone refiles a line)."""
_PREFERS = re.compile(
    r"\s>\s|\binstead of\b|"
    r"\b(?:prefers?|only|rather|doesn'?t do|don'?t do|never|best reached|reach (?:him|her) on)\b|"
    r"\b(?:route|routed|via|through|directly|in writing)\b|"
    r"习惯|喜欢|偏好|只用|只接受|不要|别打|要发|沟通用|统一用|走(?:邮件|门户|平台)",
    re.I,
)
_OUTCOME = re.compile(
    r"\b(?:verbal(?:ly)? (?:yes|commit\w*|agree\w*)|signed|closed[- ]won|closed[- ]lost|"
    r"shortlisted|on hold|went dark|we (?:won|lost)|lost (?:the deal|to)|(?:moving|moved|move) "
    r"(?:in)?to (?:the )?(?:\w+ )?(?:evaluation|negotiation|procurement|pilot|poc|legal))\b|"
    r"进入(?:了)?.{0,4}(?:评估|谈判|采购|试点|测试|招标)|中标|丢单|赢单|签约了|签了合同|出局|入围了|搁置了",
    re.I,
)
"""A stage in words only a stage uses: what refiles a line the model filed elsewhere."""
_FALLBACK: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("stakeholder", _names_a_role),
    ("budget", lambda t: parse_amount(t) is not None or bool(_SPELLED.search(t))),
    ("incumbent", lambda t: bool(_SYSTEM.search(t))),
    ("contact_preference", lambda t: bool(_CHANNEL.search(t) and _PREFERS.search(t))),
    ("pain_point", lambda t: bool(_PAIN.search(t))),
    ("deal_stage", lambda t: bool(_OUTCOME.search(t))),
    ("other", lambda t: bool(_SITE.search(t))),
)
"""The category a line's own words show, for a line whose category from the model it
cannot hold: a person with a role, an amount, a system in use (a 1.5B model files
"Attendees: Jens Möller (Procurement Manager)" as other, "还有一套金蝶的老TMS" as other)."""


_HE_IS = re.compile(
    r"^(?:correction,?\s*)?(?:he|she)(?:'s| is) (?:actually )?(?:the |their )?(?:[A-Z]{2,4}\b|"
    r"head|director|vp|chief|manager|lead|owner)",
    re.I,
)


def refiled(category: str, line: Line) -> str | None:
    """The category a sorted line is kept under: the model's when the line can hold
    it, else the first the line's words show, else None (dropped). A line the model
    sorted as nothing is kept only when it names a person with a role ("Attendees:
    Hannah Lee (Dir. IT)", "correction, she's the CDO"), a channel someone prefers,
    our own dated next step, or a problem in words only a problem uses ("人工录入占了
    一半工时"): a 1.5B model often drops those, and no small talk looks like them."""
    text = spaced(fold(line.text))
    if category != "commitment" and _PROMISE.search(text) and fits("commitment", line):
        return "commitment"  # "I promised we'd set up a site visit" filed as other
    if category == "none":
        if _BUDGET_SAID.search(text) and not _MYSELF.search(text):
            return "budget"  # "更正：預算是 MOP 4,500,000，上次記錯了"
        if _OWE.search(text) and fits("commitment", line):
            return "commitment"  # "I'm sending our revised paper tomorrow"
        if _MYSELF.search(text):
            return None
        if _names_a_role(text) or (line.person and _HE_IS.search(text)):
            return "stakeholder"
        if _CHANNEL.search(text) and _PREFERS.search(text):
            return "contact_preference"
        return "pain_point" if _PAIN.search(text) else None
    if fits(category, line):
        return category
    if _EMPTY.search(line.text) or _MYSELF.search(line.text):
        return None
    if _RIVAL.search(text):
        return "competitor"
    if line.dated != line.text and _TIMEWORD.search(text) and category != "timeline":
        return "timeline"  # "四、時程：明年第二季完成選商" filed as a budget
    return next((c for c, shows in _FALLBACK if c != category and shows(text)), None)


_OWE = re.compile(
    r"^(?:i'?ll|i will|i'?m (?:sending|sharing|setting up|booking)|we'?ll|we will)\b|"
    r"^我(?:会|明天|下周|周)|^我们(?:要|会|得|需要|负责)",
    re.I,
)
"""The salesperson's own next step: a commitment, when it has a time."""
_BUDGET_SAID = re.compile(
    r"(?:\bbudget\b|预算)[^,，;；]{0,12}?(?:\d[\d,.]{2,}|\d+(?:\.\d+)?\s*(?:k|m|million|万|亿)|"
    r"[一二三四五六七八九十两百千]+万)",
    re.I,
)
"""A budget with its amount, in a line the model sorted as nothing (a correction of it)."""
_RIVAL = re.compile(r"\b(?:competitors?|rivals?|competing)\b|竞争者|竞品|对手", re.I)


_NAMED = frozenset({"stakeholder", "incumbent", "competitor", "contact_preference"})


def _names(text: str) -> set[str]:
    """The names a clause holds: people the rules' parser finds, and capitalised or
    upper-case Latin words past its first ("金蝶的老TMS", "Jens Möller")."""
    people = {p.name for p in find_people(fold(text))}
    words = re.findall(
        r"(?<![A-Za-z0-9.])(?:[A-Z][a-zà-ÿ]+|[A-Z][A-Z0-9]{1,})(?![A-Za-z0-9'’])", text
    )
    label = re.match(r"^[^:：]{1,30}[:：]", text)
    skip = set(re.findall(r"\w+", label.group(0))) if label else set()
    first = re.match(r"^\s*([A-Z][a-z]+)\b", text)
    skip |= {first.group(1)} if first and first.group(1).lower() in _STOPWORDS else set()
    words = [w for w in words if w not in skip and w.lower() not in _STOPWORDS]
    titled = set(_TITLED.findall(fold(text)))  # "吳總", "刘经理": a person by title
    return people | titled | {w for w in words if not _ROLE.fullmatch(w)}


_TITLED = re.compile(
    r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{1,2}?(?:总监|总|经理|主任|处长|院长|部长|科长|厂长|老师|工)(?![\u4e00-\u9fff]{0,1}(?:监|理))"
)


_STOPWORDS = frozenset(
    {"the", "a", "an", "and", "or", "but", "he", "she", "they", "we", "i", "it", "its", "his",
     "her", "their", "our", "this", "that", "also", "then", "so", "met", "spoke", "talked",
     "attendees", "present", "cc", "dir", "mr", "ms", "mrs", "dr"}
)  # fmt: skip
