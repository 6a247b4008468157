"""Where a turn's extraction goes: the local outbox, or a run on the LangGraph server.

``MEMAGENT_EXTRACTION_MODE``:

- ``auto`` (default): decided per run. A run that a LangGraph server executes carries the
  server's stamp in its config (``metadata.langgraph_api_version``, set on every run by
  ``langgraph dev``, ``langgraph up`` and deployments); such a turn schedules a run of
  the ``memory_extractor`` graph on that server. Any other run (the CLI, the service,
  notebooks, tests) uses the local outbox and its worker. The stamp is the server's own
  word for "this run is mine", so no environment guess or flag has to be kept in sync.
- ``server``: always schedule on the server (a run outside one falls back to the outbox).
- ``local``: always the local outbox, e.g. beside ``memagent worker`` processes.

The scheduler is the pattern LangGraph documents for background memory: ``runs.create``
with ``after_seconds`` (the debounce) and ``multitask_strategy="rollback"`` on a thread
keyed by the conversation. It is not the conversation's own thread (the turn that
schedules is still running there, and rollback would cancel it) but one derived from it
(``extractor_thread``), created on first use (``if_not_exists="create"``).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Final, Literal

from langgraph.config import get_config
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.state import State
from memagent.graph.extractor_graph import EXTRACTOR_GRAPH
from memagent.nodes.extract_schedule import Node, make_server_extract

ExtractionMode = Literal["auto", "server", "local"]
SERVER_STAMP: Final = "langgraph_api_version"
_THREADS = uuid.UUID("6f1c1d2e-3b7a-5c4e-9a61-5d0e7f2a8b13")


def under_server() -> bool:
    """Whether the current run is executed by a LangGraph server (its config's stamp)."""
    try:
        config = get_config()
    except RuntimeError:  # not inside a run
        return False
    return bool((config.get("metadata") or {}).get(SERVER_STAMP))


def extractor_thread(conversation: str) -> str:
    """The extractor thread of a conversation: one per conversation, stable, a UUID."""
    return str(uuid.uuid5(_THREADS, f"{EXTRACTOR_GRAPH}:{conversation}"))


class SdkScheduler:
    """Schedules extraction runs through ``langgraph_sdk`` (in-process when ``url`` is
    None: the client then talks to the server it runs in, over ASGI, no socket)."""

    def __init__(self, *, url: str | None = None, graph_id: str = EXTRACTOR_GRAPH) -> None:
        self.url = url
        self.graph_id = graph_id
        self._client: Any = None

    async def _get_client(self) -> Any:
        if self._client is None:
            from langgraph_sdk import get_client

            # Building the httpx client reads proxy settings and CA files: not on the loop.
            self._client = await asyncio.to_thread(get_client, url=self.url)
        return self._client

    async def schedule(
        self, thread_id: str, payload: dict[str, Any], *, after_seconds: int
    ) -> None:
        client = await self._get_client()
        await client.runs.create(
            extractor_thread(thread_id),
            self.graph_id,
            input=payload,
            metadata={
                "conversation_thread": thread_id,
                "user_id": payload.get("user_id", ""),
                "customer_id": payload.get("customer_id", ""),
            },
            multitask_strategy="rollback",
            if_not_exists="create",
            after_seconds=after_seconds,
        )


def routed_extractor(mode: ExtractionMode, *, local: Node, server: Node) -> Node:
    """The async_extract node for ``mode``: per run, the server's scheduler or the outbox."""
    if mode not in ("auto", "server", "local"):
        raise ValueError(f"unknown extraction mode {mode!r}; expected auto, server or local")

    async def async_extract(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        if mode == "server" or (mode == "auto" and under_server()):
            return await server(state, runtime)
        return await local(state, runtime)

    return async_extract


def server_extractor(
    mode: ExtractionMode,
    *,
    local: Node,
    debounce_s: float,
    every_n_turns: int,
    scheduler: Any = None,
) -> Node:
    """async_extract for ``mode`` with the SDK scheduler; a run the server refuses to
    schedule (no ``memory_extractor`` graph, server busy) goes to the local outbox."""
    server = make_server_extract(
        scheduler or SdkScheduler(),
        debounce_s=debounce_s,
        every_n_turns=every_n_turns,
        fallback=local,
    )
    return routed_extractor(mode, local=local, server=server)
