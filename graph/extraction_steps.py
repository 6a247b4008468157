"""The two steps of one extraction job, shared by the outbox worker and the
``memory_extractor`` graph a LangGraph server runs.

``extract_candidates`` turns a job's turns into candidates (a digest's lines are
consolidated, conversation turns go to the extractor, the fallback extractor takes over
when the model is down). ``apply_candidates`` writes them: the raw episode, then every
candidate through the one write path (redaction, injection screen, dedupe, versioning)
with record ids derived from the job id and the candidates' message ids, so a job that
runs again writes nothing twice, then the profile. Whoever runs the steps decides where
the candidates are kept between them (the outbox row, or the extractor graph's
checkpoint), which is what makes a retry reuse them instead of extracting again.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import BaseStore

from memagent.core.errors import exception_chain
from memagent.core.log_redaction import memagent_logger
from memagent.core.types import DIGEST_ROLE, Job, Turn
from memagent.memory.episodes import outdate_superseded, stored_verdicts, write_turn_episodes
from memagent.memory.extract_context import session_context
from memagent.memory.extractors import (
    MAX_CANDIDATES_PER_JOB,
    ExtractionResult,
    Extractor,
    bound_candidates,
    extract_with_context,
)
from memagent.memory.forgetting import digest_candidates
from memagent.memory.namespaces import namespace
from memagent.memory.profile import compact_profile
from memagent.memory.write_cas import LockFactory
from memagent.memory.write_path import (
    Candidate,
    WriteConfig,
    derived_id,
    local_lock,
    write_episode,
    write_memory,
)
from memagent.stores.protocols import store_session

log = memagent_logger(__name__)
_OUTAGE_NAMES = ("Unavailable", "Connection", "Timeout", "Locked", "ResponseHandlingException")


def is_outage(exc: BaseException) -> bool:
    """A dependency that is down (retry later, free) rather than a bad job (spend an attempt)."""
    return any(
        isinstance(e, ConnectionError | TimeoutError)
        or any(n in type(e).__name__ for n in _OUTAGE_NAMES)
        or any(w in str(e).lower() for w in ("database is locked", "already accessed", "lock"))
        for e in exception_chain(exc)
    )


def with_times(turns: list[Turn], created_at: float) -> list[Turn]:
    """Turns whose message time is unknown get the job's time, so the extractor resolves
    "next Friday" against when it was said, not when a backlog happens to be drained."""
    if all(t.at for t in turns) or not created_at:
        return turns
    at = datetime.fromtimestamp(created_at, UTC).isoformat()
    return [t if t.at else dataclasses.replace(t, at=at) for t in turns]


def _held(name: str) -> contextlib.AbstractContextManager[None]:
    """The scope lock is already held by ``apply_candidates``."""
    return contextlib.nullcontext()


async def extract_candidates(
    turns: Sequence[Turn],
    *,
    extractor: Extractor,
    fallback: Extractor | None,
    created_at: float,
    label: str = "",
    context: Sequence[Turn] = (),
) -> tuple[ExtractionResult, int]:
    """A job's candidates, and how many lead the list from a working-memory digest (those
    are consolidated, not extracted: their records carry origin "consolidation").
    ``context``: the session's earlier user messages (``session_context``), read by the
    extractor for names and topics, never a source of facts."""
    digest = [t.content for t in turns if t.role == DIGEST_ROLE]
    said = with_times([t for t in turns if t.role != DIGEST_ROLE], created_at)
    res = ExtractionResult(candidates=digest_candidates(digest))
    consolidated = len(res.candidates)
    if said:
        try:
            found = await extract_with_context(extractor, said, context)
        except Exception as exc:
            if not is_outage(exc) or fallback is None or fallback is extractor:
                raise
            log.warning("extractor down, using fallback for %s: %s", label or "a job", exc)
            found = await extract_with_context(fallback, said, context)
        kept, cut = bound_candidates(found.candidates)
        res.candidates += kept
        res.dropped, res.reasons = found.dropped + cut, found.reasons
        if cut:
            res.reasons.append(f"more than {MAX_CANDIDATES_PER_JOB} memories in one job")
    return res, consolidated


def transcript_context(store: BaseStore, job: Job, *, config: WriteConfig) -> list[Turn]:
    """The earlier user messages of the job's session, from its stored (redacted)
    transcript, as the extractor's context (``session_context``); none for a digest job
    or a session with no transcript yet. The injection screen's verdicts are the ones its
    episodes were stored with (``stored_verdicts``), not a second run of the screen."""
    if any(t.role == DIGEST_ROLE for t in job.turns):
        return []
    with store_session(store):  # one unit of work: a shared store loads its shard once
        item = store.get(namespace(job.user_id, job.customer_id, "episodes"), job.thread_id)
        turns = item.value.get("turns", []) if item is not None else []
        stored = stored_verdicts(store, job.user_id, job.customer_id, config=config)
        return session_context(turns, job.turns, config=config, stored=stored)


def apply_candidates(
    store: BaseStore,
    job: Job,
    candidates: Sequence[Candidate],
    consolidated: int,
    *,
    config: WriteConfig,
    embeddings: Any = None,
    lock: LockFactory | None = None,
    episodes: bool = True,
    profile: bool = True,
) -> dict[str, Any]:
    """Write one job's candidates (blocking store I/O); the job's result summary.

    One scope lock for the whole job (the write path's compare-and-set makes it an
    optimisation, not a requirement), taken once instead of per record, then one store
    session for all of the job's store calls (``store_session``: a shared embedded store
    loads its shard once per job; inside the scope lock, so no process waits for a scope
    lock while it holds the store).
    """
    scope = "/".join(namespace(job.user_id, job.customer_id, "facts"))
    with (lock or local_lock)(scope), store_session(store):
        return _apply(store, job, candidates, consolidated, config=config,
                      embeddings=embeddings, episodes=episodes, profile=profile)  # fmt: skip


def _apply(
    store: BaseStore,
    job: Job,
    candidates: Sequence[Candidate],
    consolidated: int,
    *,
    config: WriteConfig,
    embeddings: Any,
    episodes: bool,
    profile: bool,
) -> dict[str, Any]:
    written: dict[str, int] = {}
    if episodes:
        written = write_episodes(store, job, config=config)
    actions: Counter[str] = Counter()
    writes = []
    versioned: list[tuple[str, str]] = []
    for idx, cand in enumerate(candidates):
        res = write_memory(
            store,
            job.user_id,
            job.customer_id,
            cand,
            embeddings=embeddings,
            record_id=derived_id(job.id, str(idx)),
            thread_id=job.thread_id,
            origin="consolidation" if idx < consolidated else "extraction",
            config=config,
            lock=_held,
        )
        actions[res.action] += 1
        writes.append({"id": res.id, "action": res.action, "reason": res.reason})
        if res.action == "versioned" and res.id and res.superseded:
            versioned.append((res.id, res.superseded))
    if versioned and episodes:
        outdated = outdate_superseded(store, job.user_id, job.customer_id, versioned)
        written["outdated"] = len(outdated)
    if profile and (actions["created"] or actions["versioned"]):
        compact_profile(store, job.user_id, job.customer_id)
    return {"writes": writes, "actions": dict(actions), "episodes": written}


def write_episodes(store: BaseStore, job: Job, *, config: WriteConfig) -> dict[str, int]:
    """The session transcript (audit), then one recallable episode per user turn, its
    context read from that transcript (``memagent.memory.episodes``)."""
    write_episode(store, job.user_id, job.customer_id, job.thread_id, job.turns, config=config)
    transcript = store.get(namespace(job.user_id, job.customer_id, "episodes"), job.thread_id)
    turns = with_times([t for t in job.turns if t.role != DIGEST_ROLE], job.created_at)
    report = write_turn_episodes(
        store,
        job.user_id,
        job.customer_id,
        job.thread_id,
        turns,
        transcript=transcript.value.get("turns", []) if transcript else [],
        config=config,
    )
    return report.to_dict()
