"""Corrections in sales notes: which value a sentence leaves in force, and the old one
left out of the memory (English and Chinese).

"The demo isn't Dec 8 anymore, it's Dec 10" -> "The demo is Dec 10"; "650k, not 500k
as I said" -> "650k"; "went from 500k to 650k" -> "went to 650k"; "不是300万，是350万" ->
"是350万"; "moved from March 1 to April 15" -> "moved to April 15"; "so Dec 15 is off"
goes. ``current_amount`` and ``target_date`` pick the value a clause sets. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memagent.memory.extract_amounts import Amount, parse_amounts
from memagent.memory.extract_calendar import ANY_DAY
from memagent.memory.extract_dates import DateHit, find_dates
from memagent.memory.hanzi_fold import to_simplified

RESCHEDULE = re.compile(
    r"\b(?:moved?|push(?:ed)?|slipp?(?:ed)?|resched\w*|postpone\w*|delay\w*|instead|brought forward)\b"
    r"|改到|推迟|延到|延期|提前到|挪到|换到|(?:哦|噢)?不对[，,]|说错了|记错了|又说是|改口",
    re.I,
)


_TO_DATE = re.compile(
    r"(?:\bto|\buntil|\btill|\bfor|改到|推迟到|延到|延期到|提前到|挪到|换到|定在|改成|又说是|应该是|改口说)\s*$",
    re.I,
)


def target_date(clause: str, dates: Sequence[DateHit]) -> DateHit:
    """The date a clause sets: the one a move points to ("moved the workshop to Wednesday
    next week, Maria has a conflict on the 3rd"), else the last one."""
    if len(dates) > 1 and RESCHEDULE.search(clause):
        for d in dates:
            if _TO_DATE.search(clause[max(0, d.start - 12) : d.start]):
                return d
    return dates[-1]


_OLD_BEFORE = re.compile(
    r"(?:[,，]?\s*(?:\b(?:not|instead of|rather than|down from|up from|from|vs\.?|versus)\s+(?:the\s+)?)"
    r"|(?:[,，]?\s*(?:而不是|不是|唔係|唔系|唔是|之前说的|之前的|原来的|原先的|上次说的|从|由)\s*))$",
    re.I,
)


_NEGATED = re.compile(
    r"\b(?:not|instead of|rather than)\s+(?:the\s+)?$|(?:不是|唔係|唔系|唔是)\s*$|(?:之前|上次)说的\s*$",
    re.I,
)


_OLD_AFTER = re.compile(
    r"^\s*(?:as (?:i|we) (?:said|wrote|mentioned|noted|had)(?: (?:before|earlier|last time))?|"
    r"(?:is|was) (?:wrong|outdated|out of date|old)|不对|是错的|有误|作废|是旧的"
    # "80万，哦不对，我记错了，是90万", "两百多万美元不对是…": a unit, a pause, a take-back
    r"|(?:美元|人民币|元|块|欧元|港币)?(?:左右|上下|出头)?\s*[,，]?\s*(?:哦|噢|呃|啊|哎|唉|额)?\s*[,，]?\s*(?:不对|说错了|记错了)"
    r"(?:\s*[,，]?\s*我?(?:记错了|说错了|搞错了))?"
    r"|\s*[,;]\s*(?:sorry|no wait|wait,? no|scratch that|i mean)(?! for\b)[,:]?(?=\s))",
    re.I,
)


_NOT_ZH = r"(?:不是|唔係|唔系|唔是)"
"""Chinese "is not", Mandarin and Cantonese ("預算唔係三百萬，係二百五十萬")."""


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
    # "switched from Salesforce to HubSpot" / "从企业微信切到飞书" -> the new system only
    (re.compile(r"\b(?P<verb>switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing)|chang(?:ed|ing))"
                r"\s+(?:over\s+)?from\s+" + _OLD + r"\s+(?=to\b|onto\b|over to\b)", re.I), r"\g<verb> "),
    (re.compile(r"\breplaced\s+" + _OLD + r"\s+with\s+(?=[A-Z])"), "moved to "),
    (re.compile(r"从" + _OLD + r"(?=(?:全面)?(?:切到|切换到|换到|换成|迁到|迁移到|转到|改用|升级到))"), ""),
    # "演示不是周二了，改到周四" / "决策人不是王总了，换成李总" / "不是SAP，是Oracle"
    (re.compile(_NOT_ZH + _OLD + r"了?[，,]\s*(?P<verb>改到|推迟到|延到|提前到|挪到)"), r"\g<verb>"),
    # "刚才说邱敏是人力资源总监，不对，她是培训中心总监": the old statement quoted, then denied
    (re.compile(r"(?:刚才|之前|上次|前面|刚刚)(?:我)?(?:说|讲|写)(?:的)?[^，,。；;]{1,24}[，,]\s*(?:不对|错了|说错了|搞错了)[，,]\s*"), ""),
    # "首批安装不是4月底，雷总说硬件清关要时间，定在5月底前完成": a reason between the two
    (re.compile(_NOT_ZH + _OLD + r"了?[，,][^，,。；;]{0,24}?[，,]\s*(?P<verb>定在|改到|改在|推迟到|延到|延后到|提前到|挪到)"),
     r"\g<verb>"),
    (re.compile(_NOT_ZH + _OLD + r"了?[，,]\s*(?:换成了?|改成了?|而是|变成了?|是|係|系(?!统))"), "是"),
    # "They're on MasterControl today — no sorry, it's TrackWise", "They use Orbis... sorry, I
    # mean Medavis": taken back mid-sentence
    (re.compile(r"\b(?P<lead>on|is|are|uses?|using|runs? on)\s+" + _OLD + r"(?:\s+(?:today|now|currently))?"
                r"\s*(?:[—–-]+|\.{2,}|…|,)\s*(?:no,?\s*)?(?:sorry|wait|actually),?\s*(?:it'?s|it is|they'?re on|make that|i mean(?:t)?(?=\s+(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*){0,2}\s*(?:[,.;)]|$)))\s+",
                re.I), r"\g<lead> "),
]  # fmt: skip


REPLACED = re.compile(
    "|".join(p.pattern.replace("?P<old>", "?:") for p, _ in _REWRITES[:3])
    + r"|(?:不是|唔係|唔系|唔是)[^，,。]{1,30}?了?[，,]",
    re.I,
)
"""A sentence that replaces an old value: a correction, whatever its opening words."""


CORRECTS = re.compile(
    r"\b(?:correction|actually|sorry|i meant|my mistake|scratch that|no wait|wait,? no)\b"
    r"|更正|纠正|说错|搞错|弄错|看错|记错|写错|改一下",
    re.I,
)
_NOT_TAIL = re.compile(
    r"(?:\s*[,，]\s*|(?<=[\u4e00-\u9fff\d])(?=(?:而|并)?不是))(?:(?:而|并)?不是|唔係|唔系|唔是|\bnot\b|\brather than\b)"
    r"\s*(?:[^,，;；。.!?！？]|\.(?=\d)){1,20}?(?:了)?"
    r"(?=\s*(?:[;；。!?！？]|\.(?!\d)|$|[,，]\s*[A-Za-z\u4e00-\u9fff]+\s+(?:just|already|has|have|had|emailed|said|told|confirmed)\b"
    r"|(?<=\d[个家台位人套份条辆间所])[,，]))",
    re.I,
)
"""The old value a correction names after the new one: "最后拍板的是陈怡君，不是林董",
"Correction: it's Grace, not Paul", "说错了，一期是15个车场不是20个"."""
_OLD_ASIDE = re.compile(
    r"\s*[（(]\s*(?:注|备注|PS|P\.S\.)?[:：]?\s*(?:不是|而不是)(?:之前|刚才|原来|上次|先前)(?:说|报|给|定)?的?"
    r"[^（()）]{1,24}[）)]",
    re.I,
)
"""An aside that names the old value: "一年40万以内（注：不是之前说的60万，老板砍了）"."""


def replaced_by_new(text: str) -> str:
    """A sentence that replaces an old value by a new one, with the old value left out
    ("The demo isn't Dec 8 anymore, it's Dec 10" -> "The demo is Dec 10",
    "决策人不是王总了，换成李总" -> "决策人是李总", "更正：拍板的是陈怡君，不是林董" ->
    "更正：拍板的是陈怡君"), so no memory keeps the old one. A trailing "not X" goes only
    from a message that says it corrects something: elsewhere ("must be cloud, not
    on-prem") it is part of the fact."""
    for pattern, repl in _REWRITES:
        text = pattern.sub(repl, text)
    if CORRECTS.search(text):
        text = _NOT_TAIL.sub("", text)
    return _OLD_ASIDE.sub("", text)


_BARE_OLD = re.compile(
    r"(?<=\d)(?:而|并)?(?:不是|唔係|唔系)\d+(?:\.\d+)?(?![\d.万亿千百kKmM元块%])"
)
"""A bare old figure right after the new one ("每台预算是2800不是2500")."""


def drop_old_values(text: str) -> str:
    """``text`` without the amounts it marks as no longer true ("650k, not 500k as I said
    before", "went from 500k to 650k", "不是300万，是350万", "之前说的200万不对"), so a
    memory never carries the old value beside the new one."""
    text = _BARE_OLD.sub("", _drop_old_dates(text))
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
        if re.match(r"\s*[,，]\s*(?:而)?(?:是|係|系(?!统))", tail):
            tail = re.sub(r"^\s*[,，]\s*(?:而)?", "", tail)  # "不是300万，是350万" -> "是350万"
        head, tail = head.rstrip(), tail.lstrip()
        if head.endswith("是") and tail.startswith("是"):
            tail = tail[1:]  # "预算他说是80万，不对，是90万" -> "预算他说是90万"
        text = (
            head
            + (
                " "
                if re.match(r"[A-Za-z0-9]|[-–—]\s", tail) and re.search(r"[A-Za-z0-9]$", head)
                else ""
            )
            + tail
        )
    return text


_DATE_FROM = re.compile(r"(?:\bfrom|从|由)\s*$", re.I)
_DATE_WAS = re.compile(
    r"(?:\b(?:originally|initially|previously)(?: (?:planned|set|scheduled))?(?: for| on)?"
    r"|原定(?:于|在|是)?|原计划(?:在|是)?|本来(?:定在|是)?|原本(?:定在|是)?|原先(?:定在|是)?)\s*$",
    re.I,
)
"""The date a plan had before it moved ("上线原定3月，现在推迟到5月", "originally set for
May 3, now June 1")."""


_DATE_OFF = re.compile(
    r"^\s*(?:is (?:off|cancelled|canceled|out|dead)|(?:is )?no longer|any ?more|取消了?|不行了|作废|"
    r"[-–—,;，；]?\s*(?:scratch that|strike that|no wait|wait,? no|(?:no,? )?sorry(?:,? I mean)?(?! for\b)|不对|说错了)[,:，]?)",
    re.I,
)


_DATE_NOT = re.compile(
    r"([,，]?\s*\bnot\s+)$|\b(?:doesn'?t|does not|won'?t|will not)\b[^.,;]{0,20}?\s$",
    re.I,
)


def _drop_old_dates(text: str) -> str:
    """ "moved from March 1 to April 15" -> "moved to April 15"; "so Dec 15 is off" goes."""
    dates = find_dates(text, ANY_DAY)
    if len(dates) < 2:
        return text
    for d in reversed(dates):
        before = _DATE_FROM.search(text[max(0, d.start - 6) : d.start])
        after = _DATE_OFF.match(text[d.end :])
        was = _DATE_WAS.search(text[max(0, d.start - 24) : d.start])
        if was and d is not dates[-1]:
            tail = re.sub(r"^\s*[,，;；]?\s*", "", text[d.end :])
            head = re.sub(r"(?:\s+(?:was|is|had been))?[\s,，]*$", "",
                          text[: d.start - len(was.group(0))], flags=re.I)  # fmt: skip
            text = head + ("" if re.search(r"[\u4e00-\u9fff]$", head) else ", ") + tail
        elif before:
            text = text[: d.start - len(before.group(0))].rstrip() + " " + text[d.end :].lstrip()
        elif (neg := _DATE_NOT.search(text[max(0, d.start - 30) : d.start])) and (
            d is not (dates[0] if neg.group(1) else dates[-1])
        ):  # "renewal is 1 May not 1 Jun", "doesn't end Dec 31, it ends January 31"
            text = text[: d.start - len(neg.group(1) or "")].rstrip() + text[d.end :]
        elif after:
            head = re.sub(r"[,，;；]?\s*(?:so|and|因此|所以)?\s*$", "", text[: d.start], flags=re.I)
            text = head + text[d.end + after.end() :]
    # "by 1 May — no, sorry, by 1 June" -> "by 1 June", not "by by 1 June"
    return re.sub(r"\b(by|on|to|until|before|in|from)\s+\1\b", r"\1", text, flags=re.I)


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


_OLD_NUMBER = re.compile(
    r"(?:\bnot|\binstead of|\brather than|(?:而)?不是|唔係|唔系|唔是|之前说的|原来的?|上次说的)\s*(?P<n>\d+(?:\.\d+)?)"
    r"(?!\d|\.\d|\s*(?:k|m|bn|million|billion|万|亿|元|[a-z%$€¥]))",
    re.I,
)


def old_values(text: str) -> list[str]:
    """The values a correction says are no longer true ("不是80万，是120万" -> ["800000"],
    "it's 1.4M not 1.2M" -> ["1200000"], "账号是80个，不是50个" -> ["50"]), so the write
    path can find the memory they correct when the sentence does not name its attribute."""
    out: list[str] = []
    amounts = parse_amounts(text)
    for a in amounts:
        before = _OLD_BEFORE.search(text[max(0, a.start - 16) : a.start])
        after = _OLD_AFTER.match(text[a.end :])
        if (before and _NEGATED.search(before.group(0))) or after:
            out.append(str(a.value))
    out += [m.group("n") for m in _OLD_NUMBER.finditer(text)
            if not any(a.start <= m.start("n") < a.end for a in amounts)]  # fmt: skip
    return out


_RETRACT_EN = re.compile(
    r"^\W*(?:(?:wait|oops|sorry|oh|ah|no|ok|okay|actually|hmm|ugh|argh)\b[\W\s]*)*(?:please\s+)?"
    r"(?:scratch|scrap|strike|ignore|disregard|forget|delete|drop|remove)\s+(?:that|this|it|"
    r"everything|all (?:of )?(?:that|it|this)|my (?:last|previous) (?:message|note)|"
    r"the (?:last|previous) (?:message|note))\b",
    re.I,
)
_WHOLE_EN = re.compile(
    r"\bwrong (?:account|customer|client|company|prospect|deal|thread)\b|\b(?:entirely|completely)\b"
    r"|\ball of (?:it|that)\b|\beverything\b|\b(?:last|previous) (?:message|note)\b"
    r"|\bdon'?t keep any\b|\bnone of (?:it|that|this)\b",
    re.I,
)
_RETRACT_ZH = re.compile(
    r"发错(?:了)?(?:客户|群|人|对象|地方)|发错了[，,。\s]*(?:这|那|刚才|上)|记错客户|不是这(?:个|家)客户"
    r"|(?:(?:刚才|刚刚|上|前面|之前)(?:那|这)?(?:一)?(?:条|段|则)(?:消息|信息|记录|内容)?"
    r"|(?:刚才|刚刚|之前|前面)(?:那|这)?些?(?:消息|信息|记录))"
    r"[^，,。]{0,8}?(?:全部|都|全都)?(?:作废|不算|删掉|撤回)"
)


_HEAD_EN = re.compile(
    r"^(?:(?:wait|oops|sorry|oh|ah|no|ok|okay|actually|hmm|ugh|argh|please|pls)\b[\W\s]*)*"
    r"(?:(?:scratch|scrap|strike|ignore|disregard|delete)\s+(?:that|this|it|all (?:of )?(?:that|this|it))"
    r"|(?:scratch|scrap|strike|ignore|disregard|forget|delete|drop|cancel|undo|remove|never ?mind)\s+"
    r"(?:what i (?:just |had )?(?:said|wrote|typed|sent|told you)(?: (?:before|earlier|just now))?"
    r"|my (?:last|previous) (?:message|note|one))"
    r"|(?:my|the) (?:last|previous) (?:message|note) (?:was|is) (?:wrong|a mistake|a typo))\b",
    re.I,
)
"""How a whole-message take-back opens ("scratch that", "forget what I just said")."""
_REASON_EN = re.compile(
    r"^(?:(?:it|that|this) (?:was|is) (?:wrong|a mistake|a typo|incorrect|not right)"
    r"|(?:i was|i'?m|i am) (?:wrong|mistaken|confused)|i mixed (?:it|them|things) up|my (?:mistake|bad)"
    r"|wrong (?:info|information|account|customer|client|company|prospect|deal|thread|person)"
    r"|sorry|oops|please|pls|thanks|thank you|entirely|completely|all of it|typo"
    r"|(?:it|that)'?s (?:wrong|not right|incorrect)|not right|wrong)$",
    re.I,
)
_HEAD_ZH = re.compile(
    r"^(?:哎呀|哎|啊|唉|呃|抱歉|不好意思|唔好意思|对不起|sorry)?[，,\s]*"
    r"(?:(?:我)?(?:刚才|刚刚|头先|之前|前面|上面)(?:我)?(?:说|讲|写|发|打)(?:的|嘅|咗嘅|咗的)"
    r"(?:话|内容|那些|那条|嘢|信息|消息)?(?:都|全|全部|全都)?"
    r"|(?:刚才|刚刚|头先|上|前面|之前)?(?:那|这|嗰)?(?:一)?(?:条|段|则|句)(?:消息|信息|记录|内容)?"
    r"(?:都|全|全部)?)?"
    r"(?:作废|不算|唔算|撤回|删掉|删除|删了|无效|忽略|唔要|不要了)(?:吧|了|啦|喇|咗)?"
)
"""A Chinese take-back: "刚才说的不算", "上一则作废", "剛才講嘅唔算" (folded), "作废"."""
_REASON_ZH = re.compile(
    r"^(?:我)?(?:说|讲|写|发|打|搞|记|弄)(?:错|混)(?:了|咗)?(?:客户)?|不对|有误|错了|唔啱"
    r"|(?:抱歉|不好意思|唔好意思|对不起|sorry)|谢谢|吧|了|哈|哦$"
)


def _only_reasons(rest: str, reason: re.Pattern[str]) -> bool:
    """Nothing but reasons and politeness follow the take-back ("it was wrong", "说错了")."""
    pieces = [
        p.strip()
        for p in re.split(r"[,.;:!?\-–—，。；：！？、\s]*[,.;:!?\-–—，。；：！？、]+\s*", rest)
    ]
    return all(not p or reason.match(p) for p in pieces)


def _bare_take_back(text: str) -> bool:
    """The whole message is a take-back and its reasons: "Scratch that.", "forget what I
    just said", "作废", "刚才说的不算，说错了". A take-back followed by a new statement
    ("scratch that, it's 1.5M") is a correction read as facts, never a take-back."""
    s = text.strip()
    for head, reason in ((_HEAD_EN, _REASON_EN), (_HEAD_ZH, _REASON_ZH)):
        if m := head.match(s):
            return _only_reasons(s[m.end():], reason)  # fmt: skip
    return False


def retracts_previous(text: str) -> bool:
    """The message takes back the one before it as a whole ("Scratch that, wrong account",
    "scrap that entirely", "forget what I just said", "刚才那条发错客户了，作废", "刚才说的不算",
    "作废", "发错了，这是别家的情况"; Traditional and Cantonese alike), not one value in it
    ("budget 1.2M - scratch that, 1.5M" corrects a figure), nor a fact about the customer
    ("他们把旧合同作废了", "the customer scrapped the old plan")."""
    text = to_simplified(text)
    if _RETRACT_ZH.search(text) or _bare_take_back(text):
        return True
    return bool(_RETRACT_EN.search(text) and _WHOLE_EN.search(text)) or bool(
        re.search(r"\bwrong (?:account|customer|client|company|prospect)\b", text, re.I)
        and re.search(r"\b(?:that|this|those|it) (?:was|were|is)\b|\bscratch|\bignore", text, re.I)
    )


_SWITCH_EN = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing)|chang(?:ed|ing))\s+(?:over\s+)?from\s+"
    r"(?P<old>[A-Z][\w&.\- ]{0,30}?)\s+(?:to|onto|over to)\s+(?P<new>[A-Z][\w&.\-]*(?: [A-Z][\w&.\-]*){0,2})"
    r"|\breplaced\s+(?P<old2>[A-Z][\w&.\- ]{0,30}?)\s+with\s+(?P<new2>[A-Z][\w&.\-]*(?: [A-Z][\w&.\-]*){0,2})",
)
_SWITCH_ZH = re.compile(
    r"从(?P<old>[^，,。；;\s]{1,15}?)(?:全面)?(?:切到|切换到|换到|换成|迁到|迁移到|转到|改用|升级到)了?"
    r"(?P<new>[A-Za-z0-9\u4e00-\u9fff]{1,15}?)(?=了|[，,。；;！!\s]|$)"
)


def switched(text: str) -> tuple[str, str] | None:
    """(old, new) system of a sentence saying the customer moved from one to another
    ("switched from Salesforce to HubSpot", "从企业微信切到飞书了"), else None: the new
    one replaces the old as what they run."""
    if m := _SWITCH_EN.search(text):
        pair = (
            (m.group("old"), m.group("new"))
            if m.group("old")
            else (m.group("old2"), m.group("new2"))
        )
    elif m := _SWITCH_ZH.search(text):
        pair = (m.group("old"), m.group("new"))
    else:
        return None
    old, new = pair[0].strip(), pair[1].strip()
    if any(re.match(r"\d", x) or _WHEN.search(x) for x in (old, new)):
        return None  # "kickoff moved from Dec 1 to Jan 12": a date, not a system
    return old, new


_WHEN = re.compile(
    r"^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|^(?:mon|tue|wed|thu|fri|sat|sun)"
    r"[a-z]*\b|^(?:next|this|last)\b|[月日号周天年]|星期|下午|上午|明天|后天",
    re.I,
)
