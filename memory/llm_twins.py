"""Whether a model fact restates a rule fact in other words, units or scripts, for the
hybrid LLM extractor's final dedupe.

The rules write "石基: PMS." and the model's line is "PMS是石基的"; the rules write
"Budget: 300万" and the model's line says "about 3 million": one fact, two memories.
A model fact is a restatement when everything it holds is in the rule fact already:
its amounts as values (300万 = 3 million = 3,000,000), its other figures, its Latin
words past a few grammatical ones, and (nearly) all its Chinese characters past a few
particles, read as simplified. A fact that adds one word of its own ("he's skeptical"
beside "Greg Paulsen: CFO.") is not one. Pure functions.
"""

from __future__ import annotations

import re
import unicodedata

from memagent.memory.extract_amounts import parse_amounts
from memagent.memory.extract_script import fold

_GRAMMAR = frozenset(
    re.findall(
        r"\S+",
        "a an the is are was were be been it its it's they they're their them he she his her "
        "he's she's we our us of to in on at for with by from and or but so that this which who "
        "has have had do does did will would can could also just about around approx roughly "
        "s re ve ll d",
    )
)
_PARTICLES = frozenset("的是了在有和与及也都说就还很把被这那个为")
_LABELS = re.compile(
    r"\b(?:budget|deadline|competitor|requirements?|current system|contact preference|"
    r"stakeholder|pain point|next steps?|deal stage|incumbent|approx\.?|about|roughly|around|"
    r"ca\.?)\b|预算|截止|竞品|竞争对手|需求|要求|现有系统|现用系统|痛点|下一步|联系偏好|"
    r"大概|大约|约|左右|差不多|上下",
)
"""Words that name a kind of fact or hedge a figure, in either language: a fact said
under "Budget:" and one said with "预算" are the same fact."""
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SHARE = 0.9
"""Least share of the model fact's Chinese characters the rule fact must hold."""


def _amounts(text: str) -> tuple[set[int], str]:
    """The text's amounts as values, and the text without them."""
    values: set[int] = set()
    rest = text
    for amount in parse_amounts(text):
        values.add(amount.value)
        rest = rest.replace(amount.surface, " ") if amount.surface else rest
    return values, rest


def _content(text: str) -> tuple[set[int], set[str], set[str], list[str]]:
    """Amount values, other figures, Latin words and Chinese characters of a text."""
    text = fold(unicodedata.normalize("NFKC", text)).lower()
    values, rest = _amounts(text)
    rest = _LABELS.sub(" ", rest)
    figures = set(re.findall(r"\d+(?:\.\d+)?", rest))
    words = set(re.findall(r"[a-z][a-z'’]+", rest)) - _GRAMMAR
    hanzi = [ch for ch in _CJK.findall(rest) if ch not in _PARTICLES]
    return values, figures, words, hanzi


def restates(model_fact: str, rule_fact: str) -> bool:
    """Whether ``model_fact`` holds nothing ``rule_fact`` does not (see the module); a
    fact with no amount, figure, word or character of substance restates nothing."""
    values, figures, words, hanzi = _content(model_fact)
    if not (values or figures or words or len(hanzi) >= 2):
        return False
    r_values, r_figures, r_words, r_hanzi = _content(rule_fact)
    held = r_figures | {str(v) for v in r_values}
    if values - r_values - {int(f) for f in r_figures if f.isdigit()}:
        return False
    if figures - held:
        return False
    if words - r_words:
        return False
    return not hanzi or sum(ch in r_hanzi for ch in hanzi) / len(hanzi) >= _SHARE


_FULL_NAME = re.compile(r"(?<![\w'’])[A-Z][a-zà-ÿ][\w'’-]*(?:\s+[A-Z][a-zà-ÿ][\w'’-]*)+")
"""Two or more title-case words in a row: a person's full name ("Kylie Tran")."""
_NOT_NAMES = frozenset(
    re.findall(
        r"\S+",
        "met met with call called spoke talked contact contacts attendees present participants "
        "and also then he she they their his her our we the a an mr ms mrs dr prof me",
    )
)


def names_more(model_fact: str, rule_fact: str) -> bool:
    """Whether ``model_fact`` names someone ``rule_fact`` does not: a full name with a
    word of its own ("Met Kylie Tran (Manager, Infrastructure Services)" beside the
    rules' "Infrastructure Services: Manager."; "… and her deputy Marcus Yeo" beside
    "Olivia Brennan: Head of Retail Ops."). Such a fact is about another person, not a
    twin; a place ("at the Monterrey site") is no one."""
    said = unicodedata.normalize("NFKC", rule_fact).lower()
    return any(
        w.lower() not in said and w.lower() not in _NOT_NAMES
        for name in _FULL_NAME.findall(unicodedata.normalize("NFKC", model_fact))
        for w in name.split()
    )
