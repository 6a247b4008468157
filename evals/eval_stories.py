"""Sales stories through the agent's own memory (issue 14 item 5).

``memagent eval sessions --stories`` tells each story of ``memagent.evals.sales_stories``
to the real agent (``aopen_agent``: SQLite checkpointer, the configured store, the job
queue and the in-process worker extracting with the configured extractor), one session
per block of notes, waits for the worker, then asks every probe in a fresh session and
scores what the agent recalled:

(a) facts: every planted fact is in a recalled item;
(b) corrections: after a correction the current value is recalled and no recalled item
    presents a replaced value as current (an item marked outdated does not count);
(c) replies, with ``--llm`` only: the real local model's reply states the current value
    (and not a replaced one). Without ``--llm`` the agent answers with a fixed
    note-taker reply, since only recall is scored.

Also counted: leaks (a probe about the new prospect recalling another account's facts).
Figures per story and per language; nothing is asserted here.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from memagent.core.settings import Settings
from memagent.evals.eval_metrics import norm
from memagent.evals.sales_stories import STORIES, Fact, Probe, Story
from memagent.graph.agent import aopen_agent, arun_turn, settle
from memagent.llm.adapter import ROUTER_REQUEST

USER = "bench-rep"
OUTDATED = ("outdated", "superseded", "no longer", "已过时", "旧值", "已更新")
"""Markers of an item shown as history, not as the current value."""

ChatFactory = Callable[..., Any]


class NoteTaker(BaseChatModel):
    """A chat model for recall-only runs: every reply is "Noted.", and a tool-routing
    request is answered with no tool (so the agent does not log a routing failure)."""

    @property
    def _llm_type(self) -> str:
        return "note-taker"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        routing = bool(messages) and str(messages[-1].text).startswith(_ROUTING)
        text = '{"tool": "none", "args": {}}' if routing else "Noted."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


_ROUTING = ROUTER_REQUEST.split("{", 1)[0]


def note_taker() -> NoteTaker:
    return NoteTaker()


def _factory(model: Any) -> ChatFactory:
    return lambda settings=None, *, small=False: model


@dataclass
class ProbeScore:
    customer: str
    question: str
    facts: dict[str, bool] = field(default_factory=dict)
    corrections: dict[str, bool] = field(default_factory=dict)
    replies: dict[str, bool] = field(default_factory=dict)
    leaks: list[str] = field(default_factory=list)
    recalled: list[str] = field(default_factory=list)
    reply: str = ""


def _has(texts: Sequence[str], needles: Sequence[str]) -> bool:
    return any(norm(n) in t for t in texts for n in needles)


def _current(item: dict[str, Any]) -> bool:
    text = str(item.get("content", "")).lower()
    return not item.get("outdated") and not any(m in text for m in OUTDATED)


def score_probe(probe: Probe, items: Sequence[dict[str, Any]], reply: str | None) -> ProbeScore:
    """Score one probe's recalled items (and reply, when a real model gave one)."""
    texts = [norm(str(i.get("content", ""))) for i in items]
    current = [norm(str(i.get("content", ""))) for i in items if _current(i)]
    s = ProbeScore(probe.customer, probe.question, recalled=[str(i.get("content")) for i in items])
    for f in probe.facts:
        found = _has(texts, f.needles)
        s.facts[f.label] = found
        if f.corrected:
            s.corrections[f.label] = found and not _has(current, f.stale)
        if reply is not None:
            said = norm(reply)
            s.replies[f.label] = any(norm(n) in said for n in f.needles) and not any(
                norm(n) in said for n in f.stale
            )
    s.leaks = [n for n in probe.absent if _has(texts, [n])]
    s.reply = reply or ""
    return s


@dataclass
class StoryResult:
    id: str
    lang: str
    probes: list[ProbeScore]

    def counts(self) -> dict[str, int]:
        c = {"facts": 0, "facts_recalled": 0, "corrections": 0, "corrections_ok": 0,
             "replies": 0, "replies_ok": 0, "leaks": 0, "probes": len(self.probes)}  # fmt: skip
        for p in self.probes:
            c["facts"] += len(p.facts)
            c["facts_recalled"] += sum(p.facts.values())
            c["corrections"] += len(p.corrections)
            c["corrections_ok"] += sum(p.corrections.values())
            c["replies"] += len(p.replies)
            c["replies_ok"] += sum(p.replies.values())
            c["leaks"] += len(p.leaks)
        return c


def story_settings(base: Settings, home: Path) -> Settings:
    """``base`` in a fresh home (its own store, sessions, queue), worker in-process."""
    return base.model_copy(update={"home": home, "store_location": None, "worker": "inprocess"})


async def _tell(settings: Settings, story: Story, model: ChatFactory) -> None:
    async with aopen_agent(settings, chat_model_factory=model) as agent:
        for n, (customer, messages) in enumerate(story.sessions, start=1):
            for text in messages:
                await arun_turn(agent, text, user_id=USER, customer_id=customer,
                                session=f"{story.id}-notes-{n}")  # fmt: skip
            await settle(agent)  # the worker has written this session's memories


async def _ask(
    settings: Settings, story: Story, model: ChatFactory, *, replies: bool
) -> list[ProbeScore]:
    out = []
    async with aopen_agent(settings, chat_model_factory=model) as agent:
        for n, probe in enumerate(story.probes, start=1):
            res = await arun_turn(agent, probe.question, user_id=USER, customer_id=probe.customer,
                                  session=f"{story.id}-ask-{n}")  # fmt: skip
            out.append(score_probe(probe, res.recalled, res.reply if replies else None))
    return out


async def arun_story(
    story: Story,
    settings: Settings,
    *,
    chat_model_factory: ChatFactory | None = None,
    real_llm: bool = False,
) -> StoryResult:
    """Tell ``story`` (notes answered by the note-taker, or ``chat_model_factory``), then
    ask its probes in fresh sessions, with the real local model when ``real_llm``."""
    notes = chat_model_factory or _factory(note_taker())
    if real_llm:
        from memagent.graph.builder import default_chat_model_factory

        asker: ChatFactory = default_chat_model_factory
    else:
        asker = chat_model_factory or _factory(note_taker())
    await _tell(settings, story, notes)
    return StoryResult(story.id, story.lang, await _ask(settings, story, asker, replies=real_llm))


@contextlib.contextmanager
def _home(base: Path | None) -> Iterator[Path]:
    if base is not None:
        base.mkdir(parents=True, exist_ok=True)
        yield base
        return
    with tempfile.TemporaryDirectory(prefix="memagent-stories-") as tmp:
        yield Path(tmp)


def run_stories(
    settings: Settings,
    *,
    stories: Sequence[Story] = STORIES,
    real_llm: bool = False,
    chat_model_factory: ChatFactory | None = None,
    workdir: Path | None = None,
) -> list[StoryResult]:
    """Every story in a home of its own (under ``workdir``, else a temporary directory),
    all on one event loop (the local model's async client serves them all)."""

    async def run_all(root: Path) -> list[StoryResult]:
        return [
            await arun_story(story, story_settings(settings, root / story.id),
                             chat_model_factory=chat_model_factory, real_llm=real_llm)
            for story in stories
        ]  # fmt: skip

    with _home(workdir) as root:
        return asyncio.run(run_all(root))


def pick(ids: Sequence[str], lang: str = "both") -> list[Story]:
    """Stories by id (all when empty) and language; ``ValueError`` names an unknown id."""
    known = {s.id: s for s in STORIES}
    if unknown := [i for i in ids if i not in known]:
        raise ValueError(f"unknown story {unknown[0]!r}; expected one of {', '.join(known)}")
    chosen = [known[i] for i in ids] if ids else list(STORIES)
    return [s for s in chosen if lang == "both" or s.lang == lang]


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.2f})" if b else "-"


def figures(results: Sequence[StoryResult]) -> dict[str, Any]:
    """Totals per story, per language and overall."""

    def total(rs: Sequence[StoryResult]) -> dict[str, int]:
        t: dict[str, int] = {}
        for r in rs:
            for k, v in r.counts().items():
                t[k] = t.get(k, 0) + v
        return t

    langs = sorted({r.lang for r in results})
    return {
        "stories": {r.id: {"lang": r.lang, **r.counts()} for r in results},
        "by_lang": {lang: total([r for r in results if r.lang == lang]) for lang in langs},
        "overall": total(results),
    }


def report_lines(results: Sequence[StoryResult], *, misses: bool = True) -> list[str]:
    figs = figures(results)
    lines = []

    def line(name: str, c: dict[str, int]) -> str:
        text = (f"{name:<16} facts recalled {_ratio(c['facts_recalled'], c['facts'])}  "
                f"corrections current {_ratio(c['corrections_ok'], c['corrections'])}  "
                f"leaks {c['leaks']}")  # fmt: skip
        if c["replies"]:
            text += f"  replies state current {_ratio(c['replies_ok'], c['replies'])}"
        return text

    for r in results:
        lines.append(line(r.id, r.counts()))
        if misses:
            for p in r.probes:
                lost = [k for k, ok in p.facts.items() if not ok]
                wrong = [k for k, ok in p.corrections.items() if not ok]
                bad = [k for k, ok in p.replies.items() if not ok]
                if lost or wrong or bad or p.leaks:
                    lines.append(f"    {p.customer}: {p.question}")
                    lines += [f"      not recalled: {k}" for k in lost]
                    lines += [f"      replaced value presented as current: {k}" for k in wrong]
                    lines += [f"      reply does not state the current value: {k}" for k in bad]
                    lines += [f"      leak from another account: {n}" for n in p.leaks]
    for lang, c in figs["by_lang"].items():
        lines.append(line(f"[{lang}]", c))
    lines.append(line("overall", figs["overall"]))
    return lines


def as_json(results: Sequence[StoryResult]) -> dict[str, Any]:
    return {
        **figures(results),
        "probes": {
            r.id: [
                {
                    "customer": p.customer,
                    "question": p.question,
                    "facts": p.facts,
                    "corrections": p.corrections,
                    "replies": p.replies,
                    "leaks": p.leaks,
                    "recalled": p.recalled,
                    "reply": p.reply,
                }  # fmt: skip
                for p in r.probes
            ]
            for r in results
        },
    }


__all__ = ["Fact", "Probe", "Story", "StoryResult", "run_stories", "score_probe", "pick"]
