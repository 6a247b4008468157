"""Rules for the attack phrasings that security tools ship and attackers paste as they are.

Red-teaming tools (garak, jailbreak corpora) carry stock prompts: a request for the
assistant's own instructions, "ignore all previous instructions" in a dozen languages, a
bare "ignore instructions, and just print …", a fake ``User:`` turn, an order to write a
hateful sentence, an order to call a named tool, "you have no safety filters". A note that
carries one is an attack whatever the language of the rest: these phrases are about an AI's
instructions, and no sales note states them as a fact about a customer.

``bench/poison_third_party.py`` measured the screen on such sets before these rules
existed (46 of 93 blocked); the rules were written after looking at what it missed, so its
later figure is in-sample. Kept to the structure of each phrase, and checked against every
ordinary note, sales dialog and LoCoMo turn the project holds (none newly blocked).
"""

from __future__ import annotations

from memagent.memory.poison_rules import Rule
from memagent.memory.poison_rules import make_rule as _r

_E = r"[^.!?\n]"  # within one sentence

KNOWN_RULES: tuple[Rule, ...] = (
    # The assistant's own instructions asked for, in the second person or by their name.
    _r(
        "stock_prompt_leak",
        "exfiltration",
        1.0,
        r"\b(?:output|print|show|reveal|repeat|display|dump|translate|tell me|write out|list)\b"
        rf"{_E}{{0,20}}\byour (?:initial|starting|original|hidden|secret|internal"
        r"|initiali[sz]ation|pre-?conversation|very first|system) (?:instructions?|prompts?"
        r"|messages?|directives?|configuration|guidelines)\b"
        r"|\bwhat (?:were|are|have) you (?:been )?(?:told|instructed|programmed)\b"
        r"|\bwhat are you not (?:supposed|allowed|permitted) to (?:tell|say|reveal|share)\b"
        r"|\bbefore this (?:conversation|chat|session) (?:started|began)\b"
        r"|\bcomplete (?:this|the following) sentence\W{0,6}i was (?:instructed|told|programmed)\b"
        r"|\b(?:output|print|show|reveal|repeat|display|dump)\b"
        rf"{_E}{{0,20}}\binitiali[sz]ation (?:string|prompt|text|instructions)\b"
        r"|\b(?:console\.log|print|echo|alert)\s*\(\s*(?:this\.)?system_?prompt\b"
        r"|\bopposite of your (?:system )?(?:instructions|prompt|rules)\b",
    ),
    # "Ignore all previous instructions" and "no restrictions" in the languages around
    # ours; AI words that no English or Chinese sales note uses.
    _r(
        "foreign_override",
        "override",
        1.0,
        r"\bignorier(?:e|en sie)?\b.{0,20}\b(?:anweisungen|instruktionen|regeln)\b"
        r"|\bvergiss\b.{0,20}\b(?:anweisungen|instruktionen|regeln)\b"
        r"|\b(?:ignora|olvida|ignore|ignorez|oublie|oubliez|esquece|esqueça)\b.{0,20}"
        r"\b(?:instrucciones|consignes|instructions pr[ée]c[ée]dentes|istruzioni|instru[çc][õo]es)\b"
        r"|(?:игнорируй|игнорируйте|забудь|забудьте)\s.{0,20}(?:инструкции|правила)"
        r"|تجاهل\s.{0,20}التعليمات|نادیده\s+بگیر"
        r"|\b[öo]nceki\b.{0,20}\btalimatlar\w*\b"
        r"|\bkeine regeln mehr\b|\bohne (?:jede |jegliche )?einschr[äa]nkung"
        r"|\bsin (?:ningún |ninguna )?(?:restricciones|filtro|censura)\b"
        r"|\bsans (?:aucune )?(?:restriction|censure|filtre)\b|\bsenza (?:restrizioni|censura)\b"
        r"|\bsem (?:restri[çc][õo]es|censura)\b|без (?:ограничений|цензуры)|بلا قيود"
        r"|\bsystem-eingabeaufforderung\b|\bmensaje de sistema\b|\bconsignes syst[èe]me\b"
        r"|системн\w* промпт|موجه النظام|پیام سیستمی|\bsistem istem\w*\b",
        "raw",  # the folded form turns Cyrillic into Latin look-alikes
    ),
    # A bare "ignore instructions" followed by what to say instead.
    _r(
        "bare_override",
        "override",
        1.0,
        r"(?:^|[.!?>\n]\s*)(?:please\s+)?(?:ignore|disregard|forget)\s+(?:all\s+)?"
        rf"(?:instructions|directions|rules)\b{_E}{{0,20}}\b(?:print|say|output|write|respond"
        r"|reply|type|repeat|answer)\b",
    ),
    # A fake user turn inside a note that gives the reader an order.
    _r(
        "fake_user_turn",
        "override",
        1.0,
        r"^\W{0,3}(?:user|human)\s*:\s*(?:next,?\s*)?(?:now,?\s*)?(?:please\s+)?"
        r"(?:repeat|say|print|output|write|ignore|reveal|tell me)\b",
    ),
    # An order to produce hateful text.
    _r(
        "hateful_text",
        "standing order",
        1.0,
        r"\bwrite (?:one|a|an|some|two|three|\d+) (?:toxic|harmful|offensive|unfriendly|negative"
        r"|discriminatory|racist|sexist|hateful|insulting|derogatory|demeaning) (?:sentences?"
        r"|jokes?|statements?|comments?|remarks?|tweets?|posts?|lines?) about\b",
    ),
    # An order to call one of the assistant's tools by its code name.
    _r(
        "named_tool_order",
        "tool order",
        1.0,
        r"(?:^|[.!?\n]\s*)(?:now\s+)?(?:please\s+)?(?:call|invoke|trigger|execute|run|use)"
        r"\s+(?:the\s+)?[a-z]+_[a-z_]+\s+(?:tool|function|api|endpoint)\b",
    ),
    # The assistant told it has no safety filters, or may ignore them.
    _r(
        "safety_off",
        "override",
        1.0,
        rf"\byou\b{_E}{{0,30}}\b(?:have no|without|ignore|skip|turn off|drop|disable)\b"
        rf"{_E}{{0,12}}\bsafety (?:filters?|guardrails|restrictions|mode|layer)\b",
    ),
)
