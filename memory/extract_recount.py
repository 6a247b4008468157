"""A corrected count: a message that says it corrects something and gives a new figure
beside a thing an earlier message counted ("correction: actual agents more like 110"
after "140 agents", "更正一下：不是4家院区，是3家" after "覆盖4家院区", "基地是3个" after
"2个生产基地", "護理人員是 1,350 人，不是 1,100" after "約 1,100 人") keeps the earlier
count's key, so the write path versions that memory and the old figure is not left
standing beside the new one. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memagent.memory.extract_counts import with_figures
from memagent.memory.write_types import Candidate

_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.,])\d{1,3}(?:,\d{3})+(?![\d])|(?<![A-Za-z0-9_.,])\d+(?:\.\d+)?(?![\d%])"
)
_OLD_MARK = re.compile(
    r"(?:\bnot|\binstead of|\brather than|\bfrom|\bwas|不是|唔是|而不是|原来|之前|从)\s*$", re.I
)
_PEOPLE_EN = re.compile(r"\b(?:people|staff|employees|headcount|users|heads|persons)\b", re.I)
_PEOPLE_ZH = re.compile(r"人|位|名")
_WINDOW_ZH = 10
_WINDOW_EN = 30


@dataclass(frozen=True)
class Recount:
    """A new figure for a key an earlier count was stored under."""

    attribute: str
    value: str
    start: int
    """Where the figure is in the message (to find its clause)."""


def _stem(thing: str) -> str:
    """The word a correction names the counted thing by: "agents" for "agent", "基地" for
    "生产基地" (a Chinese thing's last two characters)."""
    thing = thing.strip().lower()
    if re.search(r"[\u4e00-\u9fff]", thing):
        return thing[-2:]
    return thing.rstrip("s")


def _near(text: str, start: int, end: int, thing: str, zh: bool) -> bool:
    """Whether the counted thing is named close to a figure."""
    w = _WINDOW_ZH if zh else _WINDOW_EN
    around = text[max(0, start - w) : end + w]
    if thing in ("人", "team_size", "seats"):
        after = text[end : end + 3]
        return bool(_PEOPLE_ZH.match(after.strip()) or _PEOPLE_EN.search(around))
    if zh:
        return thing in around
    return re.search(rf"(?<![a-z]){re.escape(thing)}", around, re.I) is not None


def recounts(text: str, counts: Sequence[tuple[str, str, str]]) -> list[Recount]:
    """The new figures a correction message gives for earlier counts ``counts`` (each
    (key, old value, thing counted)): a figure not marked old ("not 4", "不是 1,100"),
    other than the old value, with the counted thing named beside it. One per key."""
    text = with_figures(text)
    zh = bool(re.search(r"[\u4e00-\u9fff]", text))
    out: list[Recount] = []
    for key, old, thing in counts:
        stem = _stem(thing) if not key.startswith(("team_size", "seats")) else "人"
        if not stem:
            continue
        for m in _NUMBER.finditer(text):
            figure = m.group(0).replace(",", "")
            if figure == old.replace(",", "") or _OLD_MARK.search(
                text[max(0, m.start() - 10) : m.start()]
            ):
                continue
            if re.match(r"\s*(?:年|月|日|号|%|k\b|m\b|万|亿|元|/)", text[m.end() :], re.I):
                continue  # a date, a share or an amount, not a count
            if _near(text, m.start(), m.end(), stem, zh):
                out.append(Recount(key, figure, m.start()))
                break
    return out


_END = re.compile(r"(?<!\d)[,，](?!\d)|[，;；。!?！？:：\n]|\.(?!\d)")


def clause_at(text: str, start: int) -> str:
    """The clause of ``text`` holding position ``start`` (a figure's "1,350" or "1.5"
    is not a clause end)."""
    text = with_figures(text)
    ends = [m.start() for m in _END.finditer(text)]
    left = max((e for e in ends if e < start), default=-1)
    right = min((e for e in ends if e > start), default=len(text))
    return text[left + 1 : right].strip()


_OLD_TAIL = re.compile(r"\s*[,，]?\s*(?:而)?(?:不是|唔是|\bnot)\s*[\d,.]+\s*\S{0,2}$", re.I)


def _thing(c: Candidate) -> str:
    return "人" if c.attribute in ("team_size", "seats") else c.attribute.split(":", 1)[1]


def recounted(text: str, earlier: Sequence[Candidate], now: list[Candidate],
              ids: list[str]) -> list[Candidate]:  # fmt: skip
    """The candidates of a correction message ``now`` (its text ``text``), each new figure
    for an ``earlier`` count under that count's key: the candidate already holding the
    figure is rekeyed, else the figure's clause is added."""
    counts = {c.attribute: (c.attribute, c.value or "", _thing(c)) for c in earlier
              if c.value and (c.attribute.startswith("count:") or c.attribute in ("team_size", "seats"))}  # fmt: skip
    out = list(now)
    for r in recounts(text, list(counts.values())):
        clause = _OLD_TAIL.sub("", clause_at(text, r.start))
        i = next((k for k, c in enumerate(out) if clause in with_figures(c.content).replace(",", "")
                  or clause.replace(",", "") in with_figures(c.content).replace(",", "")), None)  # fmt: skip
        if i is not None:
            out[i] = out[i].model_copy(update={"attribute": r.attribute, "value": r.value})
            continue
        thing = counts[r.attribute][2]
        if thing != "人" and _stem(thing) not in clause.lower():
            clause = f"{thing}{'：' if re.search(r'[一-鿿]', thing) else ': '}{clause}"
        out.append(Candidate(content=clause, attribute=r.attribute, value=r.value, importance=0.6,
                             confidence=0.9, correction=True, message_ids=ids))  # fmt: skip
    return out
