"""People and their roles in sales notes (English and Chinese).

"Sandra Okafor (VP Operations)", "CFO Alan Pierce", "the CFO, Mark Delaney",
"Karen Liu, Procurement Lead", "Li Wei is the CTO", "采购总监许静", "王建国主任",
"周敏（教务处处长）", "采购负责人是王芳". Names are matched by shape (capitalised words in
English, a common surname plus one or two characters in Chinese); roles by title words.
Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memagent.memory.extract_calendar import DAYS, MONTHS
from memagent.memory.extract_titles import function_moved
from memagent.memory.hanzi_fold import to_simplified, to_traditional

_TITLE_EN = (
    r"(?:(?:group |chief |senior |deputy |regional |global |sr\.? |ops |it |hr )?"
    r"(?:c[efotims]o|ciso|cmio|cnio|chro|cdo|cao|cco|cno|cro|cmo|cpo|gc|md|fd|gm(?: of [A-Z][A-Za-z&\- ]{1,25})?|general manager|vp(?: of)?(?: [A-Z]?[a-z]+){0,2}|svp|evp|president|"
    r"vice president(?: of [A-Za-z ]{2,25})?|"
    r"(?:director|dir\.|head|hd\.?|manager|mgr|lead|chair|officer)(?: of [A-Za-z&\- ]{2,30})?|"
    r"(?:[A-Za-z][A-Za-z&/.-]* ){0,2}(?:director|manager|mgr|leader|lead|head|officer|architect|engineer|"
    r"controller|counsel|buyer|analyst|administrator|owner|founder|dean|principal|chair|partner|superintendent|"
    r"treasurer|provost|chancellor|commissioner)"
    r"|general counsel|controller|owner|founder|dean(?: of [A-Za-z ]{2,25})?|procurement))"
)
TITLE_EN = _TITLE_EN
_WORD_EN = r"[A-ZÀ-ÖØ-Þ](?:[a-zß-öø-ÿ]+|['’][A-Z])[a-zß-öø-ÿ'’]*(?:-[A-ZÀ-ÖØ-Þ]?[a-zß-öø-ÿ]+)*"
"""A capitalised name word: "Möller", "O'Brien", "D’Souza", "Al-Mansouri", "Jean-Luc"."""
_NEXT_EN = (
    r"(?: (?:(?:de|van|von|der|den|da|di|du|del|della|la|le|bin|al|ter|dos|das) ){0,2}"
    + _WORD_EN
    + ")"
)
"""A further name word, after any particles ("Marieke de Vries", "Elsa van Wyk")."""
_NAME_EN = r"(?:(?:Dr|Mr|Ms|Mrs)\.? " + _WORD_EN + _NEXT_EN + r"{0,2}|" + _WORD_EN + _NEXT_EN + r"{1,2})"  # fmt: skip
_NOT_NAMES = {"Next", "Budget", "Met", "Call", "Email", "Also", "Update", "Their", "The", "Our",
              "We", "They", "Must", "Core", "Deal", "Target", "Visit", "Note", "Thanks"}  # fmt: skip

_EN_PATTERNS = [
    # "Tom Becker, he's their head of supply chain", "Gregory Hale he's the CIO"
    re.compile(r"(?P<name>" + _NAME_EN + r"),?\s+(?:he|she)(?:'s|’s| is)\s+(?:the |their |our |its )?(?:new )?(?P<role>(?i:" + _TITLE_EN + r"))\b"),
    # "Rachel Stone, she runs procurement": the function a person heads
    re.compile(r"(?P<name>" + _NAME_EN + r"),?\s+(?:(?:who|he|she)\s+)?(?P<role>(?:runs|heads|leads|manages|owns)\s+(?:the |their |all )?(?:[A-Za-z&-]+ ){0,2}?(?:procurement|purchasing|IT|it|finance|operations|ops|security|engineering|logistics|supply chain|marketing|sales|HR|legal|compliance|facilities|the budget)\b)"),
    # "the CTO is a guy called Felix Grant"
    re.compile(r"\b(?P<role>(?i:" + _TITLE_EN + r"))\s+(?:is|was)\s+(?:a (?:guy|man|woman|lady|person|gentleman)|someone)\s+(?:called|named)\s+(?P<name>" + _NAME_EN + r")"),
    # "Birgit Lang (Head of IT – sceptical, worried about the ERP link)": the role, then a stance
    re.compile(r"(?P<name>" + _NAME_EN + r")\s*\((?P<role>(?:[^)]{0,25}\b)?(?i:" + _TITLE_EN + r")[^)]{0,60})\)"),
    re.compile(r"(?P<name>" + _NAME_EN + r")(?:,\s+|\s+(?=the\s))(?:(?:the|their|our|its) )?(?P<role>(?i:" + _TITLE_EN + r"))\b"),
    re.compile(r"\b(?P<role>(?i:" + _TITLE_EN + r"))\s+(?:is|was|will be)\s+(?P<name>" + _NAME_EN + r")"),
    re.compile(r"\b(?P<role>(?i:" + _TITLE_EN + r")),?\s+(?P<name>" + _NAME_EN + r")"),
    re.compile(r"(?P<name>" + _NAME_EN + r")\s+from\s+(?:the |their )?(?P<role>(?:IT|[Ss]ecurity|[Ff]inance|[Pp]rocurement|[Ll]egal|[Oo]perations|[Ee]ngineering|[Ss]ales|[Mm]arketing|HR|[Pp]urchasing)(?: (?!(?:is|was|are|has|and|says?|said|wants?|will|thinks?|asked|prefers?)\b)[A-Za-z]+){0,2})"),
    re.compile(r"(?P<name>" + _NAME_EN + r")\s+(?:is|was|as)\s+(?:actually |now |really |in fact )?(?:the |their |our |its )?(?:new )?(?P<role>(?i:" + _TITLE_EN + r"))\b"),
    re.compile(r"(?P<name>\b[A-Z][a-z]{2,})\s*\((?:their|the|our|his|her) (?P<role>(?i:" + _TITLE_EN + r"))\)"),
    # "Primary Contact: Priya Lal – Director of Assets", "Ana Ruiz - CFO": a dash before the role (last: "Acme - Head of IT, Jo Lee" names Jo Lee)
    re.compile(r"(?P<name>" + _NAME_EN + r")\s+[–—-]\s+(?P<role>(?i:" + _TITLE_EN + r"))\b"),
]  # fmt: skip

SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任"
    "沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
    "葛柯温俞庞樊殷施洪童祝翟倪骆焦岳伍聂耿苗霍裴邢缪凌阎滕饶萧赖詹颜翁卓阮麦庄巫邝"
    "柏鲍冉祁靳晏佟揭粟苟姬邬闵喻褚臧卜乔屈易"
    "常关车尚谷章鲁毕艾梅管宁辛席桂蓝郎游甘欧季练古左牛涂景符钮"
)
_ZH_TITLES = (
    r"(?:首席[\u4e00-\u9fff]{2,4}官|[A-Z]{2,4}|(?:vp|svp|evp|avp|cto|ceo|cfo|cio|coo|cmo|cso|cpo|ciso"
    r"|cdo|gm)(?![a-z])|总经理|副总经理|副总裁|总裁|副总|董事长|总监|副院长|院长|行长|"
    r"主任|部长|处长|科长|经理|负责人|对接人|联系人|主管|厂长|局长|校长|老板娘|老板|"
    r"财务长|执行长|营运长|技术长|资讯长|架构师|发起人|合伙人|特助|助理|协理|副理|襄理|课长)"
)
COMPOUND_SURNAMES = (
    "欧阳|歐陽|司马|司馬|诸葛|諸葛|上官|皇甫|慕容|令狐|夏侯|司徒|公孙|公孫|宇文|尉迟|端木|南宫"
)
"""Two-character surnames ("信息部总监欧阳明")."""
_ZH_NAME = (
    r"(?:(?:"
    + COMPOUND_SURNAMES
    + r")[\u4e00-\u9fff]{1,2}|["
    + SURNAMES
    + r"][\u4e00-\u9fff](?:(?!下(?:周|个|午|礼拜|星期|半年)|上(?:周|个|午|礼拜|星期|半年)|[今明昨后]天)[\u4e00-\u9fff])?)"
)
"""A Chinese name: a surname and one or two characters, the second never the start of a
time word ("她老板郑总下周出差" names 郑总, not 郑总下)."""
_ZH_LATIN_NAME = (
    r"(?:(?:Khun|Tan Sri|Dato'?|Datuk|Pak|Bu|Mr\.?|Ms\.?|Mrs\.?|Dr\.?) )?"
    r"[A-Z][a-z]+(?: (?:bin |binti |van |de )?[A-Z][a-z]+){1,2}"
)
"""A foreign full name inside Chinese text ("CEO是Khun Somchai", "Priya Nair是COO"): a
capital, lower-case letters, and at least two words (a product is rarely two such words)."""
_ZH_DEPT = r"(?:处|部|科|中心|室|局|组)"
_ZH_DEPT_NAME = r"[\u4e00-\u9fffA-Z]{1,6}" + _ZH_DEPT
_ZH_PATTERNS = [
    # "信息科的周主任周志强": a department, a familiar title and the full name after it
    re.compile(r"(?P<role>" + _ZH_DEPT_NAME + r")的?(?P<s>[" + SURNAMES + r"])(?P<title>主任|总监|经理|处长|部长|科长|院长|厂长|总)(?P<name>(?P=s)[\u4e00-\u9fff]{1,2}?)(?=[，。、；,\s]|说|$)"),
    # "张敏，数字化中心总监，态度积极": a name and its role set off by commas
    re.compile(r"(?:^|(?<=[：:\s，,、]))(?P<name>" + _ZH_NAME + r")[，,、]\s*(?P<role>[\u4e00-\u9fffA-Za-z]{0,10}?" + _ZH_TITLES + r")(?=[，。、；,;）)]|$)"),
    # "运维总监是他下面的冯涛": a role, then who holds it after a short modifier
    re.compile(r"(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")是[\u4e00-\u9fff]{1,6}(?<![处部科心室局组])的(?P<name>" + _ZH_NAME + r")(?<![总任长理监])(?=[，。、；,]|$)"),
    # "对接人是小谭谭佳明": a familiar name, then the full one with the same surname
    re.compile(r"(?P<role>对接人|联系人|负责人|[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")(?:是|为)?(?:小|老)(?P<s>[" + SURNAMES + r"])[ \u3000]?(?P<name>(?P=s)[\u4e00-\u9fff]{1,2}?)(?=[，。、；,\s（(]|$)"),
    # "技术总监老杨（杨文斌）": a familiar name and the full one in brackets
    re.compile(r"(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")(?:老|小)[" + SURNAMES + r"][（(](?P<name>" + _ZH_NAME + r")[）)]"),
    re.compile(r"(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")(?:姓[" + SURNAMES + r"])?[，,\s]*叫(?P<name>" + _ZH_NAME + r")"),
    re.compile(r"(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")(?P<name>(?:老|小)(?P<s>[" + SURNAMES + r"]))(?![\u4e00-\u9fff]?[（(])(?![ \u3000]?(?P=s))(?=[\u4e00-\u9fff，,。；;\s]|$)"),
    re.compile(r"(?P<name>(?:小|老)[" + SURNAMES + r"]|[" + SURNAMES + r"](?:总|工|经理|主任|姐|哥)|" + _ZH_NAME
               + r")是(?:他们的|我们的|对方的)?(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")"),
    re.compile(r"(?P<role>对接人|联系人|负责人)是(?P<name>(?:小|老)[" + SURNAMES + r"])"),
    re.compile(r"(?P<role>[\u4e00-\u9fff]{2,6}(?:处|部|科|中心|室|局))的?(?P<name>[" + SURNAMES + r"](?:总|主任|处长|经理|部长|院长|工))"),
    re.compile(r"(?P<name>" + _ZH_NAME + r")[（(](?P<role>[^）)]{0,12}(?:" + _ZH_TITLES + r"|" + _ZH_DEPT + r")[^）)]{0,6})[）)]"),
    re.compile(r"(?P<role>" + _ZH_DEPT_NAME + r")的?(?P<name>" + _ZH_NAME + r")(?P<title>" + _ZH_TITLES + r")"),
    re.compile(r"(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")(?:是|为)(?:他们的|他们|我们的)?(?P<name>" + _ZH_NAME + r")(?![\u4e00-\u9fff]{0,0}[主总经部处])"),
    re.compile(r"(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")(?:是|为)(?:他们的|他们|我们的)?\s?(?P<name>" + _ZH_LATIN_NAME + r")(?=\s?[，。、；,;（(]|$)"),
    re.compile(r"(?:^|(?<=[：:，,。；\s]))(?P<name>" + _ZH_LATIN_NAME + r")\s?是(?:他们的|我们的|对方的)?(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")"),
    # "Lily 黄丽丽 财务经理，日常对接": a name, a space, then the role
    re.compile(r"(?:(?<=[：:；;，,\s])|^)(?:[A-Z][a-z]+\s?)?(?P<name>" + _ZH_NAME + r")[ \u3000]+(?![和与及跟、])(?P<role>[\u4e00-\u9fff]{0,4}?" + _ZH_TITLES + r")(?=[，,。；;（(\s]|$)"),
    # "技术长（CTO）陈磊": the title's English short form may stand between it and the name
    re.compile(r"(?P<role>[\u4e00-\u9fffA-Za-z]{0,8}?" + _ZH_TITLES + r")(?:[（(][A-Za-z]{2,6}[）)])?[ \u3000]?(?P<name>" + _ZH_NAME + r")"),
    re.compile(r"(?P<name>" + _ZH_NAME + r")(?P<role>" + _ZH_TITLES + r")"),
    # "参会：…、采购 王磊": a function before the name, set off by a space in a list
    re.compile(r"(?:^|(?<=[：:、，,\s]))(?P<role>采购|财务|法务|IT|技术|运维|信息化?|质量|生产|人事|行政|研发|市场|销售|运营|供应链|[\u4e00-\u9fff]{1,5}(?:部|科|处|室|中心))[ \u3000]+(?P<name>" + _ZH_NAME + r")(?=[、，,。；;（(]|$)"),
    # "采购那边是孙丽负责": a function, then who is in charge of it
    re.compile(r"(?P<role>采购|财务|法务|IT|技术|运维|信息化?|质量|生产|人事|行政|研发|市场|运营|供应链|[\u4e00-\u9fff]{1,4}(?:部|科|处|室|中心))(?:那边|这边|这块|方面)?(?:是|由)(?P<name>" + _ZH_NAME + r")(?=来?负责|[，,。；;]|$)"),
    re.compile(r"(?<![我双对各甲乙])(?P<name>[" + SURNAMES + r"][\u4e00-\u9fff]{1,2}?)(?:只|主要|专门|现在|目前)?(?P<role>(?:负责|分管|主管)(?:这次|本次|此次|这个|整个|该)?(?:[A-Za-z]{2,8}\s?(?:系统|项目|选型|评估|审批|实施|推进|落地|对接|这块)?|(?:采购|财务|技术|信息化?|运维|项目|销售|市场|行政|人事|法务|生产|质量|安全|数据|系统|网络|研发|运营|客服|供应链|物流|仓储|电商)(?:部|工作|这块|对接|选型|评估|审批|实施|推进|落地)?|选型|评估|审批|落地)(?=[，。、；,]|$))"),
]  # fmt: skip
_ZH_NAME_TAIL = re.compile(
    r"[说是的和跟在也等对很来要让称表讲已就都还只聊谈最负不没别她他它会把被给又向比从做去带陪约找问]$"
)
_NOT_ZH_NAME = re.compile(
    r"周[末一二三四五六日天内]|万一|高层|董事|方案|金额|程序|钱[少多]|于是|林业|温度|温和|焦点|施工|凌晨|祝福|庞大|"
    r"童装|岳阳|洪水|方[面向式法便]|"
    # words that start with a surname of the longer list
    r"常[务规用见年态驻委]|管[理副道控辖线]|关[系注于键联心闭]|符合|车[型间辆载队]|尚[未且]|谷歌|章程|毕竟|"
    r"宁[可愿]|辛苦|席位|蓝[图牙]|游[戏客]|欧[洲元美]|季[度节]|练习|左右|景[区点]|古[典代老]|涂[料装层]"
)
_ZH_TITLE_ONLY = re.compile(_ZH_TITLES)
_NUM_CHARS = set("0123456789零一二三四五六七八九十百千两来几多")
"""Words that start like a surname but are not a name."""
_VERB_AFTER_NAME = {"支持", "负责", "认为", "觉得", "希望", "表示", "提出", "要求", "反对", "同意",
                    "喜欢", "习惯", "倾向", "担心", "主导", "牵头", "管理", "不想", "不太", "很看",
                    "发来", "发了", "发给", "约了", "打电", "问了", "聊了", "拍板", "签字", "签了",
                    "通了", "通过", "说了", "在用", "刚发", "刚才", "刚刚"}  # fmt: skip
"""Words whose first character a three-character name match may have swallowed."""
_ZH_DEPT_ONLY = re.compile(
    r"(?P<role>(?:(?![和与及的是了在说])[\u4e00-\u9fffA-Z]){1,6}?"
    + _ZH_DEPT
    + r")的(?P<name>"
    + _ZH_NAME
    + r")(?=[，。、；和与]|$)"
)
_ZH_ROLE_TRIM = re.compile(
    r"^(?:的|是|见了|见咗|和|跟|与|及|还有|拜访了?|今天|今朝|今日|昨天|他们|我们|对方|客户|对接人是|说|，|但是?|而且?|并且?|不过|另外|最终要|最后要|要|由)+"
)


_SYSTEMS = {"ERP", "CRM", "MES", "WMS", "TMS", "OA", "HIS", "LIS", "PACS", "SAP", "API", "SSO", "POC",
            "BI", "SCM", "PLM", "HR", "HRM", "EHR", "APP", "SAAS", "IOT"}  # fmt: skip


@dataclass(frozen=True)
class Person:
    name: str
    role: str
    start: int
    end: int


_VERB_ROLE = re.compile(r"(?:will|would|can|could|to|should|must|may|might|shall)\b", re.I)
"""A "role" that is a verb phrase ("Wei Ling Tan, will lead the evaluation")."""


_UNIT_WORDS = re.compile(
    r"\b(?:Operations|Ops|Services|Onboarding|Engineering|Finance|Marketing|Sales|Procurement|"
    r"Purchasing|Infrastructure|Technology|Compliance|Assets|Quality|Logistics|Development|"
    r"Management|Support|Security|Strategy|Transformation|Department|Division|Team)$"
    # the account itself ("Al Noor Contracting", "Brightline Logistics Group"): no person
    r"|\b(?:Contracting|Construction|Holdings|Group|Industries|Manufacturing|Logistics|Solutions"
    r"|Systems|Technologies|Capital|Partners|Hospital|University|Bank|Insurance|Mining|Foods"
    r"|Trading|Shipping|Airlines|Motors|Pharma|Retail|Energy|Corp|Corporation|Company|Inc|Ltd|LLC|GmbH)$"
)
"""The last word of a business unit ("Client Onboarding Operations"): a role's, not a name's."""


def _ok_en(name: str) -> bool:
    first = name.split()[0].rstrip(".")
    return first not in _NOT_NAMES and not _UNIT_WORDS.search(name)


def _clean_en(name: str) -> str:
    """ "Met Sandra Okafor" -> "Sandra Okafor" (a capitalised word that is no name)."""
    words = name.split()
    while len(words) > 2 and words[0].rstrip(".") in _NOT_NAMES:
        words = words[1:]
    return " ".join(words)


def find_people(text: str) -> list[Person]:
    """Named people with a role, in text order, not overlapping."""
    out: list[Person] = []
    taken: list[tuple[int, int]] = []
    for p in _EN_PATTERNS + _ZH_PATTERNS + [_ZH_DEPT_ONLY]:
        for m in p.finditer(text):
            name, role = m.group("name").strip(), m.group("role").strip(" ,，")
            if "title" in p.groupindex:
                role += m.group("title")
            if any(m.start() < e and m.end() > s for s, e in taken):
                continue
            if p in _EN_PATTERNS:
                name = _clean_en(name)
                role = re.sub(
                    r"^(?:(?:s|the|their|our|its|her|his|my|your|and|with|met|from|to|by|currently|now|also|"
                    r"acting|interim)\s+)+",
                    "",
                    role,
                    flags=re.I,
                )
                if not _ok_en(name) or not re.search(r"[A-Za-z]", role) or _VERB_ROLE.match(role):
                    continue
                name, role = function_moved(name, role, text[m.end() :])
            else:
                role = re.sub(r"(?<=[处部科室局组心])的(?=[\u4e00-\u9fff])", "", role)  # 中心的经理
                role = _ZH_ROLE_TRIM.sub(
                    "", re.split(r"[的是但要]|一个|一位|新来了?|对方|那边|这边|他们|她们", role)[-1]
                )
                if (
                    name[0] == "万"
                    and text[max(0, m.start("name") - 1) : m.start("name")] in _NUM_CHARS
                ):
                    continue  # "三百来万闫经理说": ten thousand, then Manager Yan, no Mr Wan
                if _NOT_ZH_NAME.match(name):
                    continue  # "黄经理周末不接电话": 周末 is a weekend, not Mr Zhou
                if len(name) == 2 and name[1] in "说讲称问是的":
                    continue  # "周主任说院长…": 任 ends a title and 说 is a verb, no Mr Ren
                if _ZH_TITLE_ONLY.fullmatch(name[-1] + m.group("role")):
                    continue  # "张执行长": Mr Zhang the CEO (执行长), not 张执 the 行长
                name = _ZH_NAME_TAIL.sub("", name) if len(name) > 2 else name
                if len(name) == 3 and text[m.end() - 1 : m.end() + 1] in _VERB_AFTER_NAME:
                    name = name[:2]  # "高洁支持我们": 高洁 + 支持, not 高洁支
                if (
                    len(name) == 3
                    and name[2] == name[0]
                    and text[m.end("name") :].startswith(name[1])
                ):
                    name = name[:2]  # "经理杨帆杨帆说": 杨帆 said twice, not 杨帆杨
                if not role or role.endswith(name) or role.upper() in _SYSTEMS:
                    continue  # "对接金蝶ERP": a product and its kind, not a person and title
            offset = max(0, m.group(0).find(role)) if p not in _EN_PATTERNS else 0
            out.append(Person(name, role, m.start() + offset, m.end()))
            taken.append((m.start(), m.end()))
    return sorted(out, key=lambda x: x.start)


OTHER_PARTY = re.compile(
    r"^(?:但是?|不过|可是|but |while )?(?:财务|采购|法务|信息部|技术部|董事会|总部|集团|管理层|领导层|"
    r"(?:the )?(?:finance|procurement|legal|board|security team|it team|headquarters|hq)\b)"
    r"(?:部门?|那边|这边|方面|团队)?(?![部门那边这方面团队]*的)",
    re.I,
)
"""A clause whose subject is a party, not a person ("但财务还在犹豫", "procurement is
still skeptical"): it is not the stance of the person named before it."""

_EN_NAME_ONLY = re.compile(_NAME_EN)
_ZH_HONORIFIC = re.compile(
    r"(?:"
    + COMPOUND_SURNAMES
    + r"|["
    + SURNAMES
    + to_traditional(SURNAMES)
    + r"])(?:总|總|工|主任|处长|處長|经理|經理|部长|部長|院长|院長|厂长|廠長|科长|科長|行长|行長|"
    r"校长|校長|主管|总监|總監|老师|老師|局)"
)  # "马总", "吳總", "蔡經理"


def last_person(text: str, known: Sequence[str] = ()) -> str | None:
    """The last person named in ``text`` (a full name or "王总"/"钱主任"), for clauses
    that refer back to them ("she prefers email", "他不怎么看微信"); a first name said later
    of someone named in full here or among ``known`` counts as naming them again."""
    people = find_people(text)
    best = people[-1].name if people else None
    pos = people[-1].start if people else -1
    if best is None:
        for m in _EN_NAME_ONLY.finditer(text):
            if _ok_en(m.group(0)) and not _ORG.search(
                f"{text[max(0, m.start() - 5) : m.start()]}{m.group(0)}{_next_word(text, m.end())}"
            ):
                best, pos = _clean_en(m.group(0)), m.start()
    for m in _ZH_HONORIFIC.finditer(text):
        if m.start() > pos:
            best, pos = m.group(0), m.start()
    for name in dict.fromkeys([*(p.name for p in people), *known]):
        # "… the CTO, Raj Patel, is neutral; pricing to Dana by August. She …"
        if re.fullmatch(r"[A-Z][\w'-]+(?: [A-Z][\w'-]+)+", name) and name != best:
            first = re.escape(name.split()[0])  # "it's Tom Hagen, not Tim": not named again
            for m in re.finditer(rf"(?<!not )(?<!n't )(?<!never )\b{first}\b", text[pos + 1 :]):
                best, pos = name, pos + 1 + m.start()
    return best


_ORG = re.compile(
    r"(?:\b(?:from|at) [A-Z]\S*(?: \S+)*$)|\b(?:Logistics|Pharma|Health(?:care)?|Group|Bank|Ltd|Inc|"
    r"Systems|Solutions|Holdings|Corp(?:oration)?|Mutual|Foods|Retail|Energy|Payments|Mobile|Airlines|Insurance|"
    r"Technologies|Tech|Software|Labs|Partners|Capital|Industries|Components|Steel(?:works)?|Motors|"
    r"Hospital|University|College|Council|Authority|Services|Networks|Telecom|Media|Chemicals|GmbH|AG|LLC|PLC|"
    r"Hospitality|Hotels?|Act|Law|Regulation|Directive|Standard|Protection)$"
)
"""A capitalised run that names an organisation, not a person ("from Straits Harbour Logistics"),
or a law ("the Kenya Data Protection Act")."""


def _next_word(text: str, end: int) -> str:
    """The capitalised word right after ``end`` (" Act" of "Kenya Data Protection Act")."""
    nxt = re.match(r" [A-Z][a-z]+\b", text[end:])
    return nxt.group(0) if nxt else ""


_NOT_VENDOR = {"They", "We", "Our", "Their", "The", "Rival", "Competitor", "Competitors", "It", "He",
              "She", "That", "This", "Price", "Pricing", "Budget", "Quote", "USD", "EUR", "RMB",
              "CNY", "GBP", "HKD", "SGD", "JPY", "AED", "TWD", "AUD", "CAD", "INR", "US", "NOK", "SEK",
              "DKK", "CHF", "PLN", "NZD", "MXN", "BRL", "ZAR", "KRW", "CZK", "SAR", "THB", "MYR",
              "Email", "Call", "Meeting", "Note", "Notes", *(m.capitalize() for m in MONTHS),
              *(d.capitalize() for d in DAYS)}  # fmt: skip


_OPENERS = {"Also", "And", "But", "So", "Now", "Then", "Plus", "However", "Apparently", "Currently",
            "Today", "Yesterday", "Only", "Even", "Maybe", "Probably", "Oh", "Ok", "Well", "Btw", "If"}  # fmt: skip


def competitor_name(clause: str) -> str | None:
    """The vendor a competitor clause names ("quoted by Digiwin", "他们选了石基")."""
    name = re.search(
        r"(?<=.)(?<![A-Za-z0-9])([A-Z][A-Za-zÀ-ÖØ-öø-ÿ0-9_&]+(?: [A-Z][A-Za-zÀ-ÖØ-öø-ÿ0-9_&]+)?)(?![A-Za-zÀ-ÖØ-öø-ÿ0-9_])",
        clause,
    )
    if name and name.group(1) not in _NOT_VENDOR:
        head = re.fullmatch(r"([A-Z][\w&]+) ", clause[: name.start()])
        if head and head.group(1) not in _NOT_VENDOR | _OPENERS and " " not in name.group(1):
            return f"{head.group(1)} {name.group(1)}"  # "Siemens Mobility (Railigent) offered"
        return name.group(1)
    # "NetDocuments也在谈": a Latin name right before Chinese, not before what a person says
    lead = re.match(
        r"([A-Z][A-Za-z0-9_&.-]+)(?=[\u4e00-\u9fff])(?!说|讲|觉得|认为|表示|提到|希望|想|称|问|是)",
        clause,
    )
    if lead and lead.group(1) not in _NOT_VENDOR:
        return lead.group(1)
    first = re.match(r"([A-Z][\w&]+(?: [A-Z][\w&]+)?)(?:\s*\([^)]{1,30}\))?\s+(?:quoted|pitched|dropped|came|offered|sent|bid|is|was|has|cut|lowered|raised|at|@|did|demoed|will)\b",
                     clause)  # fmt: skip
    if first and first.group(1).split()[0] not in _NOT_VENDOR:
        return first.group(1)
    zh = re.search(r"(?:选了|输给了?|对手(?:是|有)|竞品(?:是|有)?|竞争对手(?:是|有)?|中标(?:的|方)(?:是|为)|"
                   r"(?i:competitors?|rivals?)\s*(?:是|有))"
                   r"([\u4e00-\u9fff]{2,4}?)(?:报价|报了|那边|的|，|。|$)"
                   r"|((?:(?![和与及跟也都])[\u4e00-\u9fff]){2,4})(?:报价|那边|已经报|报了|在接触|"
                   r"(?:的人)?(?:上周|昨天|之前|也|都)*(?:来了|来过|收到)"
                   r"|也(?:向我们|给我们|向我方)?(?:提交|递交)了?(?:方案|报价)|也(?:在接触|在谈|报了))",
                   to_simplified(clause))  # fmt: skip
    # "競爭對手有研華": read folded (one character for one), named as written
    group = (1 if zh.group(1) else 2) if zh else 0
    vendor = clause[zh.start(group) : zh.end(group)] if zh else None
    if vendor and len(vendor) > 3 and vendor.startswith(("另外", "还有", "而且", "同时")):
        vendor = vendor[2:]  # "另外中控也在接触"
    if vendor and re.search(r"^(?:说|讲|称|听说|据说)|他们|她们|我们|对方|的$", vendor):
        return None  # "Kevin说他们报价…": who said it, not a vendor
    return None if vendor in _NOT_ZH_VENDOR else vendor


_NOT_ZH_VENDOR = {"他们", "我们", "对方", "客户", "听说", "据说", "那边", "人家", "他们那", "对面"}


_PRONOUN_ROLE = re.compile(
    r"(?:^|[,;:.，；：]\s*)(?:he|she)(?:'s|’s| is)\s+(?:actually |now |really |in fact )?(?:the |their |our |its )?(?:new )?"
    r"(?P<role>(?i:" + _TITLE_EN + r"))\b(?!\s+(?:of|at|for)\s+(?-i:[A-Z]))"
    r"|(?:^|[，；：。]\s*)(?:他|她)(?:其实|现在)?是(?:他们的?|对方的?)?(?P<zrole>[\u4e00-\u9fffA-Za-z]{0,8}?"
    + _ZH_TITLES
    + r")(?=[，。；,]|$)",
    re.I,
)


def pronoun_role(text: str, person: str | None) -> Person | None:
    """ "Correction, she's the CDO, not CTO" / "她其实是财务总监": the role of the person the
    conversation is about, said with a pronoun."""
    m = _PRONOUN_ROLE.search(text)
    if person is None or m is None:
        return None
    role = (m.group("role") or m.group("zrole")).strip()
    return Person(person, role, m.start(), m.end())


def known_names(text: str) -> list[str]:
    """Full names of the people a text names with a role ("Li Wei", "陈刚"), so a later
    clause that names them without their title is about them."""
    return [
        p.name
        for p in find_people(text)
        if " " in p.name or (re.search(r"[\u4e00-\u9fff]", p.name) and len(p.name) >= 2)
    ]


_INTRODUCED = re.compile(
    r"\b(?i:from|with|met|meet|called|call w/|spoke to|talked to|heard from|cc(?:'d)?|by|per)\s+"
    r"(?P<name>" + _WORD_EN + r" " + _WORD_EN + r")(?![\w'’-]| [A-Z][a-z])"
)


def introduced_names(text: str) -> list[str]:
    """Full names a note introduces without a role ("Got this from Sarah Kim at ...",
    "call with Omar Haddad"), so a later "Sarah is Head of Treasury" is about Sarah Kim;
    an organisation's name ("from Meridian Bank") is none."""
    return [
        n
        for m in _INTRODUCED.finditer(text)
        if _ok_en(n := m.group("name")) and not _ORG.search(n) and n.split()[0] not in _NOT_LONE
    ]


_NOT_LONE = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
             "January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December", "Q1", "Team", "Legal", "Finance"}  # fmt: skip


def full_name(clause: str, names: list[str]) -> str | None:
    """ "Zhou just wants..." -> "Zhou Lin" when the note named Zhou Lin before."""
    for name in names:
        if name in clause:
            return None
        parts = [w for w in name.replace("Dr. ", "").split() if len(w) > 2]
        if any(re.search(r"\b" + re.escape(w) + r"\b", clause) for w in parts):
            return name
    return None
