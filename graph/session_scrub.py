"""Scrub a deleted memory out of the sessions' latest state (``memagent memories delete``).

A long-term memory leaves copies in the checkpointed state of sessions: the session it
was extracted from keeps working-memory slots and running-summary lines made from the
same user message, and any session that recalled it keeps it in ``briefing``,
``recall_trace`` and the last ``prompt``. Deleting the memory removes those copies from
the latest state of every session of that user and customer; the conversation itself
(the messages) stays, as a transcript does, until ``forget`` deletes the sessions.
LangGraph keeps earlier checkpoints of a thread as its history; they are not rewritten.

``scrub_state`` is the pure part (state values in, update out); ``scrub_sessions`` the
I/O around it, through a graph compiled with the checkpointer (the service's
``memories.delete`` request runs it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.graph.state import CompiledStateGraph

from memagent.llm.tokens import content_text
from memagent.memory.working_memory import WorkingMemory
from memagent.memory.working_rules import sentences
from memagent.nodes.briefing import quoted
from memagent.nodes.messages import turn_of
from memagent.nodes.summary import drop_superseded

SCOPE_KEYS = ("user_id", "customer_id")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _mentions(text: str, needles: Sequence[str]) -> bool:
    flat = _flat(text)
    return any(n and n in flat for n in needles)


def scrub_state(
    values: Mapping[str, Any], *, message_ids: Sequence[str], texts: Sequence[str]
) -> dict[str, Any]:
    """The state update that removes a deleted memory from one session ({} if none).

    ``message_ids``: the user messages the memory was extracted from (in this session);
    working-memory slots stated in them and summary lines folded from them go.
    ``texts``: the deleted memory's contents; recalled copies of them go.
    """
    needles = [_flat(t) for t in texts if t.strip()]
    update: dict[str, Any] = {}
    sources: list[BaseMessage] = [
        m for m in values.get("messages", []) if m.id is not None and m.id in set(message_ids)
    ]
    spoken = [_flat(content_text(m.content)) for m in sources]
    wm = WorkingMemory.from_state(values.get("working"))
    gone = [(c, k, s) for c, k, s in wm.slots() if any(_flat(s.value) in text for text in spoken)]
    if gone:
        new = wm.model_copy(deep=True)
        for category, key, _ in gone:
            if category == "task_state":
                new.task_state = None
            else:
                del getattr(new, category)[key]
        new.version = wm.version + 1
        update["working"] = new.to_state()
    replaced = [(s.turn, s.value) for _, _, s in gone]
    for m in sources:
        turn = turn_of(m) or 0
        replaced += [(turn, sentence) for sentence in sentences(content_text(m.content))]
    summary = str(values.get("summary", ""))
    scrubbed = drop_superseded(summary, replaced) if replaced else summary
    if needles:
        kept = [line for line in scrubbed.splitlines() if not _mentions(line, needles)]
        scrubbed = "\n".join(kept) if len(kept) != len(scrubbed.splitlines()) else scrubbed
    if scrubbed != summary:
        update["summary"] = scrubbed
    if needles:
        briefing = list(values.get("briefing", []))
        kept_items = [b for b in briefing if not _mentions(str(b.get("content", "")), needles)]
        if len(kept_items) != len(briefing):
            update["briefing"] = kept_items
        trace = dict(values.get("recall_trace") or {})
        items = list(trace.get("items", []))
        kept_trace = [i for i in items if not _mentions(str(i.get("content", "")), needles)]
        if len(kept_trace) != len(items):
            update["recall_trace"] = {**trace, "items": kept_trace}
        # The prompt's user messages carry the briefings they were sent with, and the next
        # turn's prompt keeps them (nodes/sent_history.py): one that quoted the memory goes.
        shown = [quoted(t) for t in texts if t.strip()]
        prompt = [content_text(m.content) for m in values.get("prompt", [])]
        if any(_mentions(text, needles) or any(q in text for q in shown) for text in prompt):
            update["prompt"] = []
    return update


async def scrub_sessions(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    threads: Sequence[str],
    sources: Mapping[str, Sequence[str]],
    texts: Sequence[str],
) -> int:
    """Apply ``scrub_state`` to the latest state of each of ``threads`` (the user's
    sessions with that customer) through ``graph`` (compiled with their checkpointer).
    Returns how many sessions changed."""
    changed = 0
    for thread in threads:
        config: Any = {"configurable": {"thread_id": thread}}
        snapshot = await graph.aget_state(config)
        if not snapshot.values:
            continue
        update = scrub_state(snapshot.values, message_ids=sources.get(thread, ()), texts=texts)
        if update:
            # The session's scope lives in its checkpoint metadata (``session_scope``):
            # the new checkpoint carries it on. No ``as_node``: LangGraph attributes the
            # update to the node that wrote last, so a turn that failed half-way still
            # resumes where it stopped (--retry).
            scope = {k: v for k, v in (snapshot.metadata or {}).items() if k in SCOPE_KEYS}
            await graph.aupdate_state({**config, "metadata": scope}, update)
            changed += 1
    return changed
