"""Which of the user's clauses never reach the LLM extractor's sorting call: small talk,
filler, "nothing known", where the salesperson went, a note's title, our own company's
affairs and the salesperson's own (quota, leave, a colleague's accounts: the rules' own
detector, ``extract_ownside.own_affair``), and a line an earlier message already said.
None of them states a new fact about the customer, and a 1.5B model files a good share
of them under some category anyway.
"""

from __future__ import annotations

import re
import unicodedata

from memagent.memory.extract_calendar import ANY_DAY
from memagent.memory.extract_dates import find_dates
from memagent.memory.extract_ownside import own_affair
from memagent.memory.extract_script import fold
from memagent.memory.extract_triggers import chatter

_NOTHING = re.compile(
    r"\b(?:no idea|nothing (?:new|yet|really|to report)|(?:don'?t|do not) (?:know|guess|assume)|"
    r"haven'?t (?:got|heard|met|even)|no (?:news|update)|didn'?t say|not sure yet|wrong account|"
    r"scrap that|mixed it up|ignore (?:that|this))\b|没什么|没有?(?:消息|进展|信息)|还没(?:聊|见|消息|定|说)|"
    r"不知道|不清楚|没说|别乱猜|作废|发错|搞错|记错",
    re.I,
)
"""A clause that says nothing is known, or takes text back: never a fact."""
_OPEN = re.compile(r"待确认|待定|未定|\b(?:tbd|tbc|unknown)\b", re.I)
"""A detail left open ("date TBD", "待定"): the clause's other words may still state a fact."""


def _nothing(clause: str) -> bool:
    """A clause that says nothing is known; one that leaves one detail open ("reference
    site visit in Lyon, date TBD") but says more is a fact all the same."""
    if _NOTHING.search(clause):
        return True
    if not (m := _OPEN.search(clause)):
        return False
    rest = clause[: m.start()] + clause[m.end() :]
    return len(re.findall(r"[A-Za-z]+", rest)) < 5 and len(re.findall(r"[\u4e00-\u9fff]", rest)) < 8


_HEADER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|um+|uh+)[,\s]+)*(?:long day at|(?:a )?visit(?:ed)?\b|"
    r"met (?:with )?\w+ (?:today|yesterday)|meeting with|mtg w/|call notes|quick (?:one|update)|"
    r"heading (?:in)?to|on (?:my|the) way (?:to|back)|(?:just )?(?:left|walked out of|got out of|"
    r"back from|passing by|drove past)\b|notes? (?:from|on)|today (?:at|with)|顺便路过|路过|"
    r"(?:今天|昨天|上午|下午)?(?:去|在).{0,8}拜访|(?:今天|昨天)?拜访了|去了趟|刚从.{1,16}(?:出来|回来))",
    re.I,
)
"""Where the salesperson was, not what the customer is (read folded: "剛從...出來")."""
_FILLER = frozenset(
    re.findall(
        r"\S+",
        "oh ah uh um hmm ok okay so wait sorry ugh argh well anyway anyways lol haha right long "
        "day phew sigh yeah yep whoa wow oops no nope hm hmm",
    )
)
"""Words of a clause that says nothing ("oh wait sorry", "ugh, long day")."""
_FILLER_ZH = re.compile(
    r"^(?:先这样|就这样|就这些|先这些|好了|对了|哎呀?|唉|嗯+|啊+)[吧吧啊。！!]*$"
)
OURS = re.compile(
    r"\bour (?:sko|sales kick-?off|kick-?off|offsite|all-hands|(?:new )?office|hq|company|"
    r"team (?:offsite|dinner|event|outing))\b|\bsales kick-?off\b|"
    r"(?:我们公司|我司)(?!的?(?:方案|产品|报价|系统|平台|软件|演示|demo|案例))|我方(?:参会|人员|出席|区域|售前|销售|团队|老板|领导)|"
    r"(?:我们|公司)的?(?:年会|团建)",
    re.I,
)
"""Our own company's affairs (our kickoff, our office move, who came from our side),
read folded; what we promised the customer ("我方: 周五前开demo账号给他") is not one."""
_TITLE = re.compile(
    r"^[\w .&'’-]{2,40}[,，–—-]\s*\d{1,2}/\d{1,2}(?:/\d{2,4})?$|\bactivity\s*[:：|]|"
    r"^[\w .&'’-]{2,40}[–—:-]\s*(?:call |visit |meeting |prep )?(?:notes|recap|summary|memo)$",
    re.I,
)
"""A note's title line ("Northwind Freight, 11/16", "Harbor Analytics call recap",
"Account: Kestrel Energy | Activity: On-site visit | Date: 11/10/2026")."""
_GREETING = re.compile(
    r"^(?:hi|hello|hey|dear|thanks|thank you|best|regards|cheers|morning|perfect|great|exactly|"
    r"yes|no|nah|sure|ok|okay|sounds good)\b|^(?:谢谢|感谢|你好|您好|好的|收到|辛苦|不用了)"
    r"|^[\u4e00-\u9fff]{1,4}(?:总|经理|工|老师|主任|先生|女士|小姐)?(?:您好|你好)[!！,，。]*$",
    re.I,
)
"""A letter's or a chat's courtesy ("Thanks for the session last week", "感谢上周的演示",
"王经理您好")."""


_WEATHER = re.compile(
    r"\b(?:rain\w*|pouring|snow\w*|storms?|typhoon|heat ?wave|traffic|weather|jet ?lag)\b|"
    r"下雨|雨好大|大雨|暴雨|下雪|台风|天气|堵车|塞车|好热|好冷",
    re.I,
)
"""The weather or the road on the salesperson's day, in a short clause with no figure."""


def skip(clause: str, *, labelled: bool = False) -> bool:
    """True when ``clause`` says nothing about the customer (see the module).
    ``labelled``: the clause follows a label ("HQ: Rotterdam"), which says what its one
    word is; a name alone ("ServiceTitan") or a figure ("22間") states something too."""
    word = clause.strip().rstrip(".")
    named = labelled or bool(re.fullmatch(r"[A-Z]\w*[A-Z]\w*|[A-Z]{2,}\d*", word))
    short = (len(clause) < 4 and not re.search(r"[\u4e00-\u9fff]{3}|\d", clause) and not named) or (
        bool(re.fullmatch(r"[A-Za-z]+", word)) and not named
    )
    # one word alone ("curr", "notes") states nothing
    courtesy = bool(_GREETING.search(clause)) and len(clause.split()) <= 6 and len(clause) <= 40
    folded = fold(clause)
    words = re.findall(r"[a-z']+", folded.lower())
    filler = (
        bool(words) and set(words) <= _FILLER and not re.search(r"[\u4e00-\u9fff\d]", folded)
    ) or bool(_FILLER_ZH.match(folded.strip(" ，,。.!！")))
    return (
        short
        or courtesy
        or filler
        or chatter(clause)
        or _nothing(clause)
        or bool(_HEADER.search(folded) or _TITLE.search(clause))
        or bool(OURS.search(folded))
        or own_affair(folded)
        or (
            bool(_WEATHER.search(folded))
            and not re.search(r"\d", folded)
            and len(folded.split()) <= 8
            and len(folded) <= 40
        )
    )


_WHEN = re.compile(
    r"\b(?:date|time|when|on|at|from|to|am|pm)\b|日期|时间|時間|上午|下午|晚上|早上|[\d:：~～\-–—/.,，()（）\s]",
    re.I,
)


def only_a_date(clause: str) -> bool:
    """A clause that is a date and nothing else ("12 May", "时间：2026年11月3日 14:00-16:00"):
    a visit log's stamp, no fact; or only what a date is not ("签约时间不是3月15号": the
    correction it belongs to is the rules'). Read on the text sent to the model, so a date
    that finishes its sentence ("Demo moved, 下周三") still goes with it."""
    hits = find_dates(clause, ANY_DAY)
    if not hits:
        return False
    if re.fullmatch(
        r"[\u4e00-\u9fff]{0,8}(?:不是|并非|不在)[^，,。；;]{1,16}", clause.strip(" 。.")
    ):
        return True
    rest = clause
    for h in sorted(hits, key=lambda h: -h.start):
        rest = rest[: h.start] + " " + rest[h.end :]
    return not _WHEN.sub("", rest).strip()


def _words(text: str) -> set[str]:
    """Latin words (lower case), digits runs and CJK characters of a text."""
    t = unicodedata.normalize("NFKC", text).lower()
    return set(re.findall(r"[a-z0-9]+|[\u4e00-\u9fff]", t))


_AGAIN = frozenset(
    re.findall(
        r"\S+",
        "as like i said mentioned before again still reminder just so you know also and the a "
        "之 前 说 过 再 次 提 醒 还 是 仍 然 也 就 像 我",
    )
)
"""Words a restatement adds to what was said ("As I said, ...", "再提醒一下, ...")."""


def said_before(line: str, earlier: str) -> bool:
    """A line every word (every character, in Chinese) of which an earlier message of
    the session already holds, but for "as I said"-like words: the job that read that
    message read this, and the model would only write its fact a second time in other
    words ("Like I said, drivers still carry paper logs"). A line with any new word
    ("Li Wei is the CEO now") is new."""
    words = _words(line) - _AGAIN
    return bool(earlier) and len(words) >= 2 and words <= _words(earlier)
