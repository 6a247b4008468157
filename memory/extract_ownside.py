"""The salesperson's own affairs: a sentence about our side, not about the customer.

Notes mix the account with the writer's own life and company: their leave or trip
("I'm off skiing from Nov 2", "我下周请假去日本"), a colleague's absence ("our Sarah is on
leave till the 26th", "my manager is on vacation"), their company's discount policy,
launch or list prices ("Our new pricing policy kicks in Monday", "我们公司新的折扣政策"),
their bonus or quota progress ("我的指标是800万，已经签了520万"). Stored, they read as the
customer's dates, prices and people.

A sentence is judged whole, before it is cut into clauses, so its second half ("so
approvals will be slow", "已经签了520万") goes with its first. It is our own affair when
its subject is our side (I, my manager, our colleague, our company, marketing, 我, 我们
公司, 老板) and what it says of that subject is one of our own matters (time off, travel,
our pricing or discount policy, a launch, list prices, bonus, quota, team events), or
when it is a holiday said with no subject at all ("周末在厦门玩"). A promise to the
customer ("I promised their CIO a sandbox", "我答应下周给他们方案") is neither, and stays.
Pure functions.
"""

from __future__ import annotations

import re

from memagent.memory.extract_script import fold

_OUR_SUBJECT = re.compile(
    r"\b(?:i|i'm|i am|i'll|i've|i'd|me|my|myself|our (?!client|customer|prospect|champion|contact|"
    r"sponsor|guy|buyer)[\w-]+|we(?:'re| are)?|\w+ from our (?:team|side|company)|marketing|product|"
    r"(?:the )?company|hq|management|my boss)\b"
    r"|我(?!们的客户)|我们公司|我司|公司(?:规定|政策|里|内部)|老板|领导|经理说|同事|市场部|产品部",
    re.I,
)

_OWN_MATTER = re.compile(
    r"\b(?:vacation|holidays?(?! freeze)|on leave|(?:parental|paternity|maternity|sick|annual) leave|"
    r"pto|time off|(?:day|days|week|weeks) off|off (?:from|till|until|next|this|for)|out of (?:the )?office|"
    r"skiing|hiking|honeymoon|wedding|"
    r"(?:pricing|discount|price|commission|travel|expense) polic(?:y|ies)|list prices?|price list|"
    r"(?:marketing|product|we)(?:'re| are| is)? (?:launching|releasing|shipping)|quota|commission|"
    r"bonus(?:es)?|spiff|my (?:q[1-4] |sales |annual |quarterly )?target|our (?:q[1-4]|sales|annual|quarterly) target|(?:i'?m|i am) at \d+%|"
    r"offsite|off-site|team[- ]building|kick-?off meeting for sales)\b"
    r"|请假|休假|年假|病假|产假|陪产假|度假|旅游|出去玩|去[\u4e00-\u9fff]{1,4}玩|团建|年会|"
    r"折扣政策|价格政策|定价政策|报价政策|目录价|涨价|调价|奖金|提成|指标|业绩|发布会|新版本上线|"
    r"(?:政策|规定)[^。.]{0,30}折",
    re.I,
)

_CUSTOMER_ACT = re.compile(
    r"\b(?:promised|promise|owe|send(?:ing)?|sent|deliver(?:ing)?|they|their|them|client|customer)\b"
    r"|他们|客户|对方|答应|承诺|给(?:他|她)(?!们)",
    re.I,
)
"""Something done for the customer, or said of them: the sentence is read clause by clause."""

_BARE_LEISURE = re.compile(
    r"^(?:(?:周末|这周末|上周末|假期|国庆|春节|五一|today|this weekend|over the weekend)[，,\s]*)?"
    r"(?:在[\u4e00-\u9fff]{1,4}玩|去[\u4e00-\u9fff]{1,4}(?:玩|旅游|度假)|heading to .{0,30}\b(?:hiking|skiing|holiday))",
    re.I,
)

NOT_FOR_AN_ACCOUNT = re.compile(
    r"\bnot (?:for|about) (?:any|an|a|the) (?:account|customer|client|deal)\b|"
    r"\bnothing to do with (?:any|an|the) (?:account|customer|client)\b|"
    r"跟客户无关|和客户无关|与客户无关|不是客户的事|不关客户的事",
    re.I,
)
"""The writer says the message is about no account."""


_PLAINLY_OURS = re.compile(
    r"\b(?:my|our) (?:q[1-4] |new |sales )?(?:quota|commission|bonus|pricing policy|price list|"
    r"list prices?)\b|\bmy (?:q[1-4] |new |sales )?target\b|"
    r"\b(?:i'?m|i am) at \d+%|\b(?:mostly for me|not for any account)\b|"
    r"\blist prices? go(?:es)? up\b|\bmarketing is launching\b|\bi'?m covering (?:his|her) accounts\b|"
    r"我的?(?:指标|业绩|提成|奖金)|我(?:这个|这)?季度|"
    r"同事.{0,6}(?:请假|休假|年假)|业绩前|有奖金|(?:我们|我司|公司)的?新政策|"
    r"(?:政策|规定)[^。.]{0,30}折",
    re.I,
)
"""Our own matters that say so whatever else the sentence holds (our quota and where I
stand on it, our new policy or discount rule, list prices, a colleague's leave): a
customer in it is only who the policy is for ("年底前签约的客户可以打八五折")."""


def own_affair(sentence: str) -> bool:
    """Whether ``sentence`` is about the writer's own side and not the customer (read
    folded: "公司規定" is "公司规定"). The one detector of the rules and of the hybrid
    extractor, which never sends such a sentence to the model."""
    sentence = fold(sentence)
    if _PLAINLY_OURS.search(sentence):
        return True
    if _BARE_LEISURE.search(sentence.strip()):
        return True
    if not (_OUR_SUBJECT.search(sentence) and _OWN_MATTER.search(sentence)):
        return False
    # "I'm on leave next week so their demo moves to the 20th": it still says something
    # of the customer, and its clauses are read one by one
    return not _CUSTOMER_ACT.search(sentence)
