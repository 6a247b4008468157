"""The ``memory_extractor`` graph: extraction as a LangGraph background run.

Under a LangGraph server (``langgraph dev``, ``langgraph up``, a deployment) the agent
does not put its turns in the local outbox: its ``async_extract`` node schedules a run
of this graph (``memagent.graph.extraction_server``), debounced per conversation with
``after_seconds`` and ``multitask_strategy="rollback"`` on an extractor thread derived
from the conversation's thread. The server's own durable run queue does the work, and
each extraction is a run that Studio shows and can replay.

``extract`` -> ``apply``, on the extractor thread's state:

- every run carries the conversation's recent turns (not only the newest), because a
  newer run rolls back a pending one: the newer run then carries its turns too;
- ``extracted`` (checkpointed on the extractor thread) holds the message ids already
  applied, so a run extracts only the turns no earlier run applied;
- ``extract`` saves the candidates in the checkpoint before anything is written, so a
  retried ``apply`` (its retry policy, on a store outage) or a replay from that
  checkpoint in Studio writes the same candidates instead of extracting again;
- ``apply`` goes through ``extraction_steps.apply_candidates``, the worker's write path:
  redaction, injection screen, dedupe, versioning, record ids derived from the job id
  (thread + first and last message id) and merges that remember their message ids, so
  a run applied twice (a replay, a rolled-back run redone) writes nothing twice.

Importing this module compiles nothing and reads no environment: ``memory_extractor``
is langgraph.json's zero-argument factory.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Final

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.types import RetryPolicy

from memagent.core.settings import Settings
from memagent.core.types import DIGEST_ROLE, Job, Turn
from memagent.graph.extraction_steps import apply_candidates, extract_candidates, is_outage
from memagent.graph.jobs import job_id
from memagent.graph.settings import get_settings
from memagent.memory.episodes import stored_verdicts
from memagent.memory.extract_context import session_context
from memagent.memory.extractors import Extractor, rules_extractor
from memagent.memory.write_path import Candidate, WriteConfig
from memagent.stores.protocols import store_session

EXTRACTOR_GRAPH: Final = "memory_extractor"
EXTRACT: Final = "extract"
APPLY: Final = "apply"
MAX_REMEMBERED_IDS: Final = 2000
"""Applied message ids an extractor thread keeps (far more than one run's window)."""


def remember_ids(old: list[str], new: list[str]) -> list[str]:
    """Reducer of ``extracted``: the ids applied so far, oldest dropped first."""
    seen = set(old)
    merged = [*old, *(i for i in new if i not in seen)]
    return merged[-MAX_REMEMBERED_IDS:]


@dataclass
class ExtractorInput:
    """What the agent schedules: the conversation's recent turns and their scope."""

    thread_id: str = ""
    """The conversation's thread (the extractor runs on a thread derived from it)."""
    user_id: str = ""
    customer_id: str = ""
    turns: list[dict[str, Any]] = field(default_factory=list)
    """Recent turns (``Turn.to_dict``), each with a message id; digest turns first."""
    trigger: str = ""
    """The early triggers the turn fired (amount, date, decision...), or empty."""
    scheduled_at: float = 0.0
    """When the turn was scheduled: the message time of turns that carry none."""


@dataclass
class ExtractorState(ExtractorInput):
    """An extractor thread's state; ``extracted`` persists across its runs."""

    extracted: Annotated[list[str], remember_ids] = field(default_factory=list)
    """Message ids whose extraction was applied (the thread's cursor)."""
    job: dict[str, Any] = field(default_factory=dict)
    """This run's job: id, turns and the candidates extracted, saved before any write."""
    result: dict[str, Any] = field(default_factory=dict)
    """What ``apply`` wrote (one action per candidate), as the worker reports a job."""


def pending_turns(turns: Sequence[Turn], applied: set[str]) -> list[Turn]:
    """The turns no earlier run applied, plus the assistant turn just before the first
    of them as context (so "no, 3 million" knows what was asked)."""
    first = next((i for i, t in enumerate(turns) if t.id not in applied), None)
    if first is None:
        return []
    rest = [t for t in turns[first:] if t.id not in applied]
    before = turns[first - 1] if first and turns[first - 1].role == "assistant" else None
    return [before, *rest] if before is not None else rest


def run_context(
    store: BaseStore | None,
    state: ExtractorState,
    said: Sequence[Turn],
    todo: Sequence[Turn],
    config: WriteConfig,
) -> list[Turn]:
    """``session_context`` of a run's turns, with the screen's verdicts the server store's
    episodes keep (one store session: a shared store loads its shard once)."""
    if store is None:
        return session_context(said, todo, config=config)
    with store_session(store):
        stored = stored_verdicts(store, state.user_id, state.customer_id, config=config)
        return session_context(said, todo, config=config, stored=stored)


def make_extract_node(
    extractor: Extractor,
    fallback: Extractor | None,
    write_config: Callable[[], WriteConfig] = WriteConfig,
) -> Callable[..., Awaitable[dict[str, Any]]]:
    async def extract(state: ExtractorState, runtime: Runtime[None]) -> dict[str, Any]:
        turns = [Turn(**t) for t in state.turns]
        todo = pending_turns(turns, set(state.extracted))
        new = [t.id for t in todo if t.id not in set(state.extracted)]
        if not new:
            return {"job": {}, "result": {"skipped": "every turn was already extracted"}}
        # the run's earlier (applied) user turns are the extractor's context, redacted
        # and screened as the stored transcript is (the verdicts their episodes keep)
        said = [t for t in turns if t.role != DIGEST_ROLE]
        context = await asyncio.to_thread(
            run_context, runtime.store, state, said, todo, write_config()
        )
        found, consolidated = await extract_candidates(
            todo,
            extractor=extractor,
            fallback=fallback,
            created_at=state.scheduled_at,
            label=f"thread {state.thread_id}",
            context=context,
        )
        return {
            "job": {
                "id": job_id(state.thread_id, todo[0].id, todo[-1].id),
                "turns": [t.to_dict() for t in todo],
                "new": new,
                "candidates": [c.model_dump(mode="json") for c in found.candidates],
                "consolidated": consolidated,
                "dropped": found.dropped,
                "reasons": found.reasons[:50],
            },
            "result": {},
        }

    return extract


def make_apply_node(
    write_config: Callable[[], WriteConfig], *, embeddings: Any = None
) -> Callable[..., Awaitable[dict[str, Any]]]:
    async def apply(state: ExtractorState, runtime: Runtime[None]) -> dict[str, Any]:
        job = state.job
        if not job:
            return {}
        if runtime.store is None:
            raise RuntimeError("the memory_extractor graph needs the server's store")
        record = Job(
            id=job["id"],
            thread_id=state.thread_id,
            user_id=state.user_id,
            customer_id=state.customer_id,
            turns=[Turn(**t) for t in job["turns"]],
            status="running",
            attempts=1,
            max_attempts=1,
            run_at=state.scheduled_at,
            trigger=state.trigger,
            created_at=state.scheduled_at,
        )
        cands = [Candidate.model_validate(c) for c in job["candidates"]]

        def write() -> dict[str, Any]:  # blocking store I/O: kept off the event loop
            return apply_candidates(
                runtime.store,  # type: ignore[arg-type]
                record,
                cands,
                int(job["consolidated"]),
                config=write_config(),
                embeddings=embeddings,
            )

        result = await asyncio.to_thread(write)
        return {"extracted": list(job["new"]), "result": {"job": job["id"], **result}}

    return apply


def build_extractor_graph(
    *,
    extractor: Extractor,
    fallback: Extractor | None = None,
    write_config: Callable[[], WriteConfig] = WriteConfig,
    embeddings: Any = None,
    retry: RetryPolicy | None = None,
) -> StateGraph[ExtractorState, None, ExtractorInput, ExtractorState]:
    """The uncompiled extractor graph. ``apply`` retries on an outage of the store
    (``retry``; default 5 attempts with backoff from 2 s), then the run fails, visible
    in Studio; its turns stay unapplied and the conversation's next run carries them."""
    retry = retry or RetryPolicy(max_attempts=5, initial_interval=2.0, retry_on=is_outage)
    builder = StateGraph(ExtractorState, input_schema=ExtractorInput)
    builder.add_node(EXTRACT, make_extract_node(extractor, fallback, write_config))
    builder.add_node(
        APPLY, make_apply_node(write_config, embeddings=embeddings), retry_policy=retry
    )
    builder.add_edge(START, EXTRACT)
    builder.add_edge(EXTRACT, APPLY)
    builder.add_edge(APPLY, END)
    return builder


def extractor_for_settings(settings: Settings) -> Extractor:
    """The extractor ``MEMAGENT_EXTRACTOR`` names (rules when the model adapter is missing)."""
    if settings.extractor == "llm":
        from memagent.llm.adapter import chat_model
        from memagent.memory.extractors import llm_extractor

        return llm_extractor(
            chat_model(settings, small=True), hybrid=settings.llm_extraction == "hybrid"
        )
    return rules_extractor()


@functools.cache
def _studio_extractor() -> CompiledStateGraph[ExtractorState, None, ExtractorInput, ExtractorState]:
    settings = get_settings()
    config = functools.cache(lambda: WriteConfig.for_settings(settings, background=True))
    return build_extractor_graph(
        extractor=extractor_for_settings(settings),
        fallback=rules_extractor(),
        write_config=config,
    ).compile(name=EXTRACTOR_GRAPH)


def memory_extractor() -> CompiledStateGraph[ExtractorState, None, ExtractorInput, ExtractorState]:
    """langgraph.json's ``memagent.graph.extractor_graph:memory_extractor``: a zero-argument
    factory (``langgraph dev`` reads module attributes), built on first call."""
    return _studio_extractor()


__all__ = [
    "EXTRACTOR_GRAPH",
    "ExtractorInput",
    "ExtractorState",
    "build_extractor_graph",
    "memory_extractor",
    "pending_turns",
    "remember_ids",
]
