"""Rule-based extraction of explicit, stable statements (English and Chinese).

Pure functions over text. Each user sentence is read twice and merged into one
candidate per clause: by the sales rules (``extract_sales``: stakeholders, budget,
dates, requirements, incumbent, competitors, contact preferences, pain points, commitments,
deal stage, keyed by subject) and by the older detectors (``extract_detectors``), which
lend their single-valued keys (budget, decision maker, seats, team size) and the "from now
on / 以后都 / 不要" preferences. Questions, hypotheticals, jokes and messages the user says not to keep are skipped. "About"/"大概" is an approximate value, not
doubt; only what the speaker marks as uncertain ("maybe", "可能") gets a low
confidence, so the write path holds it until a second mention. A correction ("no,
it's 3 million" / "不对，是300万") is tied to the attribute the conversation was about. Dates
are resolved against each message's own time; a private aside is dropped (``extract_asides``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memagent.core.types import Turn
from memagent.memory.extract_aliases import with_full_names, without_restated_roles
from memagent.memory.extract_amounts import CN_NUM, cn_to_int, parse_amount, parse_amounts
from memagent.memory.extract_asides import without_asides, without_private_asides
from memagent.memory.extract_clauses import dictated_pieces
from memagent.memory.extract_corrections import (
    CORRECTS,
    REPLACED,
    current_amount,
    old_values,
    replaced_by_new,
    retracts_previous,
)
from memagent.memory.extract_cues import ASIDE, BUDGET_WORDS, DECIDES, OUR_SIDE, REQUEST
from memagent.memory.extract_dates import find_dates, reference_time
from memagent.memory.extract_detectors import (
    _BUDGET,
    _CORRECTION,
    _DATE,
    _DEADLINE,
    _SEATS,
    _clip,
    _lang,
    _sentence_candidates,
    clean_statement,
)
from memagent.memory.extract_entities import introduced_names, known_names, last_person
from memagent.memory.extract_hedges import is_uncertain
from memagent.memory.extract_keys import dated_event, event_of
from memagent.memory.extract_lowercase import capitalised_names
from memagent.memory.extract_ownside import own_affair
from memagent.memory.extract_recount import recounted
from memagent.memory.extract_retaken import TAKEN_BACK, TurnRetaken
from memagent.memory.extract_sales import (
    SalesFact,
    content_key,
)
from memagent.memory.extract_script import Script
from memagent.memory.extract_shorthand import expand_shorthand, join_signatures, without_jokes
from memagent.memory.extract_statement import as_sender, asked_of_us, email_sender, statement_facts
from memagent.memory.extract_switch import with_switch
from memagent.memory.extract_transcript import without_chat_stamps
from memagent.memory.write_path import Candidate
from memagent.memory.write_retract import RETRACTION

__all__ = ["cn_to_int", "parse_amount", "extract_rules", "user_sentences", "clean_statement"]

_CN_NUM = CN_NUM

_ABBREVIATIONS = ("Dr", "Mr", "Ms", "Mrs", "vs", "incl", "approx", "etc", "Inc", "Ltd", "Co", "Dir",
                  "Dept", "No", "St", "Jr", "Sr", "Approx", "Incl", "Est", "est", "Etc", "Vs", "Mgr", "mgr",
                  "ca", "Ca", "Mio", "Mrd", "Eng", "Engr", "Prof")  # fmt: skip
_SPLIT = re.compile(
    r"(?<=[。！？；\n])\s*|" + "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATIONS) + r"(?<=[.!?;])\s+"
    # "Budget £220k — actually she corrected herself: £250k": a correction after a dash
    r"|\s+[—–-]+\s+(?=(?:actually|correction)\b)"
    r"|\s*(?:——|—)\s*(?=(?:更正|纠正|不对|其实是|说错了))"
)
"""Sentence ends; "Dr. Helen", "Eng. Faisal", "Dir. of Engineering", "incl. implementation" and "1,3 Mio. EUR" go on;
and a dash before a correction ("£220k — actually … £250k")."""
_QUESTION = re.compile(r"[?？]\s*$|吗\s*[。！]?$|\b(?:can you|could you|do you|would you)\b", re.I)
_HYPOTHETICAL = re.compile(
    r"(?<!asked )(?<!asks )(?<!ask )(?<!check )(?<!see )(?<!wondering )(?<!know )(?<!whether )(?<!sure )"
    r"\b(?:if|suppose|supposing|imagine|hypothetically|what if|let's say|in theory|would be)\b"
    r"|如果|假如|假设|(?<![主就只还需重正不])要是|(?<![\d０-９零〇一二两三四五六七八九十百千])(?<![\d０-９]\s)万一|比如说|打个比方",
    re.I,
)
_REAL_CONDITION = re.compile(
    r"^(?!.*\b(?:would|could|might|were|ever|had|suppose|supposing|imagine|hypothetically|what if|"
    r"let's say|in theory|wonder(?:ing)?)\b|.*'d\b|.*[?？]|.*[\u4e00-\u9fff])(?=.*\bif\b).*\b(?:offered|offers|expects?|"
    r"plans?|will|reissue|extend|discount|approved|passes|signs?)\b",
    re.I,
)
"""An English condition on a real offer or plan ("offered a 25% discount if they sign before
year end", "If the levy passes, we expect to reissue the RFP in March"): a fact with its
condition, not a hypothetical. Any counterfactual word (would, could, 'd, ever, were)
keeps the sentence a hypothetical."""
_JOKE = re.compile(r"\b(?:just kidding|kidding|joking|lol|haha+|jk)\b|开玩笑|哈哈|逗你|说笑", re.I)


def _topic_of(turns: Sequence[Turn]) -> str | None:
    """The attribute the conversation was last about (for bare corrections)."""
    for t in reversed(turns):
        text = t.content
        quote = re.search(r"\bquot|\bbid\b|报价|竞品|对手", text, re.I)
        if _BUDGET.keyword.search(text) or (
            parse_amount(text) and t.role == "assistant" and not quote
        ):
            return "budget"
        if _DEADLINE.keyword.search(text) and _DATE.search(text):
            return "deadline"
        if _SEATS.keyword.search(text):
            return "seats"
    return None


_PIECE = re.compile(
    r"(?<=[,;，；])\s*|\s+(?=(?:and |but |so )?(?:if|unless|suppose|assuming)\b)|(?<=[\u4e00-\u9fff])(?=如果|假如|假设|万一|要是)",
    re.I,
)
_THEN = re.compile(
    r"^(?:then\b|we'?d\b|they'?d\b|it'?d\b|he'?d\b|she'?d\b|i'?d\b|.*\b(?:would|could|might)\b)"
    r"|^(?:那就|那么|那|则)|^[\u4e00-\u9fff]{0,6}(?:就|会|再|可以|能)",
    re.I,
)


def without_conditionals(sentence: str) -> str:
    """A run-on sentence of four or more pieces without its conditional piece ("and if it
    goes well the full rollout is about 2 million", "如果试点顺利明年再追加") and the
    consequence right after it; the sentence itself when it is shorter (a hypothetical
    through and through) or has nothing else left."""
    cuts = [0, *(m.end() for m in _PIECE.finditer(sentence)), len(sentence)]
    pieces = [sentence[a:b] for a, b in zip(cuts, cuts[1:], strict=False) if sentence[a:b].strip()]
    if len(pieces) < 4:
        return sentence
    kept, drop_next = [], False
    for p in pieces:
        body = re.sub(r"^(?:and|but|so|also)\s+", "", p.strip(" ,;，；"), flags=re.I)
        if _HYPOTHETICAL.search(body) and not _REAL_CONDITION.search(body):
            drop_next = True
            continue
        if drop_next and _THEN.search(body):
            continue
        drop_next = False
        kept.append(p)
    rest = "".join(kept).strip(" ,;，；")
    return rest if kept and len(kept) < len(pieces) else sentence


def sentence_label(sentences: Sequence[str], j: int) -> str:
    """Why sentence ``j`` of a message is not a statement (joke, question, request to
    the assistant, hypothetical), or "statement"."""
    s = sentences[j]
    if _JOKE.search(s) or (j + 1 < len(sentences) and _JOKE.match(sentences[j + 1])):
        # "Budget is a billion. Just kidding!": the joke marker voids its sentence
        # and, when it stands alone, the one before it.
        return "joke"
    if _QUESTION.search(s):
        return "question"
    if REQUEST.search(s):  # "Draft a short email to Wang Fang ...", "帮我给王芳写封邮件"
        return "request"
    if _HYPOTHETICAL.search(s) and not _REAL_CONDITION.search(s):
        return "hypothetical"
    return "statement"


def user_sentences(turns: Sequence[Turn]) -> list[tuple[str, str, bool]]:
    """(sentence, label, hedged) for every sentence the user wrote.

    The LLM extractor checks its items against these: a figure that only
    appears in a joke, a question or a hypothetical is not a memory, and one
    that only appears hedged gets a low confidence.
    """
    out = []
    for turn in turns:
        if turn.role != "user":
            continue
        sentences = [s.strip() for s in _SPLIT.split(turn.content) if s.strip()]
        for j, s in enumerate(sentences):
            out.append((s, sentence_label(sentences, j), is_uncertain(s)))
    return out


_TYPE = {"commitment": "commitment", "timeline": "commitment", "contact_preference": "preference",
         "deal_stage": "status"}  # fmt: skip
_IMPORTANCE = {"budget": 0.8, "timeline": 0.8, "commitment": 0.8, "deal_stage": 0.8,
               "stakeholder": 0.7, "requirement": 0.7, "competitor": 0.7, "contact_preference": 0.7,
               "pain_point": 0.6, "incumbent": 0.6, "amount": 0.5, "count": 0.5}  # fmt: skip
_OLD_TO_CATEGORY = {"budget": "budget", "decision_maker": "stakeholder", "current_vendor": "incumbent",
                    "contact_channel": "contact_preference", "contact_avoid": "contact_preference",
                    "seats": "count", "team_size": "count|profile", "deadline": "timeline"}  # fmt: skip


def _from_fact(f: SalesFact, turn: Turn, correction: bool) -> Candidate:
    conf = 0.5 if f.uncertain and not correction else (0.95 if correction else 0.9)
    return Candidate(
        content=_clip(f.content),
        type=_TYPE.get(f.category, "fact"),  # type: ignore[arg-type]
        entity="customer",
        attribute=f.attribute,
        value=f.value,
        importance=_IMPORTANCE.get(f.category, 0.6),
        confidence=conf,
        event_time=f.event_time,
        message_ids=[turn.id] if turn.id else [],
        correction=correction,
    )


def _mentions(fact: SalesFact, value: str | None) -> bool:
    """Whether a clause states ``value`` (a detector's value: "3000000", "50", "sarah")."""
    if not value:
        return False
    first = value.split()[0].lower()
    text = f"{fact.content} {fact.value or ''}".lower()
    return first in text or any(str(a.value) == first for a in parse_amounts(fact.content))


def _with_role(c: Candidate, facts: list[SalesFact]) -> Candidate:
    """A decision maker whose full name and role are in the statement's role fact
    ("决策人是他们的副总裁赵立新", "Priya Nair (COO) makes the final call"): one memory
    says all three."""
    role = next((f for f in facts if f.attribute.endswith(":role")
                 and re.split(r"[:：]", f.content)[0][:2].lower() in (c.value or "")),
                None)  # fmt: skip
    if role is None:
        return c
    name, title = (p.strip(" 。.") for p in re.split(r"[:：]", role.content, maxsplit=1))
    zh = _lang(name) == "zh"
    content = f"{name}是决策人（{title}）。" if zh else f"{name} is the decision maker ({title})."
    return c.model_copy(update={"value": name.lower(), "content": content})


def _merge(old: list[Candidate], facts: list[SalesFact], turn: Turn, correction: bool,
           ) -> list[Candidate]:  # fmt: skip
    """One candidate per clause: the sales fact, with the single-valued key and value of
    the detector that read the same clause (budget, decision maker, seats...)."""
    out = [_from_fact(f, turn, correction) for f in facts]
    cats = [f.category for f in facts]
    used: set[int] = set()
    for c in old:
        if c.attribute == "deadline" and any(k in ("timeline", "commitment") for k in cats):
            continue  # the sales rules key deadlines by their event
        if any(o.attribute == c.attribute for o in out):
            continue  # the sales rules read the same statement under the same key
        want = _OLD_TO_CATEGORY.get(c.attribute)
        fits = [i for i, k in enumerate(cats) if want and k in want.split("|") and i not in used
                and not out[i].attribute.endswith(":role")
                and (c.attribute != "decision_maker" or DECIDES.search(facts[i].content))]  # fmt: skip
        # a head count goes to the clause stating its figure ("学校位于高雄，学生约一万二千人")
        counts = c.attribute in ("seats", "team_size")
        idx = next((i for i in fits if not counts or _mentions(facts[i], c.value)),
                   None if counts and any(_mentions(f, c.value) for f in facts) else
                   next(iter(fits), None))  # fmt: skip
        dm = c.attribute == "decision_maker"
        if idx is None:
            idx = next((i for i, f in enumerate(facts) if i not in used and _mentions(f, c.value)
                        and not (dm and f.attribute.endswith(":role"))), None)  # fmt: skip
        if idx is None and dm:
            c = _with_role(c, facts)
        if idx is None:
            out.append(c)
            continue
        used.add(idx)
        target = out[idx]
        # "郭总只接受当面汇报，别发材料": a contact preference keeps its person's key
        standing = (
            c.type == "preference"
            and not c.attribute.startswith("contact")
            and not (c.attribute.startswith("pref_") and cats[idx] == "contact_preference")
        )
        if (
            standing
            or c.attribute in ("budget", "decision_maker", "seats", "team_size")
            or (c.attribute.startswith("contact") and ":customer:" in target.attribute)
        ):
            value = c.value if c.attribute != "budget" else (target.value or c.value)
            if c.attribute == "budget" and c.value and "approx" in c.value and value:
                value = value if "approx" in value else value + " approx"
            out[idx] = target.model_copy(
                update={
                    "attribute": c.attribute,
                    "value": value,
                    "confidence": min(c.confidence, 0.95) if not correction else c.confidence,
                }
            )
        elif c.attribute == "current_vendor" and c.value:
            out[idx] = target.model_copy(
                update={"attribute": f"current_vendor:{c.value[:40]}", "value": c.value}
            )
    return out


def _dated(c: Candidate, sentence: str, ref: datetime, moved: str | None = None) -> Candidate:
    """A deadline only the older detector read: keyed by its own content (deadlines are
    many per account) and valued by its absolute date. ``moved``: the deadline key the
    talk was about, when the sentence corrects a date without naming its event
    ("Correction: the deadline is October 1, not the 15th")."""
    if c.attribute != "deadline":
        return c
    dates = find_dates(sentence, ref)
    value = dates[-1].iso if dates else c.value
    if moved and c.correction and not event_of(c.content):
        key = moved  # no event of its own: the date the talk was about moves
    else:
        key = content_key("deadline", c.content)
    return c.model_copy(update={"attribute": key, "value": value})


def _named(c: Candidate) -> Candidate:
    """A budget whose clause does not say so ("Bad news: it's now 900k", "我看错了，是1500万")
    names it in its content, so it reads as a budget when recalled on its own."""
    if c.attribute != "budget" or BUDGET_WORDS.search(c.content):
        return c
    zh = _lang(c.content) == "zh"
    return c.model_copy(update={"content": _clip(("预算：" if zh else "Budget: ") + c.content)})


def _anchored(c: Candidate, olds: list[str]) -> Candidate:
    """A corrected figure whose clause names no attribute ("改一下，不是80万，是120万") carries
    the old value it replaces and its new value, so the write path versions the memory
    that holds the old one instead of storing a second, unkeyed figure."""
    if not olds or c.attribute.split(":")[0] not in ("amount", "count"):
        return c
    amounts = parse_amounts(c.content)
    new = str(current_amount(c.content, amounts).value) if amounts else c.value
    if not new:
        return c
    return c.model_copy(update={"replaces": olds[0], "value": new})


def _retraction(turn: Turn) -> Candidate:
    """The message takes back the one before it: the write path closes what that one
    left (``write_retract``), and nothing in this one is a fact."""
    ids = [turn.id] if turn.id else []
    return Candidate(content=_clip(turn.content), attribute=RETRACTION, confidence=0.95,
                     correction=True, message_ids=ids)  # fmt: skip


def extract_rules(turns: Sequence[Turn]) -> tuple[list[Candidate], list[str]]:
    """Candidates from the user turns, plus the reasons sentences were skipped.

    Dates are resolved against each message's own time (``Turn.at``); Traditional
    Chinese is read folded and its memories written back in the user's characters."""
    script = Script(turns)
    read = [replace(t, content=capitalised_names(without_private_asides(without_chat_stamps(
        t.content)))) if t.role == "user" else t for t in script.folded(turns)]  # fmt: skip
    cands, skipped = _extract(read)
    if script.traditional:
        cands = [c.model_copy(update={"content": script.restore(c.content)}) for c in cands]
    return cands, skipped


def _readable(turn: Turn, cands: list[Candidate], skipped: list[str]) -> Turn | None:
    """The turn to read for facts: none for a take-back (its retraction is added) or a
    message the user keeps out; else without its own-affairs asides ("…我下周一去上海开会，
    别记进去": that sentence goes, the rest is read)."""
    if retracts_previous(turn.content):  # "Scratch that, wrong account"
        cands.append(_retraction(turn))
        skipped.append("retraction")
        return None
    if (kept := without_asides(turn.content)) is None:
        skipped.append("not for memory")
        return None
    return replace(turn, content=kept)


def _extract(turns: Sequence[Turn]) -> tuple[list[Candidate], list[str]]:
    cands: list[Candidate] = []
    skipped: list[str] = []
    event: str | None = None
    for i, turn in enumerate(turns):
        if turn.role != "user":
            continue
        if (kept := _readable(turn, cands, skipped)) is None:
            continue
        turn = kept
        ref, context_attr = reference_time(turn.at), _topic_of(turns[:i])
        event = event or dated_event(turns[:i])
        said = " ".join(t.content for t in turns[: i + 1] if t.role == "user")
        names = list(dict.fromkeys([*known_names(said), *introduced_names(said)]))
        prior_turn_person = last_person(" ".join(t.content for t in turns[:i] if t.role == "user"))
        # "X isn't A anymore; it's B" -> "X is B": the old value is left out of every memory
        text = join_signatures(expand_shorthand(replaced_by_new(turn.content)))
        replaced = text != expand_shorthand(turn.content) or bool(REPLACED.search(turn.content))
        olds, sender = old_values(turn.content), email_sender(turn.content)
        sentences = [s.strip() for s in _SPLIT.split(as_sender(text)) if s.strip()]
        sentences = [asked_of_us(s, turn.content, sender, ref) or s for s in sentences]
        first, retaken = len(cands), TurnRetaken()
        for j, s in enumerate(sentences):
            label = sentence_label(sentences, j)
            if label == "joke" and (serious := without_jokes(s)) and serious != s:
                # "budget TBD - he joked 'a billion dollars' lol": the rest still counts
                s, label = serious, sentence_label([serious], 0)
            if label == "hypothetical" and (real := without_conditionals(s)) != s:
                # a long note with one "if it goes well ..." in it: the rest still counts
                skipped.append(label)
                s, label = real, sentence_label([real], 0)
            if label == "statement" and own_affair(s):  # "my manager is on vacation, so ..."
                label = "own affair"
            if label not in ("statement", "request"):
                skipped.append(label)
                if label in ("joke", "question") and _BUDGET.keyword.search(s):
                    # the topic outlives the joke or the query ("预算1.5亿？不对，是1500万")
                    context_attr = "budget"
                continue
            correction = bool(_CORRECTION.search(s)) or replaced
            # a dictated note is read piece by piece: "他们报了120万" is not "预算还没批"'s
            old = [c for piece in dictated_pieces(s)
                   for c in _sentence_candidates(piece, turn, context_attr)]  # fmt: skip
            facts, event = statement_facts(s, sentences[:j], ref, event, names,
                                           prior_turn_person, sender, turn.content)  # fmt: skip
            found = [_named(_dated(c, s, ref, event)) for c in _merge(old, facts, turn, correction)
                     if not OUR_SIDE.search(c.content) and not ASIDE.search(c.content)]  # fmt: skip
            # "Brian wants calls" after "Brian Foley, VP of Lending": the memory says who
            found = [c.model_copy(update={"content": with_full_names(c.content, names)})
                     for c in found]  # fmt: skip
            found = with_switch(s, turn, [_anchored(c, olds) for c in found])
            opens = j == 0 and context_attr == "budget" and bool(TAKEN_BACK.search(turn.content))
            found = retaken.apply(s, found, cands, first, opens)
            cands.extend(without_restated_roles(found, label))
            if old:
                context_attr = old[-1].attribute
        if replaced or CORRECTS.search(turn.content):  # "更正：基地是3个" after "2个生产基地"
            ids = [turn.id] if turn.id else []
            cands[first:] = recounted(turn.content, cands[:first], cands[first:], ids)
    return cands, skipped
