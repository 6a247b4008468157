"""Rules that turn explicit user statements into a working-memory patch (EN + ZH).

A rule fires on one sentence of the user's message. It is deliberately
conservative: questions, hypotheticals ("if we had the money we'd buy three",
"假如预算够的话") and small talk are skipped, because a wrong must-keep slot is
repeated in every later prompt. Specific keys (budget, deadline, order number,
...) come first; a sentence that only matches a generic cue (must / prefer /
goal / to-do) gets a key derived from its words. A correction ("actually",
"其实", "不是…而是") that names no known key replaces the most recently
updated slot.
"""

from __future__ import annotations

import re

from memagent.memory.working_memory import Category, Patch, SlotOp, WorkingMemory, slot_key

_I = re.IGNORECASE
_NUM_ZH = r"[\d一二三四五六七八九十百千两]"

# (category, key, exclusive group, pattern). Within a group the first match wins.
SPECIFIC: list[tuple[Category, str, str, re.Pattern[str]]] = [
    (
        "constraints",
        "length_limit",
        "length",
        re.compile(
            r"\b(?:under|below|at most|no more than|max(?:imum)?(?: of)?|within|less than|"
            r"fewer than|shorter than|no longer than)\s+\d[\d,]*\s*(?:words?|pages?|slides?|"
            r"characters?|minutes?|lines?|bullets?)\b|(?:不超过|不要超过|控制在|最多|少于|不多于)\s*"
            rf"{_NUM_ZH}+\s*(?:个)?(?:字|页|张|分钟|行|条)",
            _I,
        ),
    ),
    ("constraints", "budget", "money", re.compile(r"\bbudget\b|预算", _I)),
    ("constraints", "discount", "money", re.compile(r"\bdiscount\b|折扣|优惠", _I)),
    (
        "constraints",
        "deadline",
        "time",
        re.compile(
            r"\b(?:deadline|due (?:date|by|on)|no later than|(?:done|ready|signed|delivered|"
            r"live) by)\b|截止|最晚|之前(?:完成|交付|签|上线|给)",
            _I,
        ),
    ),
    (
        "preferences",
        "language",
        "language",
        re.compile(
            r"\b(?:in|use|write in|reply in|answer in)\s+(?:English|Chinese|German|French|"
            r"Spanish|Japanese|Mandarin)\b|用(?:中文|英文|英语|德语|日语)",
            _I,
        ),
    ),
    (
        "facts",
        "order_number",
        "order",
        re.compile(
            r"\b(?:PO|SO|ORD|INV|PR)[-#]?\d{3,}\b|\border\s*(?:number|no\.?|#)\s*(?:is\s+)?[:#]?\s*[\w-]{3,}"
            r"|订单号",
            _I,
        ),
    ),
    (
        "facts",
        "quantity",
        "quantity",
        re.compile(
            r"\b\d[\d,]*\s+(?:seats?|licen[cs]es?|units?|users?|servers?|devices?|laptops?|"
            r"machines?|nodes?|sites?|stores?)\b|"
            rf"{_NUM_ZH}+\s*(?:个|台|套|位|名|份|家)\s*(?:许可|用户|席位|服务器|设备|账号|笔记本|门店|站点)",
            _I,
        ),
    ),
    (
        "facts",
        "contact",
        "contact",
        re.compile(
            r"\b(?:contact|decision[- ]maker|champion|signatory|point of contact)\b[^.]{0,30}"
            r"\b(?:is|will be)\b\s+[A-Z]|\b(?:CFO|CTO|CEO|CIO|COO|procurement lead|head of "
            r"\w+)\b(?:,| is)\s+[A-Z][a-z]+|(?:联系人|对接人|决策人|负责人|签字人)(?:是|为)",
            _I,
        ),
    ),
    (
        "facts",
        "meeting",
        "time",
        re.compile(
            r"\b(?:meeting|demo|call|visit|workshop|presentation|kick-?off)\b[^.]{0,40}"
            r"\b(?:on|at|is|moved to|scheduled|set for)\b|(?:会议|演示|拜访|电话会|见面)",
            _I,
        ),
    ),
    (
        "facts",
        "contract_term",
        "term",
        re.compile(
            r"\b\d+[- ](?:year|month)s?\b[^.]{0,20}\b(?:contract|term|subscription|deal|"
            r"agreement)\b|合同期|签\s*"
            + _NUM_ZH
            + r"+\s*年|"
            + _NUM_ZH
            + r"+\s*年(?:的)?(?:合同|期)",
            _I,
        ),
    ),
    (
        "facts",
        "price",
        "money",
        re.compile(
            r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:k|USD|EUR|RMB|dollars|euros)\b|\d+(?:\.\d+)?\s*(?:万|元|美元|欧元)",
            _I,
        ),
    ),
]

GENERIC: list[tuple[Category, re.Pattern[str]]] = [
    (
        "todos",
        re.compile(
            r"\b(?:remind me (?:to|about)|to-?do|follow[- ]up|don't forget|do not forget|please (?:send|"
            r"prepare|draft|schedule|book|email|call)|(?:can|could) you (?:send|prepare|draft|"
            r"schedule|book)|i need to (?:send|call|email|prepare)|next step)\b|"
            r"提醒我|记得|待办|跟进|请(?:发|准备|安排|起草|预约)|下一步",
            _I,
        ),
    ),
    (
        "preferences",
        re.compile(
            r"\b(?:prefers?|preferred|would rather|likes?|favou?rs?)\b|喜欢|偏好|更倾向|倾向于|更愿意",
            _I,
        ),
    ),
    (
        "goals",
        re.compile(
            r"\b(?:our goal|the goal|objective|we want to|we aim to|we're trying to|we are trying "
            r"to|looking to|we plan to|main priority)\b|目标是|我们想|打算|计划",
            _I,
        ),
    ),
    (
        "constraints",
        re.compile(
            r"\b(?:always|never|must|mustn't|don't|do not|make sure|only)\b|必须|一定要|不要|不能|务必|只能",
            _I,
        ),
    ),
]

TASK = re.compile(
    r"\b(?:we are|we're|i am|i'm|currently) (?:working on|preparing|drafting|putting together|"
    r"negotiating)\b|\bcurrent task\b|(?:正在|目前在|现在在)(?:准备|做|起草|处理|谈)",
    _I,
)
TASK_DONE = re.compile(
    r"\b(?:task (?:is )?(?:done|complete|finished)|(?:deal|contract) (?:is )?(?:closed|signed)|"
    r"we(?:'re| are) done with|that's done|proposal (?:is |was )?(?:sent|done))\b|"
    r"任务完成|搞定了|已签约|已经签约|签完了|已经发出|完成了",
    _I,
)
HYPOTHETICAL = re.compile(
    r"\b(?:if (?:we|i|they|you|he|she|it) (?:had|were|could|did|got)|if only|suppose|supposing|"
    r"imagine|hypothetically|what if|in theory|were to|in an ideal world|in a perfect world|"
    r"would be nice)\b|假如|假设|要是|如果.{0,12}(?:的话|就好了)|如果我们有|理论上|万一|想象一下",
    _I,
)
CHIT_CHAT = re.compile(
    r"\b(?:weather|weekend|holiday|vacation|football|soccer|coffee|lunch|dinner|how are you|"
    r"how's it going|haha|lol|good morning|good night|don't worry|no worries|thanks|thank you)\b|"
    r"天气|周末|假期|哈哈|吃饭|午饭|晚饭|咖啡|足球|你好吗|早上好|别担心|没关系|谢谢",
    _I,
)
CORRECTION = re.compile(
    r"\b(?:actually|correction|i meant|scratch that|make (?:that|it)|instead of|changed? to|"
    r"update:)\b|\bnot\b.{1,30}\bbut\b|其实|更正|纠正|不对|不是.{1,20}而是|改成|改为|改一下|说错了",
    _I,
)
REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:look up|find|check|show|tell me|draft|write|summari[sz]e|give me|"
    r"list|compare|explain|search|pull up|what|how|why|who|when|where|which)\b|"
    r"^\s*(?:请)?(?:查一下|帮我|在CRM里查|给我|总结|列一个|起草|解释|比较|搜索)",
    _I,
)
ASKING = re.compile(
    r"^\s*(?:what|how|why|who|when|where|which|should|shall|is|are|do|does|did)\b|"
    r"什么|怎么|为什么|哪|谁|要不要|该不该|是否|吗[？?]$|呢[？?]$",
    _I,
)
KEEP_ASKED = re.compile(r"\b(?:remind me|don't forget|do not forget)\b|提醒我|记得|别忘了", _I)
_SENTENCE = re.compile(r"[^.!?。！？；;\n]+(?:[.!?。！？；;]|$)")
_BUSINESS = re.compile(r"\d|\b(?:order|budget|contract|deal|price|quote)\b|订单|预算|合同|报价", _I)
MAX_VALUE = 160


def sentences(text: str) -> list[str]:
    """Sentences of ``text``; a period between digits (``1.5``) does not end one."""
    protected = re.sub(r"(?<=\d)\.(?=\d)", "\u2024", text)
    return [s.strip().replace("\u2024", ".") for s in _SENTENCE.findall(protected) if s.strip()]


_STOP = frozenset(
    {"the", "and", "can", "you", "could", "please", "our", "for", "with", "that", "this"}
    | {"are", "will", "would", "should", "your", "they", "them", "their", "its", "has"}
    | {"have", "had", "all", "any", "also", "just", "make", "sure"}
)


def _generic_key(category: Category, sentence: str) -> str:
    words = [w[:20] for w in re.findall(r"[A-Za-z]{3,}", sentence.lower()) if w not in _STOP]
    if words:
        label = category[:-1] if category.endswith("s") else category
        return slot_key(f"{label}:" + "-".join(words[:4]))
    han = "".join(re.findall(r"[\u4e00-\u9fff]", sentence))[:6]
    return slot_key(f"{category}:{han or 'note'}")


def _skip(sentence: str) -> bool:
    if HYPOTHETICAL.search(sentence):
        return True
    if REQUEST.search(sentence) and not GENERIC[0][1].search(sentence):
        return True  # a request for this turn, not a fact to keep
    if sentence.endswith(("?", "？")):
        if not GENERIC[0][1].search(sentence):
            return True
        if ASKING.search(sentence) and not KEEP_ASKED.search(sentence):
            return True  # "What is a good next step?" asks for advice; it is no to-do
    return bool(CHIT_CHAT.search(sentence)) and not _BUSINESS.search(sentence)


def _latest_key(wm: WorkingMemory | None) -> tuple[Category, str] | None:
    if wm is None:
        return None
    slots = [(s.updated_at, s.turn, c, k) for c, k, s in wm.slots() if c != "task_state"]
    if not slots:
        return None
    _, _, category, key = max(slots)
    return category, key  # type: ignore[return-value]


def rules_patch(text: str, *, turn: int, current: WorkingMemory | None = None) -> Patch:
    """The patch that the explicit statements in one user message imply."""
    ops: list[SlotOp] = []
    for sentence in sentences(text):
        if _skip(sentence):
            continue
        value = sentence[:MAX_VALUE]
        corrected = bool(CORRECTION.search(sentence))
        if TASK_DONE.search(sentence):
            ops.append(SlotOp(op="remove", category="task_state", key="task"))
            continue
        if TASK.search(sentence):
            ops.append(SlotOp(category="task_state", key="task", value=value))
        groups: set[str] = set()
        for category, key, group, pattern in SPECIFIC:
            if group not in groups and pattern.search(sentence):
                groups.add(group)
                ops.append(SlotOp(category=category, key=key, value=value, corrected=corrected))
        if groups:
            continue
        for category, pattern in GENERIC:
            if pattern.search(sentence):
                key = _generic_key(category, sentence)
                ops.append(SlotOp(category=category, key=key, value=value, corrected=corrected))
                break
        else:
            latest = _latest_key(current) if corrected else None
            if latest:
                ops.append(SlotOp(category=latest[0], key=latest[1], value=value, corrected=True))
    return Patch.bounded(ops, turn=turn, source="rules")
