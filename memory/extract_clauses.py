"""A note cut into clauses, and the sales category each clause speaks to.

Cuts at ";", " - ", ", and", " but ", "，", bullets, a comma before a new named subject
("Carol is champion, Ben is cautious"), and in dictated notes at the spaces of unpunctuated
Chinese or before each new subject of a comma-less English voice memo. A short "Label:"
prefix ("Must-haves: SSO, and data in EU", "Email from Raj (procurement):") is carried to
every clause after it; a heading label gives its items a category ("Current:" -> incumbent,
"竞品：" -> competitor), and list items under it are cut at their commas. Used by the
sales rules (``extract_sales``), which re-export ``split_clauses`` and ``categorise``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from memagent.memory.extract_account import BUDGET_STATUS, label_detail, said_detail
from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_calendar import ANY_DAY
from memagent.memory.extract_counts import counted
from memagent.memory.extract_cues import (
    BUDGET_WORDS,
    CUES,
    EVENT_RES,
    HEADING_SHORTHAND,
    HEADING_STEMS,
    LABEL_CATEGORY,
    LEADS,
    MORE_EVENTS,
    NOT_AHEAD,
    RIVAL_SOURCE,
)
from memagent.memory.extract_dated import dated_halves
from memagent.memory.extract_dates import find_dates
from memagent.memory.extract_entities import SURNAMES, competitor_name
from memagent.memory.extract_halves import CHANNEL
from memagent.memory.hanzi_fold import to_simplified

_CLAUSE_SPLIT = re.compile(
    r"\s*;\s*|；|\s+[-–—]\s+(?![$€£¥\d])|,\s+(?=(?:maybe|perhaps|possibly|probably|nothing confirmed|"
    r"not confirmed|tbd)\b)|,?\s+but\s+|，(?:但是?|不过|而且|另外|同时)?|,\s+(?:and\s+)?(?=(?:they|we|he|she|"
    r"i|it)\b)|\s+and\s+(?=(?:they|we|he|she|i|our|their|were|was|are|is|has|have|"
    r"had|will|needs?|wants?|prefers?)\b)|(?<=\))\s*,\s*|\n|"
    r",\s+(?=(?-i:(?!(?:It|This|That|There|Which|Who|She|He|They|We|I)\b)[A-Z][a-z]+) (?:is|was|seems|sounds|"
    r"looks|wants|prefers|hates|likes|said|says|thinks|is not|isn't)\b)"
    r"|,\s+(?=(?:(?:our|their|the) (?-i:[A-Z]{2,5}|[A-Z][a-z]+) )?"  # "…, our CFO Marcus Vogel signs off"
    r"(?-i:(?!(?:It|This|That|There|Which|Who|She|He|They|We|I)\b)[A-Z][a-z]+ [A-Z][a-z]+)"
    r"(?:\s*\([^()]{1,30}\))? (?:approves|decides|signs off|signs|makes the (?:final )?call|owns the decision)\b)",
    re.I,
)
# A space between two Chinese words ends a clause in a dictated, unpunctuated note
# ("绿源农牧 养猪的 存栏大概30万头 见了技术总监老杨"), but not after a department or title
# ("科技部 胡晓东", "IT总经理 郑宇": a person and their role).
_SPACED = re.compile(
    r"(?<=[\u4e00-\u9fff）])(?<![部处科室局组心监理任长总师])\s+(?=[\u4e00-\u9fff])"
    r"(?!(?:来|最终)?(?:拍板|说了算|签字)(?:$|[，。；,;]))"
)
"""... nor before the decision its person makes ("执行长 周凯 拍板")."""
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)、](?!\d)|[一二三四五六七八九十]+[、.])\s*")
_LABEL = re.compile(r"^(?P<label>[^:：\n]{2,30})[:：]\s*(?=\S)")
_HEADING = re.compile(r"[:：]\s*$")
_HEADER = re.compile(r"^(?:subject|from|to|cc|bcc|sent|主题|发件人|收件人|抄送)\s*[:：]", re.I)
_LEAD_IN = re.compile(
    r"^(?P<label>(?:e-?mail|message|note|notes|text|wechat|call|meeting|chat|forwarded|fwd)\s+(?:from|with)\s+"
    r"[^:：\n]{2,80}?)[:：]\s*(?=\S)",
    re.I,
)
"""A note's lead-in ("Email from Raj Mehta (procurement) at Bolt Motors: ..."): who it is
from, a label of what follows, not a clause of its own."""


@dataclass
class Clause:
    text: str
    label: str = ""
    dictated: bool = False
    """Cut from an unpunctuated note at its spaces: each piece stands alone."""


_SPOKEN_EN = re.compile(
    r"\s+(?:and\s+|but\s+|so\s+)?(?=(?:he's|she's|they've|they're|they|he|she|we|we'll|i'll|i|our|their|"
    r"budget|next step|next steps|not sure|deadline|timeline|competitor|decision)\b)",
    re.I,
)


_SPOKEN_ZH = re.compile(
    r"(?<![跟给和把对让帮与替向同将是])(?=他们|她们|[他她](?:比较|很|对|觉得|倾向|担心|关心|在意|不太|更|主要|希望|想要|要求|负责|基本|这几天|平时|一般))"
    r"|(?<![的是])(?=上个?月|上周|上次|要求(?!的)|有事(?:直接|就|请|可以|发|打|找)|我跟|["
    + SURNAMES
    + r"](?:总工|总|经理|主任|工)(?:让|倾向|希望|要求))"
    r"|(?<!他们)(?<!她们)(?=另外|此外|但是|不过|所以|因为|原因是|不然|否则|而且|同时|目前|现在|到时候|具体|还有|(?<![一二三四五六日天])(?:我答应|我先|我会|我承诺)"
    r"|然后|竞争对手|但说|(?:下个?|这个?|本)(?:周|星期|礼拜)[一二三四五六日天](?=我)|(?:明年|今年|下个?月)(?=.{0,6}(?:合同|到期|之前|前要|上线|启动))|经常(?=宕机|出错|卡|断|丢)|但(?=最后|还要|要等)|(?<!最后)拍板的?是|(?<=\w)最后(?:拍板|决定|定)"
    r"|预算|采购(?:那边|部|是)|(?:财务|法务|技术|IT|运维|信息部?)(?:那边|这边|这块|方面)(?:是|由)|["
    + SURNAMES
    + r"](?:总|经理|主任|工)说"
    r"|["
    + SURNAMES
    + r"][\u4e00-\u9fff]{1,2}(?:倾向|支持我们|反对|人挺好|人很好)|(?<=[0-9万元])["
    + SURNAMES
    + r"](?:总|经理|主任|工)(?:比较|很|也|一直)|哦对了|噢对了|最大的问题|最头疼的是"
    r"|(?:小|老)[" + SURNAMES + r"](?=以前|之前|说|觉得|比较|很|对|人))|(?<=说了算)(?=.)"
)


def _spoken(sentence: str) -> list[str]:
    """A long English sentence without a comma (a voice memo: "met with Tom at Delta he's
    the plant manager they've got 3 plants budget maybe 200k ...") cut before each new
    subject or topic word; a long Chinese one without punctuation ("刚从迅捷物流出来…他们在东莞
    和惠州有两个仓每天出库大概两万单现在用的是富勒的WMS…") before each new subject, topic
    or turn of the talk; any other sentence whole."""
    if len(re.findall(r"[\u4e00-\u9fff]", sentence)) >= 60 and not re.search(
        r"[,;，；、：:]", sentence
    ):
        pieces = [p.strip() for p in _SPOKEN_ZH.split(sentence) if p and p.strip()]
        return pieces if len(pieces) > 2 else [sentence]
    if len(sentence.split()) < 25 or re.search(r"[,;，；\u4e00-\u9fff]", sentence):
        return [sentence]
    pieces = [p.strip() for p in _SPOKEN_EN.split(sentence) if p and p.strip()]
    return pieces if len(pieces) > 2 else [sentence]


def dictated_pieces(sentence: str) -> list[str]:
    """A dictated, unpunctuated sentence cut at its spaces (Chinese) or before each new
    subject (English); any other sentence whole."""
    return [q for p in _SPACED.split(sentence) if p.strip() for q in _spoken(p)] or [sentence]


def split_clauses(sentence: str) -> list[Clause]:
    """A sentence (or bullet line) cut into clauses; a short "Label:" prefix is carried
    to every clause after it ("Must-haves: SSO, and data in EU")."""
    line = _BULLET.sub("", sentence)
    if _HEADING.search(line):
        return []  # "Requirements are as follows:" introduces, it says nothing
    if _HEADER.match(line):
        return []  # "Subject: RE: MES evaluation", "From: Linda": an e-mail's header
    label = ""
    m = _LEAD_IN.match(line) or _LABEL.match(line) or _dash_label(line)
    if m and not find_dates(m.group("label"), datetime(2000, 1, 1)):
        label, line = m.group("label").strip(), line[m.end() :]
    out: list[Clause] = []
    item = _ONE_ITEM.search(line.rstrip("。！？!? ")) and label_category(label) and len(line) <= 60
    if item:
        # "预算：港币250万，已获批", "竞品：纷享销客 报了260万": one item, its commas go on
        line = line.replace("，", _KEPT_COMMA)
    segments = [line] if item else dictated_pieces(line)
    for segment in segments:
        for part in _CLAUSE_SPLIT.split(segment):
            part = (part or "").strip(" ,.，。;；").replace(_KEPT_COMMA, "，")
            if len(part) >= 3 or (label and len(part) >= 2):  # "竞品：易保"
                out.extend(Clause(p, label, len(segments) > 1)
                           for q in _comma_parts(part, label) for p in dated_halves(q))  # fmt: skip
    return out


_ONE_ITEM = re.compile(r"^[^。！？!?]*[\u4e00-\u9fff][^。！？!?]*$")
"""A Chinese item of one sentence under a heading: its "，" do not end clauses."""
_KEPT_COMMA = "\ue000"


def _comma_parts(clause: str, label: str = "") -> list[str]:
    """An English clause cut at its commas when every piece says something on its own
    ("Budget is 1.2M for the rollout, decision by end of March"); "Sarah, our CFO, is
    the decision maker" stays whole. Under a list heading ("Competitors: Featurespace,
    also SAS maybe") every short item that names something is one clause ("Veeva,
    quoted way higher, ~4M RMB" stays whole)."""
    parts = [p.strip() for p in _outside_brackets(clause)]
    if len(parts) < 2 or re.search(r"[\u4e00-\u9fff]", clause):
        return [clause]
    if label_category(label) in ("competitor", "incumbent") and all(
            len(p.split()) <= 8 and p.count("(") == p.count(")")
            and re.match(r"(?:(?:also|and|plus|maybe)\s+)?[A-Z]", p) for p in parts):  # fmt: skip
        return parts
    ok = all(
        len(p.split()) >= 2
        and p.count("(") == p.count(")")
        and not _DEPENDENT.match(p)
        and categorise(p)
        for p in parts
    )
    return parts if ok else [clause]


def _outside_brackets(clause: str) -> list[str]:
    """``clause`` cut at the ", " that are not inside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(clause):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and clause.startswith(", ", i):
            parts.append(clause[start:i])
            start = i + 2
    return [*parts, clause[start:]]


_DEPENDENT = re.compile(
    r"(?:who|whom|whose|which|that|where|when|including|incl|e\.g|i\.e|or|than|because|since|not|"
    r"so|as|per|plus|with)\b|[~$€£¥\d(]",
    re.I,
)
"""A piece that leans on the one before it ("who quoted $410k", "~$30k more per year")."""


_RIVAL_WORDS = re.compile(
    r"\b(?:competitors?|competing|rivals?|incumbent bid|up against|lost (?:the deal )?to|"
    r"went with|bidding|undercut|cheaper than us|lower than ours|priced below us|"
    r"(?:below|under|cheaper than) our|also (?:evaluating|looking at|talking to)|switch(?:ing)? to|"
    + RIVAL_SOURCE
    + r"|pitching|in the (?:mix|running|picture)|is in there)\b|竞争对手|竞品|对手|在接触|选了|投标|"
    r"比我们低|比我们便宜|报价|报了|(?:也|都|还)在跟|也在谈|参与(?:投标|竞标)|也提交了方案|也报了|"
    r"(?<![没未])(?:对比|比较|考察|接触|评估|试用)过(?=[A-Za-z\u4e00-\u9fff])|(?:也|还)(?:看了|在看)|(?:更|比较)便宜",
    re.I,
)
_BID_WORDS = re.compile(
    r"\b(?:quoted?|quotes|bids?|evaluating|against|offered|pitch(?:ed|es)?|invited|"
    r"(?:they(?:'ve| have| had)?|also) (?:also )?(?:looked|looking) at|in (?:discussions?|talks) with|"
    r"(?:did|gave|ran) a demo|demoed|(?:has|have) been (?:calling|courting|pitching|chasing) them|"
    r"also in the (?:running|mix|race)|(?:is|are) also in(?= -|,|\.|$)|(?:had|got|saw) a demo from|gave (?:them|us) a demo)\b"
    r"|收到了?(?:招标)?邀请|方案",
    re.I,
)


_NONE_YET = re.compile(
    r"(?:没|未|不曾)[\u4e00-\u9fff]{0,3}(?:对比|比较|考察|接触|评估|试用)过|任何(?:厂商|供应商|对手|竞品)|"
    r"\b(?:haven'?t|have not|hasn'?t|not yet) (?:\w+ )?(?:looked at|talked to|evaluated) (?:any|anyone)",
    re.I,
)


def _rival_named(clause: str, has_amount: bool) -> bool:
    """A competitor clause needs a rival's word, a figure, or a named vendor that bids."""
    if _NONE_YET.search(clause):
        return False  # "还没正式接触过任何厂商", "haven't looked at anyone yet"
    if has_amount or _RIVAL_WORDS.search(clause):
        return True
    return bool(_BID_WORDS.search(clause)) and competitor_name(clause) is not None


_DASH_LABEL = re.compile(r"^(?P<label>[A-Za-z][A-Za-z./ ]{1,20}?)\s+(?:[-–—=]|->)\s+(?=\S)")


def _dash_label(line: str) -> re.Match[str] | None:
    """A heading set off by a dash or "=" ("competitor - Innovaccer", "comp = Rosen"), when
    it is one a note's headings use; "Fri - call Jo" is no heading. A budget or a date is
    read by its figure, so "Budget – Olivia said £4-5 a head, they have c. 6,000 staff"
    keeps its commas' clauses apart."""
    m = _DASH_LABEL.match(line)
    kind = label_category(m.group("label")) if m else None
    return m if kind not in (None, "profile", "budget", "timeline") else None


def label_category(label: str) -> str | None:
    """The category a note's heading gives its items ("Current" -> incumbent, "竞品" ->
    competitor, and their shorthand: "comp", "bdgt", "nxt", "curr. tools"; a Chinese
    heading by the head word it ends nearest: "合规要求", "竞争者", "决策时间"), or None for
    any other label."""
    bare = to_simplified(label.strip(" 【】[]*#").strip())  # "現行", "競品", "痛點"
    exact = next((name for name, p in LABEL_CATEGORY if p.match(bare)), None)
    if exact is not None:
        return exact
    if label_detail(bare) is not None:
        return "profile"  # "Industry: 3PL", "HQ: Basel", "付款条件：月结90天"
    short = bare.lower().rstrip(".:")
    first = (short.split(".")[0].split() or [""])[0]
    if short in HEADING_SHORTHAND or first in HEADING_SHORTHAND:
        return HEADING_SHORTHAND.get(short) or HEADING_SHORTHAND[first]
    if not re.search(r"[\u4e00-\u9fff]", bare) or len(bare) > 8:
        return None
    hits = [(m.end(), name) for name, p in HEADING_STEMS for m in p.finditer(bare)
            if m.start() <= 2 and re.fullmatch(r"(?:者|人|们|情况|方面|等|信息)?", bare[m.end():])]  # fmt: skip
    return max(hits)[1] if hits else None


_RUNS_COUNT = re.compile(
    r"\b(?:runs?|running|operates?)\s+(?:~|about |around |over |nearly )?\d|"
    r"\b(?:will|to|going to|'ll|gonna) run\b",  # "Kumar will run the technical eval": organise
    re.I,
)
"""'runs 300 stores': a count of what they operate, not a system they run on."""


def _ahead(clause: str) -> bool:
    """A dated event still to come, not a log of today's visit or the writer's own call
    ("Visit with Northwind today", "Prepping for my call tomorrow")."""
    dates = find_dates(clause, ANY_DAY)
    today = bool(dates) and all(NOT_AHEAD.search(d.surface) for d in dates)
    return not (NOT_AHEAD.search(clause) or today)


_BILLING = re.compile(
    r"\b(?:invoic\w*|billing|billed|payments?|pay(?:s|ing)?|net \d+|opex|capex|instal?l?ments?|"
    r"purchase orders?|credit cards?|wire transfers?|upfront)\b"
    r"|发票|發票|开票|開票|付款|账期|賬期|月结|月結|预付|預付|分期付|对公|對公|转账|轉賬",
    re.I,
)
"""Payment and billing terms: a "prefers" about them is a requirement on the deal, not a
contact preference."""

_MIXED = re.compile(r"(?<=[A-Za-z])(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])(?=[A-Za-z])")


_NO_PAIN = re.compile(
    r"(?:有|任何|具体|技术|商务|其他|其它)?问题(?:的话)?(?:可以|请|就|都|直接)?(?:找|联系|问|打给|发给|邮件|电话|微信)"
    r"|\b(?:questions?|issues?) (?:should )?go (?:to|through)\b|\bfor (?:any )?(?:questions|issues),? "
    r"(?:contact|call|email|reach|ask)\b|\b(?:i|we) (?:had|got) (?:it|that|this|the \w+) wrong\b|\bmy (?:mistake|bad)\b",
    re.I,
)
_RIVAL_LISTED = re.compile(
    r"(?:也|还|同样)(?:在|进了|进入|上了)?(?:我们的|他们的|客户的)?(?:短名单|候选名单|入围)"
    r"|(?<!我们)(?<!我方)(?<!我司)(?<!我)也(?:向我们|给我们|向我方|给客户)?(?:提交|递交|报)了(?:方案|报价)"
    r"|\b(?:also|too) (?:on|in) (?:the|their|our) (?:short-?list|final list)|\b(?:is|are|was|were) also shortlisted\b|\bthe other (?:shortlisted )?(?:vendor|bidder)",
    re.I,
)
_ONLY_PRONOUN_WANT = re.compile(
    r"^(?:and |but |so )?(?:they|he|she|the customer|the client)\s+(?:really\s+)?(?:wants?|needs?)\s+to\s+"
    r"(?:[a-z]+\s+){0,2}?(?:off|out|away|rid of|on|in)?\s*(?:it|them|that|this|there)?\s*(?:by then|soon|asap)?[\s.!]*$",
    re.I,
)


MEETING_CALL = re.compile(
    r"\b(?:reference|discovery|intro(?:ductory)?|kick-?off|demo|scoping|review|status|steering|"
    r"follow-?up|sales|qbr|pricing|negotiation|board|alignment|design|workshop)\s+calls?\b"
    r"|\b(?:on|during|in|after|before|at the end of) (?:the|a|our|that|this|yesterday's|today's) call\b"
    r"|\b(?:call|contact)[- ](?:summari[sz]ation|summar(?:y|ies)|recordings?|cent(?:er|re)s?|transcri\w+|"
    r"analytics|volumes?|routing|quality|logs?|handling|scripts?|flows?|queues?|deflection)\b"
    r"|\b(?:wants?|needs?|asked for|requested|set up|book(?:ed)?) an? (?:\d+[- ]?min(?:ute)?s? )?call with\b"
    r"|\b(?:said|mentioned|told you|posted|connected|messaged) (?:you |me )?on linkedin\b",
    re.I,
)
"""A call that is a meeting of the deal ("a reference call with another shipping line"), or
what a product does with calls ("AI call summarization", "contact center"): not the channel a
person wants to be reached by."""


PREFERS_VENDOR = re.compile(
    r"\bprefer\w* (?:us|our (?:system|product|solution|offer|platform|tool|approach|proposal)|"
    r"(?-i:[A-Z])\w+ over (?:us|ours|our)|(?-i:[A-Z])\w+ (?:because|since|as)\b(?! (?:it'?s|they'?re)"
    r" (?:faster|quicker|easier)))\b",
    re.I,
)
"""A preference for a vendor ("she personally prefers our system over ScaleAQ"): a stance."""


_REACH = re.compile(
    r"\b(?:hates?|can'?t stand|dislikes?|avoids?|never (?:answers|picks up))\b (?:the |his |her )?"
    r"(?:phone|calls?|e-?mails?|texts?|whatsapp|teams|voicemails?)\b"
    r"|\b(?:only|mostly) (?:in the office|available|reachable|around) (?:on|in the|before|after)\b"
    r"|\btext me\b|\bnever at (?:my|his|her) desk\b|\bkeep me in cc\b"
    r"|\b(?:route|send|direct) (?:all |any )?[\w -]{0,20}?(?:queries|questions|requests|correspondence)"
    r" (?:via|through|to)\b",
    re.I,
)
"""How a person can be reached, said as a dislike or an availability: a contact preference."""
_CURRENT = re.compile(
    r"(?:the |their |our )?(?:current|existing|legacy|old) (?:system|platform|vendor|provider|tool|crm"
    r"|erp|solution|setup|stack)s? (?:is|are)\b|(?:vendor )?(?:support|maintenance) (?:ends|expires|runs out)\b",
    re.I,
)
"""What they run today, or when its support ends, whatever a requirement word says beside it."""


def _no_channel(cue: re.Pattern[str], clause: str) -> bool:
    """The contact cue only names a meeting ("on the call before the demo") or the clause
    prefers a vendor ("prefers our system over ScaleAQ"): no channel to reach them by."""
    return not cue.search(MEETING_CALL.sub(" ", clause)) or bool(PREFERS_VENDOR.search(clause))


def categorise(clause: str) -> str | None:
    """The sales category a clause speaks to, or None when it holds nothing salient. An
    English cue word written against Chinese ("Competitor是金蝶", "Budget大概两百万") is
    read again with a space between the scripts."""
    if _REACH.search(clause):
        return "contact_preference"  # "she hates the phone", "only in the office on Tuesdays"
    if _CURRENT.match(clause):
        return "incumbent"  # "Current platform is Avaya on-prem", "support ends December"
    found = _category(clause)
    if found is None and _MIXED.search(clause):
        found = _category(_MIXED.sub(" ", clause))
    return found


_CONTACT_HOW = re.compile(
    r"prefer|only|can'?t stand|don'?t|hate|best|not to|never|asked|likes?|ignores?|fastest|"
    r"(?:after|before|until) \d|mornings?|afternoons?|evenings?|weekends?|keep|short|"
    r"directly|through|\bno\b|always|instead|better|rather|avoid|please|\bnot\b|"
    r"wants? (?:[\w-]+ ){0,3}(?:phone|calls?|e-?mails?|texts?|whatsapp|wechat|slack|teams|in person)|"
    r"希望.{0,6}(?:发邮件|打电话|发微信|邮件|微信|电话)|"
    r"\s(?:>|＞)\s|\bover (?:e-?mail|phone|calls?|texts?|slack|teams)\b|"
    r"习惯|只用|只接|只看|只回|抄送|当面|钟意|鍾意|别|不要|不怎么|就行|先|再|尽量|不喜欢|喜欢|直接|以后|都发|晚上|白天|上午|下午|周末|"
    r"最好|比.{0,4}好|"
    r"不接|偏好|反感|请用|用英文|用中文|英文|不爱|爱用|讨厌|受不了|"
    r"(?:要|得|请|只能?|最好|统一|(?:沟通|联系|联络|对接)(?:都|就)?)(?:用|发|打|走)(?:企业微信|微信|电话|邮件|短信|钉钉|飞书)",
    re.I,
)
"""What makes a named channel a preference: a wish, a dislike, a time or a rule."""


def _category(clause: str) -> str | None:
    clause = to_simplified(clause)  # "競爭對手有研華": Traditional reads as Simplified
    has_date = bool(find_dates(clause, ANY_DAY))
    amounts = parse_amounts(clause)
    if (amounts and BUDGET_WORDS.search(clause)) or (not amounts and BUDGET_STATUS.search(clause)):
        return "budget"  # a figure, or where the budget stands ("the budget was approved")
    for name, cue in CUES:
        if not cue.search(clause):
            continue
        if name == "incumbent" and (LEADS.search(clause) or _RUNS_COUNT.search(clause)):
            continue  # "Sarah runs the warehouse team": a person leading a team, not a system
        if name == "incumbent" and not re.search(
            r"(?<=.)(?<![A-Za-z0-9])[A-Z][\w+.]*[A-Za-z0-9]|[A-Z]{2,}|\b(?:excel|spreadsheets?|paper|in-house|"
            r"homegrown)\b|自研|自己写|自建|外包|纸质|[\u4e00-\u9fff]{2,}的"
            r"|用[\u4e00-\u9fff]{2,4}(?:做|来|管|记|处理|跑|存)",  # "现在用钉钉做家校沟通"
            clause,
        ):
            continue  # "uses" needs a product name
        if name == "contact_preference" and not _CONTACT_HOW.search(clause):
            continue  # a channel named, but no wish about it
        if name == "contact_preference" and _no_channel(cue, clause):
            continue  # "wants a reference call before signing", "prefers our system": no channel
        if name == "contact_preference" and _BILLING.search(clause) and not CHANNEL.search(clause):
            return "requirement"  # "prefers monthly invoices": how they pay, not how to reach them
        if name == "competitor" and re.match(
            r"\s*我(?:这|们)?(?:周|先|会|再|明天|下周|月底)", clause
        ):
            continue  # "我这周末前先给魏磊一个预算报价": our quote, a commitment
        if name == "deal_stage" and _RIVAL_LISTED.search(clause):
            return "competitor"  # "HubSpot也在短名单里": a rival, not our stage
        if name == "pain_point" and _NO_PAIN.search(clause):
            continue  # "有问题邮件联系我", "I had it wrong": who to ask, a correction
        if name == "requirement" and _ONLY_PRONOUN_WANT.match(clause):
            continue  # "they want to move off it": the object is elsewhere
        if name == "commitment" and not (has_date or re.search(r"next step|下一步", clause, re.I)):
            continue
        if name == "competitor" and not _rival_named(clause, bool(amounts)):
            continue  # "Appreciate the offer!" names no rival, no bid and no figure
        return name
    if said_detail(clause) is not None:
        return "profile"  # "They're HQ'd in Hartford", "they pay net 45", "月结90天"
    if has_date and any(p.search(clause) for _, p in EVENT_RES):
        return "timeline"
    if has_date and MORE_EVENTS.search(clause) and _ahead(clause):
        return "timeline"
    if amounts:
        return "amount"
    if counted(clause):
        return "count"
    return None
