"""A pasted chat thread or call transcript, read as the note it is: each line's time stamp
("[Mon 9:12]", "14:05", "(10:32 AM)") is not part of what was said, and the
salesperson's own speaker tag ("me:", "Rep:", "我：") only says who typed the line. Left
in, a stamp's colon was read as a field label ("[Mon 9 (requirement): 12] …") and a tag
as the person a fact is about. Pure functions.
"""

from __future__ import annotations

import re

from memagent.memory.extract_cues import DECIDES

_DAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?"
_DATE = r"(?:\d{4}[-/.])?\d{1,2}[-/.]\d{1,2}"
_STAMP = re.compile(
    r"^(?P<lead>\s*(?:[-*•]\s*)?)"
    r"(?:[\[(【]\s*(?:"
    + _DAY
    + r"\s*|"
    + _DATE
    + r"\s+|周[一二三四五六日天]\s*|星期[一二三四五六日天]\s*)?"
    + _CLOCK
    + r"\s*[\])】]|(?:"
    + _DATE
    + r"\s+)?"
    + _CLOCK
    + r"(?=\s*(?:[-–—|]|[^\s:：\d]{1,24}(?: \([^)\n]{1,30}\))?\s*[:：])))"
    r"\s*[-–—|]?\s*",
    re.I | re.M,
)
"""A line's leading time stamp, bracketed or bare, with any date or weekday in it."""

_OWN_TAG = re.compile(
    r"^(?P<lead>\s*(?:[-*•]\s*)?)(?:me|rep|sales ?rep|i|myself|us|我|我方|销售|本人)\s*[:：]\s*",
    re.I | re.M,
)
"""The salesperson's own speaker tag at the start of a line."""


def _speaker_lines(text: str) -> int:
    return len(re.findall(r"^\s*[^\s:：\n]{1,24}(?: [^\s:：\n]{1,24}){0,2}\s*(?:\([^)\n]{1,30}\))?\s*[:：]\s*\S",
                          text, re.M))  # fmt: skip


def without_chat_stamps(text: str) -> str:
    """``text`` with each line's time stamp removed, and the salesperson's own speaker
    tag too when the text reads as a thread (two or more lines tagged with a speaker).
    A note with no stamp and no thread is returned unchanged."""
    out = _QA.sub(_answered, _STAMP.sub(lambda m: m.group("lead"), text))
    if _speaker_lines(out) >= 2:
        out = _OWN_TAG.sub(lambda m: m.group("lead") + "\ue001", out)
        out = "\n".join(_asked(line) for line in out.split("\n"))
    return out


_ASKS = re.compile(
    r"^(?:what|how|who|whom|which|when|where|why|any|anyone|anything|do|does|did|is|are|can|could|"
    r"will|would|should)\b(?!.*[?？])|^(?:多少|什么|谁|哪|几|怎么|是否|有没有)(?!.*[?？])",
    re.I,
)
"""The salesperson's own line in a thread that asks ("what do they need from us")."""


def _asked(line: str) -> str:
    """A line the salesperson typed, without its tag, ending in "?" when it asks."""
    lead, own, rest = line.partition("\ue001")
    if not own:
        return line
    return f"{lead}{rest}?" if _ASKS.match(rest.strip()) else f"{lead}{rest}"


_QA = re.compile(
    r"(?P<lead>^|(?<=[\s.!。！]))(?:Q|Question|问|問)\s*[:：.]\s*(?P<q>[^?？\n]{3,100}[?？])\s*"
    r"(?:A|Answer|答)\s*[:：.]\s*",
    re.I | re.M,
)
"""A question and its answer in a Q/A transcript ("Q: What's your budget for this? A: Around
€700k"): the answer alone ("A: Around €700k") said nothing of what the figure was."""
_WH = re.compile(
    r"^(?:so\s+|and\s+)?(?:what(?:'s|\s+is|\s+are|\s+was)|how\s+(?:much|many|big)(?:\s+(?:is|are|do|does))?"
    r"|who(?:'s|\s+is|\s+are)?|when(?:'s|\s+is|\s+does|\s+do|\s+will)?|which|do\s+you\s+have|is\s+there"
    r"|any)\s+(?:(?:the|your|their|you)\s+)?",
    re.I,
)


def read_qa(text: str) -> str:
    """``text`` with each "Q: …? A:" pair read as the label of its answer ("Q: What's your
    budget for this? A: Around €700k" -> "Budget for this: Around €700k")."""
    return _QA.sub(_answered, text)


def _answered(m: re.Match[str]) -> str:
    """ "Q: What's your budget for this? A: " -> "Budget for this: ", what the answer is of."""
    question = m.group("q").rstrip("?？ ")
    topic = _WH.sub("", question).strip()
    if not topic or len(topic.split()) > 8:
        return m.group("lead")
    if re.match(r"(?:so\s+|and\s+)?who\b", question, re.I) and DECIDES.search(question):
        topic = "Decision maker"  # "Q: Who signs off? A: Our CFO, Tomás Reyes"
    elif re.match(r"(?:so\s+|and\s+)?when\s+(?:does|do)\b", question, re.I):
        topic = re.sub(r"\b(\w+?)(?<!s)$", r"\1s", topic)  # "the contract end" -> "… ends"
    return f"{m.group('lead')}{topic[0].upper()}{topic[1:]}: "
