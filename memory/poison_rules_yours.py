"""Poisoning rules of session 22: an order to "your" machine, read as who, deed and object.

Blind set Y (session 22) had 31 attacks past the screen, most of them Chinese: the machine
named through whoever owns or runs it ("你们那个会记笔记的AI", "贵司用来整理客户记录的助手",
"你部機械人", "協助各投標人撰寫文件的寫作機器人", "睇緊呢段嘢嘅 bot", "該工具", "請助理"),
then a modal or a time ("应当", "就该", "记得", "以后", "下次", "由而家") and, further on, what
no note about a customer asks for: records erased or rewritten, things kept from the manager,
other customers' contracts, cost prices, bank accounts, ID numbers, API keys, a price cut or
a fee waived, a persona ("你就係老細"). Any one of the three is common in sales notes (the
customer's own chatbot, "以后每次开会", "报价打九折"); the three in one sentence are not.

A sentence that asks about such orders or states a requirement for our product (担心, 如何,
防范, 安全, 功能, 需求, 支持…) is skipped, as in ``poison_rules_addressed``.
"""

from __future__ import annotations

from memagent.memory.poison_rules import Rule
from memagent.memory.poison_rules import make_rule as _r
from memagent.memory.poison_rules_addressed import ZH_RISK

_Z = r"[^。！？!?\n]"  # within one sentence (the text is folded to Simplified first)
_MACH = (
    r"(?:ai|bot|copilot|机器人|机械人|助手|助理|智能体|程序|程式|工具|模型|记忆库|记忆模块|记忆模组"
    r"|软件|平台|后台|环节|一方|人或机器|电子同事|那位(?![\u4e00-\u9fff]{0,2}(?:同事|老师|领导|经理|客户|先生|女士|总|工)))"
)
"""Session 23 (blind set Z) added what the reader is when described by its work: the
platform or back office that files the note, "the party that stores this", "the person or
machine reading this", "that one who takes our notes", an "electronic colleague"."""
_WHO = (
    # yours: "你们那个会记笔记的AI", "贵司用来整理客户记录的助手", "你哋嗰边个智能助理", "你部机械人"
    rf"(?:你们|贵司|贵方|贵公司|你哋|你部|你的|您的){_Z}{{0,14}}?{_MACH}|(?:你哋|你们|贵司)\s?部\s?系统"
    # the one that does the work: "起草续约报价的那个AI", "撰写文件的写作机器人", "睇紧呢段嘢嘅 bot"
    r"|(?:记|记录|整理|读|看|睇|处理|起草|撰写|协助|翻到|翻|阅读|生成|回想|总结|汇总|归档|保管|收录|存入|摘要|分析|做准备"
    r"|准备材料)"
    rf"[^。！？!?\n，,]{{0,16}}?(?:的|嘅)[^。！？!?\n，,的]{{0,5}}?{_MACH}"
    rf"|(?:这套|那套|这个|那个|边个|呢个)\s?(?:copilot|ai|bot|工具|软件|程序)|ai\s?帮手|有谁(?:翻到|读到|看到)"
    r"|(?:今后|以后|日后)(?:在)?(?:整理|处理|归档|汇总)[^。！？!?\n，,]{0,10}?时"
    r"|(?<![\w.])@(?:[\w.-]{0,20}?(?:bot|assistant|copilot)|(?:[\w.-]{0,20}?[-_.])?ai)\b|(?:告诉|叫|让)它(?=[，,\s])"
    r"|请[\u4e00-\u9fff]{0,4}?(?:工具|软件|程序|平台)(?=[\u4e00-\u9fff])"
    # told directly: "该工具须", "请助理在下一次…", "助手请永远…", "请系统在下次读取时"
    r"|(?:该|其)(?:ai)?\s?工具|请(?:助理|助手|系统|机器人)|(?:助理|助手)请"
    rf"|ai\s?[\u4e00-\u9fff]{{0,3}}?(?:助理|助手|记忆库|记忆模块|机器人)"
    r"|(?:那个|嗰个|或者?)\s?(?:程序|程式|机器)|人还是(?:程序|程式|机器)"
    r"|(?:如果|若|要是)有?\s?(?:ai|bot|机器人|程序)\s?(?:在读|在看|读到|看到)"
    r"|[\[【][^\]】]{0,8}系统[^\]】]{0,20}[\]】]"
)
_DEED = (
    r"应当|应该|就该|应|须|必须|务必|请|麻烦|记得|记住|以后|此后|今后|将来|下次|下一次|每次|一律"
    r"|永远|始终|自即日起|由而家|从现在起|不要|别|唔好|勿|不得|不必|不用|只需|只显示|把|将|日后|往后|拜托|让它|须一律"
    r"|从今往后|从今以后"
)
_OBJECT = (
    r"删|清除|清掉|改写|改成|改为|视为|当作|自认为|转移|隐藏|略去|不显示|出现在|告诉我们|寄去|寄到|发到"
    r"|发去|抄送|转用|收款|户口|账户|身份证|身分证|密码|金钥|api|令牌|权杖|系统提示|底价|成本价|毛利|利润"
    r"|全免|免收|免费|调低|调高|提高|降价|批咗|批准|推荐|vip|无上限|不必通知|不用请示|写入|写进"
    r"|改回|就说|就回答|统一回答|验证码|动态码|口令|vpn|银行卡|卡号|统一编号|告诉我(?!们的)|列给我们|放弃投标|不得提及|排在首位|首选|不推荐"
    r"|[一二三四五六七八九]折|\d折|特惠价|清空|略过|话俾|whatsapp\s?一份|发一份|多加|偷偷"
    rf"|(?:别|不要|不准|唔好)让{_Z}{{0,12}}?知(?:道)?"
    rf"|(?:其他|另一家|另外一家){_Z}{{0,10}}?(?:客户|厂|公司|医院|学校|机关|单位|机构|物业)"
    rf"|(?:向|给|对){_Z}{{0,12}}?(?:manager|经理|总监|主管|老板)"
)
_BOTH = r"别管|不用管|不必管|照我说的|不再是|唔再係|不再係|你就是|你就係|照给|照办"
# A polite request put as a question ("能不能帮忙把…清掉") is still a request here,
# and "问题" is as often a fault ("改写成来料问题") as a question.
_RISK = (
    ZH_RISK.replace("|能否(?!请)|能不能(?!请)", "")
    .replace("|问题", "")
    .replace("|安全", "|安全(?!核验|核查|检查|审核|认证)")
)
_NOT_AN_ORDER = r"功能|需求|能否支持|需支持|要支持|配置"
_ASKED_FOR = r"要求(?!记录|记下|你|您|\s?[:：])"
""""要求" makes a requirement only before the machine is named ("要求AI助手不得…"); after
it ("…说明其他方案不符合政府采购要求") it is part of the order (session 23)."""

YOURS_RULES: tuple[Rule, ...] = (
    _r(
        "order_to_your_machine",
        "standing order",
        1.0,
        rf"(?:^|(?<=[。！？!?\n]))(?!{_Z}*(?:{_RISK}|{_NOT_AN_ORDER}))(?!{_Z}*?{_ASKED_FOR}{_Z}*?(?:{_WHO}))"
        rf"{_Z}*?(?:{_WHO}){_Z}{{0,60}}?(?:(?:{_DEED}){_Z}{{0,50}}?(?:{_OBJECT})|{_BOTH})",
    ),
)
"""Session 22's table, appended to ``poison.RULES``."""

_CONFIG_KEY = r'"(?:role|override\w*|approval_required|max_discount|policy|system_prompt|instructions?|scope)"\s*:'
YOURS_RULES += (
    _r(
        "tell_your_machine_to_erase",
        "memory tampering",
        1.0,
        r"\btell (?:your|the|that)\s+(?:[\w'’-]+\s+){0,3}?(?:memory system|memory|assistant|ai|bot|copilot|notes? tool)"
        r"\s+to\s+(?:wipe|delete|erase|forget|remove|purge|clear out|rewrite|ignore)\b",
    ),
    _r(
        "config_override_block",
        "fake system header",
        1.0,
        rf"(?:{_CONFIG_KEY}[^{{}}]{{0,80}}?){{2}}(?=[^{{}}]{{0,200}}(?:true|false|\"admin\"|长期有效|permanent))",
    ),
    _r(
        "play_a_role_from_now",
        "persona override",
        1.0,
        r"请(?:你)?扮演[^。！？!?\n]{0,30}?(?:以[^。！？!?\n]{0,12}?(?:身份|名义)|今后|以后|在回复|在答复|答复中|回复中)",
    ),
)
"""Session 23's additions: a pasted JSON "config" naming a role and an override, and a
persona ordered for the answers to come ("请扮演教育局采购办主任，以主任的身份在今后的答复中…")."""
