"""Recall waits, bounded, for the account's extraction still under way.

A note is stored by the background worker a moment after its reply (episode, then
facts). A question asked right after it ("What do you know about Acme?", in the same
session or a new one) used to be recalled before that, and found nothing of the note:
the reply never waits for extraction, but a question about the account should see what
the salesperson has just said. So recall first waits for the jobs of this user and
customer that are due and not finished yet (pending or running; a job debounced into the
future is left to its debounce), at most ``wait_s`` seconds, and then searches as
always: what is stored by then is found. The wait polls the outbox in a thread, never on
the event loop. Only an agent with an in-process worker waits (``MEMAGENT_WORKER=
inprocess``, the CLI's default): without one, a job nobody takes would cost every turn
the whole bound."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State
from memagent.nodes.recall import RecallNode

if TYPE_CHECKING:
    from memagent.graph.jobs import Outbox

log = memagent_logger(__name__)

RECALL_WAIT_S = 10.0
"""The default bound of the wait: the rules extractor stores a note in well under a
second on an idle machine; the LLM extractor may take longer, and then the question is
answered from what is stored by then."""

POLL_S = 0.2
"""How often the outbox is read while waiting (a SQLite read of a few rows)."""


async def wait_for_extraction(
    queue: Outbox, user_id: str, customer_id: str, *, wait_s: float
) -> bool:
    """Wait until no job of the account is due or running, at most ``wait_s`` seconds;
    False when the bound was reached first."""
    deadline = time.monotonic() + wait_s
    while await asyncio.to_thread(queue.unfinished, user_id, customer_id, time.time()):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_S)
    return True


def awaiting_extraction(
    recall: RecallNode, queue_factory: Callable[[], Outbox | None], *, wait_s: float
) -> RecallNode:
    """``recall``, run once the account's due extraction jobs are done (at most ``wait_s``
    seconds later). An outbox that cannot be read only logs: recall runs at once."""

    async def recall_after_extraction(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        try:
            queue = await asyncio.to_thread(queue_factory)
            if queue is not None and not await wait_for_extraction(
                queue, ctx.user_id, ctx.customer_id, wait_s=wait_s
            ):
                log.info("recall did not wait longer than %.0f s for extraction", wait_s)
        except Exception as exc:
            log.warning("recall could not read the extraction outbox: %s", exc)
        return await recall(state, runtime)

    return recall_after_extraction
