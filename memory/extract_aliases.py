"""A person named in full once and by a short form afterwards.

Notes name a stakeholder in full with their role once ("Brian Foley, he's VP of
Lending", "总经理蔡明哲") and then by first name, surname or title ("Brian is actually
SVP", "Mr Foley", "蔡总比较保守", "吴厂长习惯用LINE"). Each short form that can only mean
one of the people already named is written out as their full name, so the memory says
who it is about and is versioned under the same person. A statement's role fact is
left out when another of its memories already names the person with that role.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memagent.memory.write_path import Candidate

_ZH_HONORIFICS = (
    "总经理|总监|总裁|总|主任|经理|厂长|处长|部长|科长|院长|局长|校长|董|老师|工|财务长|执行长|律师|医生|教授|书记|"
    "先生|小姐|女士|生|姐|哥"
)
_ZH_SHORT = re.compile(r"(?:老|小)?(?P<s>[\u4e00-\u9fff])(?P<t>" + _ZH_HONORIFICS + r")")
_EN_TITLE = re.compile(r"\b(?:Mr|Ms|Mrs|Dr)\.?\s+(?P<w>[A-Z][\w'’-]+)")
_EN_WORD = re.compile(r"(?<![\w'’.-])(?P<w>[A-Z][a-zß-öø-ÿ'’-]{2,})\b(?! [A-Z][a-z])")


def _unique(candidates: list[str]) -> str | None:
    found = list(dict.fromkeys(candidates))
    return found[0] if len(found) == 1 else None


def with_full_names(text: str, names: Sequence[str]) -> str:
    """``text`` with each short form of exactly one of ``names`` written as that full name
    (a name the text already writes in full is left alone: "Hannah Lee: Hannah sends ...")."""
    en = [n for n in names if " " in n and n not in text]
    zh = [n for n in names if re.fullmatch(r"[\u4e00-\u9fff]{2,4}", n) and n not in text]
    if zh:
        text = _ZH_SHORT.sub(lambda m: _zh(m, text, zh), text)
    if en:
        text = _EN_TITLE.sub(lambda m: _en(m, en, titled=True, whole=True), text)
        text = _EN_WORD.sub(lambda m: _en(m, en, titled=False), text)
    return text


def _zh(m: re.Match[str], text: str, names: list[str]) -> str:
    full = _unique([n for n in names if n[0] == m.group("s")])
    if full is None or text.startswith(full, m.start("s")):
        return m.group(0)  # "蔡明哲" itself, or two people of one surname
    if (
        m.group("t") in ("生", "工", "董", "姐", "哥")
        and len(m.group(0)) == 2
        and not _short_only(m)
    ):
        return m.group(0)
    return full


def _short_only(m: re.Match[str]) -> bool:
    """A one-character title right after a surname is a name only when a word boundary
    follows ("陈生喜欢", "王工说"): "陈生产线" is not Mr Chen."""
    rest = m.string[m.end() : m.end() + 2]
    return bool(
        re.match(
            r"(?:说|喜欢|习惯|希望|觉得|认为|表示|要|也|比较|很|那边|[，。、；,:：\s]|$)", rest
        )
    )


def _en(m: re.Match[str], names: list[str], *, titled: bool, whole: bool = False) -> str:
    word = m.group("w")
    words = [n.replace("Dr. ", "").split() for n in names]
    if titled:
        full = _unique([n for n, w in zip(names, words, strict=True) if w[-1] == word])
    else:
        full = _unique([n for n, w in zip(names, words, strict=True) if word in (w[0], w[-1])])
    if whole and full is not None:
        return full  # "Mr Foley" -> "Brian Foley"
    before = m.string[: m.start()]
    if (
        full is None
        or re.search(r"[A-Z][\w'’.-]*\s$", before)
        or m.string.startswith(full, m.start())
    ):
        return m.group(0)  # part of a full name already ("Brian Foley", "Mr Foley")
    return full


def without_restated_roles(found: list[Candidate], label: str) -> list[Candidate]:
    """A person's role fact is left out when another memory of the same statement already
    names them with that role ("Ben Ortiz, analytics lead, is our biggest fan", "对接人：张敏，
    数字化中心总监，态度积极"), or when the decision-maker memory of the statement names them
    with it ("Their CTO Li Wei is the decision maker", "老板李总（CEO）拍板"): one memory per
    person. A budget that names the person does not stand in for it; the decision maker
    may be superseded, and the write path then keeps the former one's role
    (``write_roles``). A request to the assistant keeps only who a person is ("Help me write
    to their CFO Maria Santos"), not what it asks for ("Draft an email to Wang Fang ...")."""
    out = []
    for c in found:
        if label == "request" and not c.attribute.endswith(":role"):
            continue
        if c.attribute.endswith(":role") and c.value:
            name = re.split(r"[:：]", c.content)[0].strip().lower()
            role = c.value.lower()
            if any(o is not c and (o.attribute.startswith("stakeholder:")
                                   or o.attribute == "decision_maker")
                   and name in o.content.lower() and role in o.content.lower()
                   for o in found):  # fmt: skip
                continue
        out.append(c)
    return out
