"""The sales rules' vocabulary: which words make a clause a stakeholder's stance, a
budget, a deal stage, a competitor, a commitment, a contact preference, a requirement,
a pain point, the incumbent system or the company's profile, and which events a date
belongs to (English and Chinese). Data tables of compiled patterns, no logic, read by
``memagent.memory.extract_sales``; they grow when a phrasing is found missing."""

from __future__ import annotations

import re

RIVAL_SOURCE = r"quote from|(?:proposal|offer) from (?=(?-i:[A-Z]))|bid from|(?<=\w )sent (?:us |them )?an? (?:offer|quote|bid)|(?<=[\w)] )offered (?:us |them )?(?:[A-Z]{3} ?|[$€£¥])(?=\d)|(?:the )?other (?:shortlisted )?(?:vendor|bidder|supplier)|shortlisted vendor|(?<=\w )pitched (?:us|them)\b"
SELF_NOTE = re.compile(
    r"\b(?:don'?t (?:record|note|save|write down)|do not (?:record|note|save)|"
    r"off the record|thinking out loud|nothing from them|not from (?:them|the customer)|"
    r"(?:just|only|purely) (?:small talk|chit-?chat|personal|hypothetical))\b"
    r"|别记|不要记|不用记|先不记|先自己琢磨|不用记录|别记录|纯属闲聊|只是闲聊|随便聊聊|纯属假设",
    re.I,
)
"""The user says the message is not about the customer or must not be kept."""


def self_note(text: str) -> bool:
    """The user says not to keep this message, or that it is not about the customer. A
    cue that says what a channel or a thing may be used for is a fact about the customer,
    not about the message ("微信只能随便聊聊": WeChat is for small talk only)."""
    return any(not _USE_OF.search(text[: m.start()]) for m in SELF_NOTE.finditer(text))


_USE_OF = re.compile(r"(?:只能|只用来|只拿来|用来|仅限于?|仅用于|只用于|可以)\s*$")
"""A modal of use right before a self-note cue: the clause says what something is for."""


OUR_SIDE = re.compile(
    r"\b(?:(?:reminder|note) to (?:self|myself)|my (?:q[1-4] |quarterly |annual )?(?:quota|target|commission)|"
    r"our company'?s|our (?:new )?(?:office|hq|headquarters) in|we (?:normally|usually|typically|always) "
    r"(?:do|offer|give|charge|sell)|our (?:standard|usual|normal) (?:terms|price|pricing|discount|policy)|"
    r"our new [\w -]{2,25}? (?:goes live|go live|launch(?:es)?|ships|is live)|"
    r"our (?:own )?(?:\S+ ){0,5}?(?:quota|sales target|list price|price list|margins?|commission))\b"
    r"|我(?:这个季度|本季度|今年)?的(?:业绩|指标|任务|提成)|给我的(?:目标|指标|任务|考核)|我们(?:的)?(?:目录价|标准价|底价|报价单价)|我们公司(?:的|新)|我们(?:一般|通常|平时)(?:给|做|是)",
    re.I,
)
"""A clause about the salesperson's own side (their quota, our company's office, our
usual terms), not about the customer."""


CUES: list[tuple[str, re.Pattern[str]]] = [
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
        r"went dark|gone (?:dark|quiet)|no decision|still (?:mulling|thinking it over)|no response (?:since|for)|"
        r"budget (?:was )?(?:cut|frozen|pulled)|"
        r"final (?:two|three|round|stage)|down to (?:two|three|the last)|stuck in \w+|"
        r"narrowed (?:the field|it|the list|their list)(?: down)?|(?:renewal|deal|account) (?:is )?at risk|"
        r"moved (?:in)?to (?:procurement|legal|contracting|negotiation|security review|the next stage)|"
        r"rfp\b.{0,60}\b(?:released|issued|published|went out|is out)|"
        r"signed (?:the |an |our )?(?:loi|letter of intent|contract|order form|po|msa|sow|nda)|"
        r"issued (?:a |the |us a )?po|awarded|proposal (?:went out|is out|was sent|sent)|sent (?:the|our|them the) proposal|"
        r"submitted (?:the |our )?(?:proposal|bid|quote)|waiting (?:for|on) (?:their |the |board |a )?"
        r"(?:feedback|approval|decision|sign-?off|answer|budget))\b"
        r"|商务谈判|谈判阶段|谈判中|进入[\u4e00-\u9fff]{2,6}阶段|(?:在|处于|到了|还在)[A-Za-z\u4e00-\u9fff]{1,8}阶段|"
        r"走(?:采购|审批|招标|合同)?流程|等[\u4e00-\u9fff]{0,6}(?:审批|反馈|回复|决定|批准)|已经?提交|提交了|中标通知|定了我们|选了我们|卡在|审批中|评估中|谈价格|进入第二轮|最后一轮|没消息了|黄了|丢了|输了|落选|"
        r"未中标|中标了|赢了|搁置|暂停|(?:一直|还在|总)说?再考虑|没回音|没下文|石沉大海|"
        r"签了合同|签了(?=[！!。，]|$)|已签约|入围|短名单|有流失风险|续约有风险|进入(?:采购|招标|商务)", re.I)),
    ("contact_preference", re.compile(
        r"\b(?:prefers?|preferred|only reads|only answers|email only|by email|via email|"
        r"only takes (?:meetings|calls) on|"
        r"can'?t stand|don'?t call|do not call|no calls|hates? (?:phone|calls|email|teams|zoom)|"
        r"reach (?:him|her|them)|best (?:way|time) to|contact (?:him|her|them)|text (?:him|her)|"
        r"(?:a )?texts?|texting|whatsapp|signal|wechat|linkedin|slack|e-?mails?|phone calls?|calls?|"
        r"in writing|in person|face[- ]to[- ]face|invites?|assistant|cold calls?|voicemail|calling|"
        r"(?:reach|call|ping|message|contact) [A-Z][a-z]+|responds?|replies|answers (?:on|by|via))\b"
        r"|(?-i:\bLINE\b)|\b(?:telegram|kakao ?talk|viber|imessage|zalo|ms teams|microsoft teams)\b"
        r"|(?<![A-Za-z])(?:[A-Za-z]+|微信|电话|邮件|短信|钉钉|飞书)\s*(?:>|＞)\s*(?:[A-Za-z]+|微信|电话|邮件|短信)"
        r"|微信|电话|手机|邮件|邮箱|电邮|短信|只看(?:英文|中文)|钉钉|飞书|企业微信沟通|沟通|联系|联络|书面往来|书面沟通|抄送|当面|面谈|上门|"
        r"只接(?:受)?(?=\s*(?:[A-Za-z]|电话|微信|短信|当面|面谈|视频))|(?:鍾意|钟意|喜欢)用\s*[A-Za-z]|偏好[\u4e00-\u9fff]{0,4}(?:开会|见面|沟通|联系)|找他|找她|发消息|视频会|线下|见面|回消息", re.I)),
    ("competitor", re.compile(
        r"\b(?:competitors?|competing|rival|incumbent bid|quoted|" + RIVAL_SOURCE + r"|bids? (?:at|of)|"
        r"also (?:evaluating|looking at|talking to)|evaluating|up against|against [A-Z]|also in the (?:running|mix|race)|(?:is|are) also in(?= -|,|\.|$)|"
        r"(?:had|got|saw) a demo from|gave (?:them|us) a demo|liked their (?:pitch|demo|proposal)|offered \d+% (?:below|under|off)|undercut\w*|"
        r"(?:their|a|the|new|revised|lower|higher|cheaper) (?:quote|bid|offer|price)|quotes?)\b"
        r"|\b(?:cheaper than us|undercut|lower than ours|priced below us|came in (?:at|below|under|lower|cheaper)|"
        r"(?:below|under|cheaper than) our (?:price|quote|bid)|lost (?:the deal )?to|went with [A-Z]|"
        r"(?:are|is|also) bidding|switch(?:ing)? to [A-Z]|pitching|in the (?:mix|running|picture)|is in there|"
        r"(?:also )?talking to [A-Z]|in (?:discussions?|talks) with (?=(?-i:[A-Z]))|"
        r"(?:will|would|might|may|going to|plan to) (?:definitely |probably |likely |also )?bid|"
        r"(?:did|gave|ran) a demo for them|demoed (?:for |to )?them|"
        r"(?:has|have) been (?:calling|courting|pitching|chasing) them)\b|\b(?:they(?:'ve| have| had)?|also) (?:also )?(?:looked|looking) at (?=(?-i:[A-Z]))"
        r"|竞争对手|竞品|对手|(?<!我们)(?<!我方)(?<!我司)(?<!现在)(?<!目前)(?<!现有)(?<!原来)报价(?!基础|单|表)|报了|报过(?:一轮|价)|在接触|选了|投标|比我们低|比我们便宜|(?:也|都|还)在跟|也在谈|"
        r"参与(?:投标|竞标)|(?<!我们)(?<!我方)(?<!我司)(?<!我)也(?:向我们|给我们|向我方|给客户)?提交了(?:方案|报价)|也报了|(?<![没未])(?:对比|比较|考察|接触|评估|试用)过(?=[A-Za-z\u4e00-\u9fff])|(?:也|还)(?:看了|在看)|"
        r"(?:更|比较|比我们)便宜|"
        r"\bpitch(?:ed|es)? (?:them|to them|their)\b|(?<!\bwe )(?<!\bI )\bpitched\b(?=[^.;]{0,30}\b(?:at|for) ?(?:[$€£¥]|usd|eur|gbp|rmb|cny)? ?\d)|(?-i:\b(?!We\b|They\b|Our\b|I\b)[A-Z]\w+) bid (?:[$€£¥]|usd|eur)? ?\d|\b(?:were|was|got|have been|has been) invited\b|"
        r"收到了?(?:招标)?邀请|(?:也|都)来(?:了|过)?.{0,4}(?:给了?|讲了?|介绍了?|演示了?|报了?)(?:个|一个|一版)?方案", re.I)),
    ("commitment", re.compile(
        r"\b(?:next steps?|i(?:'ll| will)|we(?:'ll| will)|i send|we send|we owe|i owe|owe them|"
        r"promised|committed|(?<!from )our side|on us|will send|will share|will provide|will call|"
        r"to send|to deliver|follow[- ]up|i'?d|we'?d|agreed (?:to|that)|action items?|"
        r"(?:is|are) to (?:send|share|review|prepare|draft|schedule|set up)|will (?:review|prepare|draft|schedule|set up)|"
        r"reviews? (?:it|the \w+) by|owes? (?:us|them)|"
        r"our (?:se|ae|csm|team|engineers?|pm|presales|solutions? (?:engineer|architect)|consultants?)\b[\w ]{0,15}?\bwill)\b"
        r"|约好|说好|安排|答应|承诺|(?:^|[，,\s])我(?:们)?(?:会|来|再|先)?(?:发|给|送|做|准备|整理|提供|约|安排|去|过去)|"
        r"(?:^|[，,\s])我(?:们)?[^，。,]{1,8}?(?:发|送|准备|整理|提供|(?:先|会|要|再)给)(?:一[个份套])?|我们负责|我们的?(?:售前|团队|工程师|技术|项目经理|顾问)|我们需|我们要|我们去|我们会|给出|下一步|他们负责|发过来|发给|提交|搞定", re.I)),
    ("requirement", re.compile(
        r"\b(?:must(?:-haves?)?|needs?(?! more time)|required?|requires|requirements?|mandatory|has to|have to|"
        r"non[- ]negotiable|insists?|wants?|deal[- ]breaker|should support|support for|^(?:they(?:'re| are) )?looking for|^looking at (?-i:[a-z])\w*|"
        r"integrat\w*|sso|single sign[- ]on|on[- ]prem\w*|data (?:stays?|must|residency|hosted))\b"
        r"|\b(?:goal is|objective is|aim(?:s|ing)? to|target is to|want(?:s)? to (?:cut|reduce|get|bring))\b"
        r"|要能|得能|需能|需要能|能够支持|要支持|必须能|^要(?=[A-Za-z]|[\u4e00-\u9fff]{0,6}(?:和|与|及|功能|系统|模块|平台|定位|监控|管理|对接|集成|认证|部署))"
        r"|目标是|目标|指标是|要做到|必须|需要|需支持|要求|一定要|想要|希望|想把|得支持|打通|(?<!日常)对接(?!人|的)|集成(?!商)|私有化|国产化|信创|"
        r"(?:数据|系统|服务器)(?:不能|不得|不可以)|不能出境|境内|要满足|须(?:通过|满足|支持|存储|部署|符合)|不得使用|"
        r"(?:网络|内网|外网)不能|不能连|想做|(?<![不没])(?<!不太)(?<!不怎么)(?:想|要|打算|准备|计划)(?:上|建|搞|换成|换掉|换|做)(?:一[套个])?|要把[\u4e00-\u9fff]{1,8}(?:也)?加进|离线运行", re.I)),
    ("pain_point", re.compile(
        r"\b(?:pain(?: point)?s?|problems?|issues?|hates?|frustrat\w*|complain\w*|slow|"
        r"expensive|too costly|late|outages?|downtime|crash\w*|manual(?:ly)?|takes? (?:them )?"
        r"(?:\d+|two|three|several)|costs? them|fines?|penalt\w*|unhappy|struggl\w*|end[- ]of[- ]life)\b"
        r"|\b(?:nightmare|painful|headaches?|bottlenecks?|broken|clunky|error-prone|too slow|"
        r"outdated|legacy)\b"
        r"|\b(?:(?:main|biggest|key|big) (?:concern|worry|complaint|challenge|issue)|worr(?:y|ied|ies) about|"
        r"concerned about|errors?|mistakes|delays?|backlogs?|churn|losing|takes? (?:forever|ages|too long)|"
        r"too (?:expensive|slow|complex|complicated)|hard to|can'?t (?:see|track|get)|no visibility|"
        r"inaccurate|out of sync|duplicate data|spreadsheets? hell|still (?:tracks?|does|do|runs?|manages?|keeps?) (?:\w+ )?(?:in|on|via) (?:excel|spreadsheets?)|data entry|waste\w*|keep (?:missing|losing|failing)|"
        r"missing|wrong|spends? (?:half|hours|days|most)|can'?t (?:scale|keep up)|on paper|(?:scrap|defect|error|failure|no-show|churn) rates?|"
        r"killing (?:them|us)|near[- ]miss(?:es)?|got burn(?:ed|t)|no (?:[\w-]+ )?support|goes (?:off|down) every|could be automated|"
        r"pays? too much|(?:pay|cost)s? (?:so |too )?much|loses?|lost|neglect\w*|drowning in|"
        r"clipboards?|paper[- ]based|wait times?|long waits?|(?:price|cost|costs|spend) (?:jumped|spiked|doubled)|"
        r"(?:jumped|spiked|up) (?:~|about )?\d+%)\b"
        r"|痛点|问题|宕机|故障|投诉|嫌|太贵|太重|很慢|罚款|老化|要等[^，。]{0,6}(?:以上|多)|一团糟|报废|停止维护|不好用|麻烦|头疼|损失|卡顿|落后|"
        r"担心|顾虑|(?<!说)不准|出错|延误|效率(?:很)?低|耗时|抱怨|难用|跟不上|对不上|看不到|靠人工|手工|手动|手写|纸质|(?<![不只])全靠(?=[\u4e00-\u9fffA-Za-z]{0,8}(?:手|人|纸|Excel|excel|表格|邮件|微信|电话|记录))|靠(?=Excel|excel|表格)|发错|错单|退货|太老|用不了|不方便|经常出|老出|"
        r"散在|没法|流失|没人(?:做|管|跟)|重复(?:挂号|下单|录入)|只有(?:百分之)?[\d一二三四五六七八九十]+%?|"
        r"延迟|浪费|被罚|罚了|不好用|不通|太慢|(?:经常|老是|总是|动不动就)(?:卡|崩|死机|掉线|宕)|"
        r"崩了|崩溃|爆仓|错误率|出错率|差错率|看不过来|忙不过来|顾不过来|(?:跟|和)[\u4e00-\u9fff]{1,4}吵|扯皮|"
        r"少赚|丢单|坏了|误报|漏报|没及时|不及时|要对账|排查要|(?:要|得|多)花[\u4e00-\u9fff\d]{1,3}(?:天|周|个月|小时)", re.I)),
    ("profile", re.compile(
        r"\b(?:hq|headquarter(?:s|ed)|based in|offices? in|plants? in|sites? in|located in|factory in|"
        r"restructur\w*|reorgani[sz]\w*|merg(?:er|ing) with|acquired by|layoffs?|fiscal year (?:starts|begins|ends)|"
        r"capex|opex)\b"
        r"|\b(?:suppl(?:y|ies) (?:parts|components|(?-i:[A-Z]))|supplier (?:to|for)|customers include|sells? to (?-i:[A-Z]))"
        r"|总部|工厂在|位于|分布在|工厂设在|重组|被收购|合并|裁员|财年|会计年度|一笔预算|还有预算|供货|配套商|年营收|营收", re.I)),
    ("incumbent", re.compile(
        r"\b(?:use|uses|using|used|run|runs|running|(?:they'?re|are|is|still|currently) on|"
        r"core (?:system )?is|erp is|crm is|system is|live in|lives in|outsourced|"
        r"(?:current|existing) (?:system|vendor|provider|tool|crm|erp|platform|setup|stack|solution|tooling)|switch(?:ing)? from|"
        r"replace|replacing|migrat\w* (?:from|off|away from)|moving (?:off|away from)|switch\w* (?:off|away from)|"
        r"(?:current|existing|legacy|old) (?:system|vendor|provider|tool|crm|erp|platform|solution) is|"
        r"(?:tracked|managed|done|kept|handled|stored|tracking|managing) (?:in|on|with|via)|"
        r"incumbent (?:is|was|system|vendor)|(?:our|the|their) incumbent|remains? (?:on|with)|"
        r"(?:their|the|current|tech) stack (?:is|includes)|(?:communities|sites|stores|hospitals|clinics|plants) on|"
        r"(?:core banking|billing|ticketing|payroll|accounting|hr|ehr|emr|lims|wms|tms|pms|ats|dms|lms|phone|telephony|"
        r"scheduling|inventory|pos)(?: system| platform| tool| software)? (?:is|runs on)|outgr[eo]w\w*|"
        r"(?:is|are) (?:already )?in[- ]house\b|rip(?:ping)? out|rip and replace|sunsett?ing|on (?=(?-i:[A-Z]))\S+(?: (?-i:[A-Z0-9])\S*){0,2} today)\b"
        r"|(?<![能可够])用的(?!人|同事|员工|客户|部门|科室)|一直用|现用|incumbent\s*(?:是|为)|(?:现在|目前|当前|一直)(?:他们|客户|我们)?(?:还)?(?:在)?用|(?:ERP|CRM|WMS|MES|OA|HR|HIS|财务系统|业务系统|系统|平台)(?:用的)?是"
        r"|用的是|现在用|目前用|在用|现有|(?:设备|系统|软件|硬件)(?:用的)?是[A-Za-z\u4e00-\u9fff]{2,8}的(?=[，。,]|$)|外包|用紧|用緊|现行|現行|[为是]自研|[为是]自建|"
        r"(?<![要想需得会可能来再去我])(?<!我们)(?<!咱们)用(?:的)?\s*(?=[A-Za-z][A-Za-z0-9]|\d+[A-Za-z]{2}|自研|自建)|系统(?:就)?是|换掉|(?:数据|系统|业务)(?:都)?(?:在|放在)"
        r"[A-Za-z\u4e00-\u9fff]{2,12}(?:里|上)", re.I)),
]  # fmt: skip


EVENTS = [
    ("workshop", r"workshop|研讨会"), ("demo", r"(?<![A-Za-z])demo|演示"),
    ("poc", r"(?<![A-Za-z])poc(?![A-Za-z])|试点|测试"),
    ("pilot", r"\bpilot"), ("proposal", r"proposal|方案"), ("pricing", r"pric(?:e|ing)|报价|quote"),
    ("contract_end", r"contract\b.{0,30}\b(?:ends|ended|expires|runs out|is up|up for renewal|renews|renewing)|renewal|到期|expir"),
    ("tender_release", r"(?:tender|\brfp\b)\b.{0,20}\b(?:publish|release|issue|go(?:es)? out|out on)|(?:招标|标书|招标文件|采购公告)[\u4e00-\u9fff]{0,6}(?:挂网|发布|公示|发出|出)|挂网|出招标文件"),
    ("tender_close", r"(?:tender|\brfp\b|bid)s?\b.{0,20}\b(?:due|deadline|close|closes|submission)|(?:submission|bid) deadline|投标截止|截标|开标|递交投标|交标"),
    ("tender", r"tender|\brfp\b|招标|投标"), ("signing", r"\bsign|signature|签约|签合同|签字|签署|前签|要签|合同"),
    ("go_live", r"go[- ]live|\blive\b|launch|上线"), ("rollout", r"roll-?out|推广"),
    ("decision", r"decision|decide|select(?:ing)? a vendor|vendor selection|决定|定下来|拍板|立项|"
     r"确定供应商|选定|定供应商"), ("close", r"\bclose\b|成交"),
    ("kickoff", r"kick-?off|启动"), ("meeting", r"meeting|会议|开会|院办会"),
    ("questionnaire", r"questionnaire|问卷"), ("reference", r"reference|参考客户"),
    ("budget_cycle", r"budget cycle|预算周期"), ("freeze", r"freeze|冻结"),
    ("procurement", r"procure|purchas|采购"), ("restart", r"\brestart|\bresume|重启|恢复"),
    ("evaluation", r"\beval(?:uation)?\b|评估|选型"),
    ("production", r"(?<![A-Za-z])sop(?![A-Za-z])|start of production|\bcut-?over\b|投产|量产|跑通"),
    ("construction", r"topping out|\bbuilding (?:done|complete)|封顶|竣工|完工"),
    ("delivery", r"\bdeliver(?:y|ed)? (?:of|on|by)\b|\bon[- ]site by\b|交付|交货|到货|进场|发货|到场"),
    ("installation", r"\binstall(?:ation|ed)? (?:by|of|done|complete)|安装完|装完|安装"),
]  # fmt: skip
EVENT_RES = [(name, re.compile(p, re.I)) for name, p in EVENTS]
MORE_EVENTS = re.compile(
    r"\breview\b|deep[- ]dive|\bboard\b|\bvote|\bvisit|on-?site|presentation|\bpresent\b|\bcall\b|"
    r"\baudit|评审|审核会|董事会|院务会|上会|党委会|拜访|见面|现场|实地|汇报|讲标|通话|电话会|审计|验收",
    re.I,
)
"""Other events a dated clause may be about ("security review call Oct 27", "board votes
the second Tuesday of January", "12月中旬做现场POC", "下周四约了第一次见面"): the clause is
a date to keep, keyed by its content."""
NOT_AHEAD = re.compile(
    r"^(?:today|tonight|yesterday|今天|今晚|昨天)$|\bmy\b|^prep|\blast\b|\bago\b|上周|上个月|去年|前天|昨天",
    re.I,
)


BUDGET_WORDS = re.compile(
    r"\bbudget(?:ed)?\b|预算|总投资|资金|经费|拨款|专款|投入|\bspend\b|\bset aside\b|\bearmarked\b|"
    r"\ballocated\b|\bsanctioned\b|\b(?:this|next|the) fiscal\b|\bfunding\b|\bfunds?\b|\bcan (?:spend|afford)\b|\bcan (?:only )?(?:do|go to|stretch to)\b|\bwilling to (?:spend|pay)\b|"
    r"\bceiling\b|\bcap(?:ped)? (?:at|of)\b|\bapproved\b|\bfinance (?:confirmed|signed off|cleared|released)\b|能花|愿意花|最多(?:能)?(?:给|出|花)|上限|批下来|的钱|"
    r"项目金额|合同金额|合同额|投资规模|投资额|立项金额|"
    r"\b(?:clawed back|cut|trimmed|slashed|reduced|increased|raised|bumped)\b[^.;]{0,40}\bit'?s now\b",
    re.I,
)


FILLERS = r"oh|ah|um+|hmm+|ok|okay|and"
"""Words a spoken correction may open with ("Oh wait, correction: …", "ok, actually …"),
skipped before the correction's own opening word."""


COUNT = re.compile(
    r"(?:~|about |around |约|大概)?(?P<n>\d[\d,]*)\s*(?:\+\s*|多|余)?(?:(?:名|个|家|位|台|辆)[\u4e00-\u9fff]{0,3}?)?\s*(?P<noun>"
    r"trucks?|stores?|hotels?|sites?|plants?|branches|seats?|users?|licen[cs]es|employees|staff|warehouses|"
    r"factories|offices|outlets|restaurants|beds|students|patients|orders|shipments|订单|单|仓库|分公司|床位|学生|患者|"
    r"reps|agents|drivers|vehicles|properties|locations|clinics|schools|store mgrs|managers|"
    r"communities|facilities|hospitals|pharmacies|branches|dealers|distributors|"
    r"诊所|坐席|座席|药房|分店|门诊|社区|"
    r"门店|工人|员工|用户|账号|席位|司机|车辆|酒店|网点|工厂|医院|学校|人)",
    re.I,
)


COUNT_AFTER = re.compile(
    r"(?P<noun>坐席|座席|员工|用户|门店|席位|账号|终端|车辆|司机)(?:规模|数量|总数|数)?(?:是|为)?(?:约|大概|大约|有|达|在)?"
    r"(?P<n>\d[\d,]*)"
)
"""A Chinese count that names the thing first ("坐席规模约300个")."""


SUBJECTLESS = re.compile(
    r"^\s*(?:she|he|her|his|him|pls|please|only|prefers?|hates?|can'?t|don'?t|"
    r"wants?|says?|said|pretty|very|neutral|skeptical|worried|concerned|furious|kinda|openly|"
    r"她(?!们)|他(?!们)|人很好|打电话|发邮件|只用|别|不要|习惯|喜欢|对价格|态度|主要|担心|比较|非常|很(?!多))",
    re.I,
)


STANCE = re.compile(
    r"\b(?:champion|sponsor|advocate|supporter|pushing for us|pushed (?:hard )?(?:internally|for us)|"
    r"s[ck]eptic\w*|neutral|blocker|detractor|on the fence|on our side|likes us|fan of|(?:biggest|big|huge|real) fan\b|"
    r"retir\w*|leaving|left the company|takes over|decision[- ]maker|makes? the (?:call|decision)|"
    r"signs?(?: off)?|signed off|approv(?:es?|er)|decides?|final (?:say|word)|last word|cadillac|economic buyer|"
    r"supportive|supports us|on board|in (?:our )?favou?r|against (?:us|it|the|cloud|moving|switching|change)|"
    r"opposed|opposes|resist\w*|cautious|wary|hesitant|reluctant|doubtful|not convinced|unconvinced|"
    r"keen|enthusiastic|excited|positive about|negative about|push(?:es|ing)? back|pushback|"
    r"(?:lov(?:es?|ed)|lik(?:es?|ed)|prefer(?:s|red)?) (?:us|our|the competitor|them|the product|the demo|it)|"
    r"\w+ contact (?:is|was)|contact (?:person|point) (?:is|was)|leans? (?:toward|towards)|blocking|"
    r"own(?:s)? the decision|satisfied|happy with (?:us|our|the)|impressed|"
    r"gatekeeper|influencer|pro-(?-i:[A-Z])\w+|pushing for (?:it|this|the (?:project|deal|change))|key contact|main contact|point of contact|our contact|owns? the (?:budget|project|relationship)|"
    r"worried|concerned|dragging (?:his|her|their) feet|furious|angry|upset|bought[- ]in|"
    r"(?:lov(?:es?|ed)|lik(?:es?|ed)) (?:the|our) [\w-]+|(?:keeps? )?push(?:es|ing)? (?:back )?on (?:price|pricing|cost|terms|discount)|"
    r"price[- ]sensitive|"
    r"(?:pushing|pushes|wants) to switch|(?:actually|really|genuinely) (?:likes?|loves?|prefers?) [A-Z]\w+|"
    r"project owner|owns the project|final approval|final decision|lukewarm|"
    r"(?:is|seems|was|sounds|looks|stays|remains) (?:very |quite |rather |pretty |fairly |somewhat |mildly "
    r"|strongly |cautiously |now )?(?:positive|negative)|(?:cool|cold|warm(?:ing)?(?: up)?) "
    r"(?:on|to|towards?) (?:us|the idea|it|our)|not a fan|hostile|friendly|an ally|our ally|unenthusiastic)\b"
    r"|支持(?!(?!我|咱)(?:\s*[A-Za-z]|.{0,6}(?:协议|格式|接口|对接|导入|导出|扫码|识别|设备|功能|中文|英文|离线|在线|移动端|手机|平板|多语言|多币种)))|内线|中立|反对|力推|看好|认可|觉得我们|更看重|敏感|说了算|拍板|签字|授权|审批|否过|离职|退休|接任|决策|"
    r"满意|不满|认同|欣赏|保守|谨慎|犹豫|积极|热情|不感冒|倾向|不看好|有顾虑|抵触|站在我们这边|[持有]保留|[很最]?挺我们|很配合|不配合|偏向|对接人|联系人|牵头|主导|(?<![我们])负责(?:这个|这次|本次|此次|整个)?[A-Za-z\u4e00-\u9fff]{0,6}?(?:项目|选型|评估|招标)|(?:就是|是|由)[她他]负责|"
    r"看重|只负责推荐|不是(?:最终)?决策人|调走|不再负责|不再是|要(?:她|他)签|都要[\u4e00-\u9fff]{1,3}签|挺认可|"
    r"冷淡|冷漠|不冷不热|友好|担心|顾虑|不太感冒|很感兴趣|有兴趣|感兴趣|没表态|未表态|不表态|观望|没点头|点头了|"
    r"是粉丝|头号粉丝|最大的?支持者|不置可否|失望|印象(?:不错|很好|挺好|一般|不好|很差|较差)|有意见|有看法"
    r"|很重视|非常重视|不重视|最关心|比较关心|很关心|更关心|很在意|比较在意|态度|强势|压价|砍价|难缠|好说话|话语权|说了不算|定标|迷信",
    re.I,
)


DECIDES = re.compile(
    r"\b(?:is|will be) (?:the )?(?:final )?decision[- ]maker|\b(?:make|makes|will make)(?: the| every)?"
    r" (?:final )?(?:call|decision|purchase decision)|\bha(?:s|ve) the (?:final|last) (?:say|word)|\b(?:signs|I sign|(?:has to|must|needs to) sign) (?:off|anything|every|the (?:deal|contract|po))|\bha(?:s|ve) (?:a |the )?veto"
    r"|\b(?:the )?(?:final )?decision[- ]maker (?:is|was|will be|now)\b|\b(?:decision|final (?:call|say|approval|sign-?off)) (?:now )?(?:sits|rests|lies) with\b"
    r"|\b(?:final )?decision is with\b|\btakes? (?:the )?final (?:call|decision)\b|\b(?:she|he)'ll make the call|\bwill sign (?:the|off)|\bwill own the decision|\bowns the decision"
    r"|决策人|决策(?:是|由|在)|拍板|说了算|最终签字|签字的是|做最终决定|合同(?:最后|最终)?(?:要|得|由)(?:他|她)(?:来)?签|(?:最终|最后)由[^，。；,;]{1,24}?(?:审批|签字|签批|决定|定夺|拍板)",
    re.I,
)


LEADS = re.compile(
    r"\b(?:runs?|running|manages?|heads?|leads?)\s+(?:the\s+|their\s+|our\s+|a\s+)?[\w&/ -]{0,30}?"
    r"\b(?:team|department|dept|group|division|unit|office|function|org|organi[sz]ation|region|plant|site|project|"
    r"procurement|purchasing|finance|it|operations|ops|sales|marketing|legal|hr|engineering|security|logistics|"
    r"supply chain|the show)\b",
    re.I,
)


NOISE = re.compile(
    r"^[\"'“「]?\s*(?:(?:hi|hello|hey|dear)\s+\w+\b.*|(?:many )?thanks\b.*|thank you\b.*|"
    r"(?:best |kind )?regards\b.*|(?:sorry|apologies) for the (?:delay|late reply)\b.*|"
    r"(?:agreed |the )?(?:next steps?|action items?)|您好.*|谢谢.*|下一步(?:安排|计划)?|"
    r"(?:this|that)(?:'s| is) (?:their|the) (?:biggest |main |key |real )?(?:pain(?: point)?|problem|issue|concern)|"
    r"(?:这|那)(?:就|也)?是[\u4e00-\u9fff]{0,8}(?:痛点|问题|需求|重点))$",
    re.I,
)
"""A greeting, a sign-off or a bare heading: nothing about the customer."""


ASIDE = re.compile(
    r"^(?:and |but )?(?:sorry|oops|my bad|哎呀|不好意思|抱歉)\b.{0,30}\b(?:was wrong|wrong|typo|mistake)\b"
    r"|\b(?:i|we) (?:was|were|got it) wrong\b|^\S{1,12} was wrong$"
    r"|^(?:哎呀|不好意思|抱歉)?，?(?:我)?(?:说|发|写|看|记|搞)错了"
    r"|^[\u4e00-\u9fff]{1,4}方面$|^(?:as for|regarding|re:?) [\w ]{1,20}$"
    r"|别(?:乱)?猜|不要(?:乱)?猜|don'?t (?:assume|guess)|no idea\b"
    r"|^(?:let (?:me|us) know|tell me if|feel free|don'?t hesitate)\b",
    re.I,
)
"""An aside to the assistant, not a fact about the customer: a slip the user owns ("sorry,
42 was wrong", "哎呀发错了"), a bare topic heading ("竞品方面"), a rebuke of a guess ("别乱猜",
"don't assume that")."""


NOT_ALLOWED = re.compile(r"(?:不得|不能|不可以?|严禁|禁止|不允许)")
"""A Chinese clause that states the other side of the requirement before it
("数据须存储在自有机房，不得使用公有云")."""


LEFT = re.compile(
    r"\b(?:left the company|has left|have left|no longer (?:with|at|works)|retired|moved on|resigned)\b"
    r"|离职|离开了|调走|调去|调到|调任|转岗|退休|辞职",
    re.I,
)


_NOT_COUNTED = (
    r"(?:years?|months?|weeks?|days?|hours?|hrs|minutes?|mins|seconds?|secs|times|percent|points|pts|"
    r"dollars|bucks|euros|pounds|yuan|calls|emails|meetings|slides|pages|steps|rounds|options|ideas|"
    r"questions|things|reasons|ways|kids|children|cats|dogs|books|movies|games|miles|km|kids|"
    r"words|characters|chars|lines|sentences|paragraphs|bullets|letters)"
)
COUNT_ANY = re.compile(
    r"(?<![\d.,/:-])(?P<n>\d[\d,]*(?:\.\d+)?\s*(?:[kK]|万|千)?)\+?\s*(?:多|余|来)?"
    r"(?:(?:个|家|座|台|辆|头|艘|所|位|名|张|套|栋|间|条|只|户|床)(?P<znoun>(?!(?:月|星期|小时|礼拜|季度|工作日|阶段|版本|"
    r"问题|点|人(?![员工])|亿|万))[\u4e00-\u9fff]{1,4})|(?P<zunit>头|台|辆|艘|床|户|家|所|座)(?![\u4e00-\u9fff])"
    r"|\s(?:[a-z][a-z-]+\s+){0,2}(?P<noun>(?!" + _NOT_COUNTED + r"\b)[a-z]{3,}s)\b)",
    re.I,
)
"""Any count of things a note gives ("12个风电场", "300多家企业", "28 vessels", "340 member
farms"): a figure and what it counts, not a time span, a share or a sum of money."""


LABEL_CATEGORY: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(r"^(?:" + p + r")$", re.I))
    for name, p in [
        ("incumbent", r"current(?: (?:system|systems|state|setup|stack|tools?|vendor|platform|solution))?|"
                      r"today|as[- ]is|existing(?: systems?)?|incumbents?|tech stack|stack|systems?|"
                      r"现状|现有系统|现用系统|现用|目前系统|当前系统|现有|在用系统|现行|现行系统|原有系统|"
                      r"旧系统|老系统|现况"),
        ("pain_point", r"(?:key |main |biggest )?(?:pains?|pain points?|problems?|issues|challenges|"
                       r"concerns?|complaints?)|痛点|问题|困难|难点|顾虑|抱怨"),
        ("competitor", r"competitors?|competition|rivals?|other vendors|竞品|竞争对手|对手|竞争|竞争情况|友商"),
        ("requirement", r"must(?:[- ]haves?)?|requirements?|needs|non[- ]negotiables?|asks?|wants|"
                        r"scope|goals?|objectives?|要求|需求|必须|硬性要求|诉求|目标|范围"),
        ("budget", r"budget|funding|预算|资金|经费"),
        ("timeline", r"timeline|timing|dates?|deadlines?|key dates|milestones|时间|时间线|时间节点|节点|"
                     r"截止时间|计划"),
        ("commitment", r"next(?: steps?)?|action items?|actions|to ?dos?|follow[- ]ups?|owners?|"
                       r"下一步|后续|待办|跟进"),
        ("deal_stage", r"stage|status|deal stage|phase|阶段|进展|状态|项目阶段"),
        ("contact_preference", r"contact preferences?|how to reach|沟通方式|联系方式|沟通偏好"),
        ("stakeholder", r"attendees|participants|people|stakeholders|contacts?|who|参会|参会人|参会人员|"
                        r"联系人|对接人|关键人"),
    ]
]  # fmt: skip
"""What a note's "Label:" heading says its items are ("Current: FIS for core",
"竞品：易保", "Pain: false positives ~8%"): an item that names no cue of its own
takes the heading's category."""

HEADING_SHORTHAND: dict[str, str] = {
    **dict.fromkeys(["comp", "comps", "competition", "vs", "alternatives"], "competitor"),
    **dict.fromkeys(["bdgt", "budg", "$", "$$", "$$$", "money", "funds"], "budget"),
    **dict.fromkeys(["req", "reqs", "musts", "need", "needs", "must-have", "must have"], "requirement"),
    **dict.fromkeys(["nxt", "next", "todo", "to do", "ai", "follow up", "f/u"], "commitment"),
    **dict.fromkeys(["pref", "prefs", "contact", "comms"], "contact_preference"),
    **dict.fromkeys(["cur", "curr", "current", "incumbent", "tools", "today", "now"], "incumbent"),
    **dict.fromkeys(["champ", "champion", "blocker", "dm", "decision maker", "decider", "sponsor",
                     "exec sponsor", "who's who", "ppl"], "stakeholder"),
    **dict.fromkeys(["stg", "stage"], "deal_stage"),
    **dict.fromkeys(["tl", "when", "dates", "timing"], "timeline"),
}  # fmt: skip
"""Note-taking shorthand for a heading ("comp: Monday.com", "bdgt: ~EUR 120k", "nxt: demo"),
matched on the whole heading or its first word ("curr. tools")."""

HEADING_STEMS: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(p))
    for name, p in [
        ("incumbent", r"现状|现况|现有|现用|在用|目前系统|当前系统"),
        ("pain_point", r"痛点|问题|困难|难点|顾虑|抱怨|瓶颈"),
        ("competitor", r"竞品|竞争|对手|友商"),
        ("requirement", r"要求|需求|必须|诉求|目标|合规"),
        ("budget", r"预算|资金|经费"),
        ("timeline", r"时间|时程|节点|计划|排期|里程碑|时间表"),
        ("commitment", r"下一步|后续|待办|跟进|行动项"),
        ("deal_stage", r"阶段|进展|状态"),
        ("contact_preference", r"沟通方式|联系方式|联络方式|沟通偏好|偏好"),
        ("stakeholder", r"参会|出席|与会|联系人|联络人|对接人|关键人|决策|拍板|窗口"),
    ]
]
"""A Chinese heading by its head word ("合规要求" -> requirement, "竞争者" -> competitor);
the word that ends last wins, as the head of a Chinese noun comes last ("决策时间")."""

TITLE_LINE = re.compile(
    r"\b(?:fwd?|fw|forwarded|recap|summary|minutes|notes|debrief|visit report|call report)\b|"
    r"转发|转寄|纪要|记录|小结|总结|简报",
    re.I,
)
"""A note's title line ("Fwd: discovery call 11 Nov", "转发：会议纪要（11月6日）")."""


ONLY_NAMES = re.compile(
    r"\b(?:met|also|with|and|attendees|call|spoke|spoke to|talked to|meeting|visit|today|this morning|"
    r"this afternoon|yesterday|tonight|their|our|new contact is|contact is)\b|见了|和|对接人|联系人|是|的|为|拜访了?|"
    r"今天|昨天|通了电话|聊了",
    re.I,
)
"""What a clause that only names a person says besides the name ("met with", "对接人是")."""

LONE_NAME = re.compile(
    r"([A-Z][a-z]{2,})\s+(?:is|was|has|will|just|also|now|says|said|prefers|wants|likes|asked|"
    r"hates|only|never|always|rarely|answers|responds|replies|reads|ignores)\b"
)
"""A first name alone as the subject ("Declan only answers on LinkedIn", "Mia prefers calls")."""

TO_ASSISTANT = re.compile(
    r"\b(?:don'?t|do not|no need to|stop|never) (?:guess|assume|make (?:it|things|stuff|up)|mix (?:them|it|up)|"
    r"confuse|invent|speculate|fill in|embellish)\w*|\b(?:help me|can you|could you|please) (?:write|draft|"
    r"draw up|compose|polish|translate|summari[sz]e)\b"
    r"|(?:别|不要|不用|甭)(?:瞎|乱|自己)?(?:猜|搞混|弄混|搞错|弄错|记错|记混|编|瞎编|脑补|揣测|发挥)|帮我(?:写|起草|拟|润色|翻译|想|改)"
    r"|替我(?:写|起草|拟)|(?:写得|写的)?别太(?:正式|长|官方)",
    re.I,
)
"""The user speaking to the assistant ("别搞混", "don't guess", "帮我写几句敬酒词，别太正式"),
not a preference of the customer's."""

REQUEST = re.compile(
    r"^(?:(?:ok(?:ay)?|so|now|and|also|then|next|hey|pls|please|kindly|can you|could you|would you)[,\s]+)*"
    r"(?:draft|write(?! down| it down| this down|\s*:)|compose|summari[sz]e|translate|polish|rephrase|tell me|give me|show me|brief me|"
    r"help me|find me|pull up|explain|prepare (?:a|an|the|my) (?:draft|reply|response|summary|email|message|briefing))\b"
    r"|^(?:请|麻烦|那)?(?:你)?(?:帮我(?!们)|替我|帮忙)(?:给.{1,10}?)?(?:写|起草|拟|润色|翻译|总结|整理|列|查|想|改|准备)"
    r"|^(?:请|麻烦)?(?:你)?(?:起草|草拟|写一封|写封|总结一下|翻译一下|列一下|介绍一下)",
    re.I,
)
"""A sentence that asks the assistant for something ("Draft a short email to Wang Fang proposing
a call next week", "帮我给王芳写封邮件，约下周三开会"): a request, not a note about the customer."""
