"""The agent graph: check_message -> query_rewrite -> recall -> prompt_assembly -> llm (<-> tools) ->
async_extract -> end_of_turn.

Pluggable slots (rewriter, recall, extraction) are filled when the graph is built, from
a factory per implementation chosen by settings; the topology and the checkpoint
channels are the same whichever implementations fill them. The module-level ``graph``
has no persistence (``langgraph dev`` adds its own); ``memagent.graph.agent`` compiles
it with the SQLite checkpointer and the store. Importing this module starts no server
and loads no model: models, the job queue and the CRM are created on first use.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.settings import Settings
from memagent.core.state import InputState, State
from memagent.graph.failed_turn import remembering
from memagent.graph.message_check import (
    CHECK_MESSAGE,
    REJECT_MESSAGE,
    make_check_message,
    reject_message,
)
from memagent.graph.settings import get_settings
from memagent.graph.tracing import traced
from memagent.memory.crm import open_crm
from memagent.nodes.llm import MAX_TOOL_ROUNDS, ToolRouter, adapter_router, make_llm_node
from memagent.nodes.query_rewrite import Rewriter, make_rewriter
from memagent.nodes.recall import AccessLog, RecallNode, make_recall_node
from memagent.nodes.recall_expand import RecallTuning
from memagent.nodes.tools import make_tool_node, make_tools

if TYPE_CHECKING:
    from memagent.graph.jobs import Outbox


log = memagent_logger(__name__)

QUERY_REWRITE: Final = "query_rewrite"
RECALL: Final = "recall"
PROMPT_ASSEMBLY: Final = "prompt_assembly"
LLM: Final = "llm"
TOOLS: Final = "tools"
ASYNC_EXTRACT: Final = "async_extract"
END_OF_TURN: Final = "end_of_turn"
NODES = (
    CHECK_MESSAGE,
    REJECT_MESSAGE,
    QUERY_REWRITE,
    RECALL,
    PROMPT_ASSEMBLY,
    LLM,
    TOOLS,
    ASYNC_EXTRACT,
    END_OF_TURN,
)


class Node(Protocol):
    """Every graph node: ``async (state, runtime) -> partial state update``."""

    async def __call__(self, state: State, runtime: Runtime[Context]) -> dict[str, Any]: ...


class ExtractNode(Node, Protocol):
    """The extraction slot: hands the finished turn to background extraction and returns."""


class ChatModelFactory(Protocol):
    """``memagent.llm.adapter.chat_model``'s shape: a chat model for settings, small or main."""

    def __call__(
        self, settings: Settings | None = None, *, small: bool = False
    ) -> BaseChatModel: ...


def default_chat_model_factory(
    settings: Settings | None = None, *, small: bool = False
) -> BaseChatModel:
    """The LLM adapter (imported on first model use, so importing the graph is cheap)."""
    from memagent.llm.adapter import chat_model

    return chat_model(settings or get_settings(), small=small)


def route_after_llm(state: State) -> Literal["tools", "async_extract"]:
    """Tool calls go to the ToolNode; a reply ends the turn with extraction."""
    last = state.messages[-1] if state.messages else None
    if isinstance(last, AIMessage) and last.tool_calls:
        return TOOLS
    return ASYNC_EXTRACT


def make_end_of_turn(after_reply: Node, access_log: AccessLog | None) -> Node:
    """The end_of_turn node, after the reply and the extraction enqueue: the session hook
    (summary fold and working-memory patch, with the small model when settings ask for
    it), then the recalled records' access stats are written in the background."""

    async def end_of_turn(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        update = await after_reply(state, runtime)
        if access_log is not None:
            access_log.flush(runtime.store)
        return update

    return end_of_turn


def off_extractor() -> ExtractNode:
    """``MEMAGENT_EXTRACTOR=off``: nothing is extracted."""

    async def extract_off(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        return {}

    return extract_off


def queue_extractor(queue_factory: Callable[[], Outbox | None]) -> ExtractNode:
    """Enqueue the turn on the durable job queue (opened on first use, not at import)."""

    @functools.cache
    def node() -> Callable[[State, Runtime[Context]], Awaitable[dict[str, Any]]]:
        from memagent.nodes.async_extract import make_async_extract

        queue = queue_factory()
        if queue is None:
            raise RuntimeError("extraction is on but no job queue was given")
        return make_async_extract(queue)

    async def extract(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        # Opening the queue touches the disk: keep it off the event loop.
        return await (await asyncio.to_thread(node))(state, runtime)

    return extract


def make_extractor(
    kind: Literal["llm", "rules", "off"],
    queue_factory: Callable[[], Outbox | None],
    *,
    mode: Literal["auto", "server", "local"] = "local",
    debounce_s: float = 0.0,
    every_n_turns: int = 4,
) -> ExtractNode:
    """The extraction node chosen by ``MEMAGENT_EXTRACTOR``; the worker picks the extractor
    (llm or rules) that drains the queue, so both enqueue the same way. ``mode``
    (``MEMAGENT_EXTRACTION_MODE``) sends the turns of runs a LangGraph server executes
    to its ``memory_extractor`` graph instead (``memagent.graph.extraction_server``)."""
    if kind == "off":
        return off_extractor()
    if kind not in ("llm", "rules"):
        raise ValueError(f"unknown extractor {kind!r}; expected llm, rules or off")
    local = queue_extractor(queue_factory)
    if mode == "local":
        return local
    from memagent.graph.extraction_server import server_extractor

    return server_extractor(mode, local=local, debounce_s=debounce_s, every_n_turns=every_n_turns)


def _summary_model(
    settings: Settings | None, small_model: Callable[[], BaseChatModel]
) -> BaseChatModel | None:
    """The graph's small model for after-reply summaries, when its settings ask for one."""
    from memagent.nodes.prompt_assembly import wants_model_summaries

    return small_model() if wants_model_summaries(settings or get_settings()) else None


def _llm_node(
    main_model: Callable[[], BaseChatModel],
    tools: Sequence[BaseTool],
    router: ToolRouter,
    max_tool_rounds: int,
    settings: Settings | None,
) -> Node:
    """The llm node; a note is acknowledged without the model when settings say so
    (``MEMAGENT_NOTE_REPLY=rules``, the default; ``memagent.nodes.note_ack``), screened
    with the write path's screen (``MEMAGENT_POISON_MODEL``); a broad question about the
    account is answered with the recalled facts (``MEMAGENT_BRIEF_REPLY=rules``, the
    default; ``memagent.nodes.brief_reply``)."""
    note_reply = settings is not None and settings.note_reply == "rules"
    return make_llm_node(  # type: ignore[no-any-return]
        main_model,
        tools=tools,
        router=router,
        max_tool_rounds=max_tool_rounds,
        note_reply=note_reply,
        brief_reply=settings is not None and settings.brief_reply == "rules",
        screen_model=settings is None or bool(settings.poison_model),
    )


def build_graph(
    *,
    rewriter: Rewriter,
    recall: RecallNode,
    extractor: ExtractNode,
    tools: Sequence[BaseTool],
    chat_model_factory: ChatModelFactory = default_chat_model_factory,
    settings: Settings | None = None,
    prompt_assembly: Node | None = None,
    after_reply: Node | None = None,
    router: ToolRouter | None = None,
    access_log: AccessLog | None = None,
    max_tool_rounds: int = MAX_TOOL_ROUNDS,
) -> StateGraph[State, Context, InputState, State]:
    """The uncompiled graph with the given slot implementations."""
    main_model = functools.cache(lambda: chat_model_factory(settings, small=False))
    small_model = functools.cache(lambda: chat_model_factory(settings, small=True))
    if prompt_assembly is None or after_reply is None:
        from memagent.nodes import prompt_assembly as session

        # Bound to the graph's settings (window, reply reserve, working-memory TTL) and its
        # own small model, not the process-wide ones, so an agent opened with explicit
        # Settings or a chat_model_factory honours them after the reply too.
        prompt_assembly = prompt_assembly or (
            session.make_prompt_assembly(settings) if settings else session.prompt_assembly
        )
        if after_reply is None:
            after_reply = session.make_after_reply(
                functools.partial(_summary_model, settings, small_model), settings=settings
            )
    if router is None:
        router = adapter_router(small_model, today=settings.today if settings else None)

    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    # Every node before the extraction hands the turn over if it fails
    # (memagent.graph.failed_turn), so a failed run is remembered once, in Studio as well.
    # A rejected message is removed from the thread, then the run fails (message_check).
    check = make_check_message(QUERY_REWRITE)
    builder.add_node(CHECK_MESSAGE, check, destinations=(QUERY_REWRITE, REJECT_MESSAGE))
    builder.add_node(REJECT_MESSAGE, cast(Any, reject_message))  # takes the Send payload
    builder.add_node(QUERY_REWRITE, traced(QUERY_REWRITE, remembering(rewriter, extractor)))
    builder.add_node(RECALL, traced(RECALL, remembering(recall, extractor)))
    builder.add_node(
        PROMPT_ASSEMBLY, traced(PROMPT_ASSEMBLY, remembering(prompt_assembly, extractor))
    )
    llm_node = _llm_node(main_model, tools, router, max_tool_rounds, settings)
    builder.add_node(LLM, traced(LLM, remembering(llm_node, extractor)))
    builder.add_node(TOOLS, make_tool_node(list(tools)))
    builder.add_node(ASYNC_EXTRACT, traced(ASYNC_EXTRACT, extractor))
    builder.add_node(END_OF_TURN, traced(END_OF_TURN, make_end_of_turn(after_reply, access_log)))
    builder.add_edge(START, CHECK_MESSAGE)
    builder.add_edge(QUERY_REWRITE, RECALL)
    builder.add_edge(RECALL, PROMPT_ASSEMBLY)
    builder.add_edge(PROMPT_ASSEMBLY, LLM)
    builder.add_conditional_edges(LLM, route_after_llm, [TOOLS, ASYNC_EXTRACT])
    builder.add_edge(TOOLS, LLM)
    builder.add_edge(ASYNC_EXTRACT, END_OF_TURN)
    builder.add_edge(END_OF_TURN, END)
    return builder


def build_default_graph(
    settings: Settings | None = None,
    *,
    chat_model_factory: ChatModelFactory = default_chat_model_factory,
    queue_factory: Callable[[], Outbox | None] | None = None,
    access_log: AccessLog | None = None,
    recall_wait_s: float | None = None,
    **overrides: Any,
) -> StateGraph[State, Context, InputState, State]:
    """The graph with the implementations settings choose (``MEMAGENT_REWRITER``,
    ``MEMAGENT_RECALL``, ``MEMAGENT_EXTRACTOR``); ``overrides`` replace any slot.
    ``recall_wait_s`` bounds recall's wait for the account's extraction under way
    (default ``memagent.graph.recall_wait.RECALL_WAIT_S``; 0 never waits)."""
    settings = settings or get_settings()
    tuning = RecallTuning(
        feedback_weight=settings.recall_feedback_weight,
        entity_focus=settings.recall_entity_focus,
        names_out=settings.recall_names_out,
    )
    small = functools.cache(lambda: chat_model_factory(settings, small=True))

    @functools.cache
    def default_queue() -> Outbox:
        from memagent.graph.jobs import open_queue

        return open_queue(settings)

    access_log = access_log if access_log is not None else AccessLog()
    slots: dict[str, Any] = {
        "rewriter": make_rewriter(settings.rewriter, small_model=small),
        "recall": make_recall_node(settings.recall, tuning=tuning, access_log=access_log),
        "extractor": make_extractor(
            settings.extractor,
            queue_factory or default_queue,
            mode=settings.extraction_mode,
            debounce_s=settings.extract_debounce_s,
            every_n_turns=settings.extract_every_n_turns,
        ),
        "tools": make_tools(open_crm(settings.crm_location), tuning=tuning),
    }
    slots.update(overrides)
    if settings.worker == "inprocess" and settings.extractor != "off" and recall_wait_s != 0:
        from memagent.graph.recall_wait import RECALL_WAIT_S, awaiting_extraction

        wait_s = RECALL_WAIT_S if recall_wait_s is None else recall_wait_s
        slots["recall"] = awaiting_extraction(
            slots["recall"], queue_factory or default_queue, wait_s=wait_s
        )
    return build_graph(
        chat_model_factory=chat_model_factory, settings=settings, access_log=access_log, **slots
    )


def router_probe(settings: Settings) -> list[dict[str, str]]:
    """The background server's start-up probe for this install: the tool router's system
    prompt with the agent's tools and the date it will state (``llm.routing.router_probe``)."""
    from datetime import date

    from memagent.llm.routing import router_probe as probe

    tools = make_tools(open_crm(settings.crm_location))  # the specs only: nothing is read
    return probe(tools, settings.today or date.today())


@functools.cache
def studio_graph() -> CompiledStateGraph[State, Context, InputState, State]:
    """The agent without persistence, for ``langgraph dev`` / Studio (langgraph.json's
    ``memagent.graph.builder:graph``): built with the process's settings on first access,
    which is also where the install's redaction key is pinned for log records, and where
    the local model server starts loading (``MEMAGENT_LLM_PRESTART``)."""
    from memagent.core.log_redaction import pin_redaction_key
    from memagent.core.redact import install_key
    from memagent.llm.server import prestart_local_server

    settings = get_settings()
    pin_redaction_key(lambda: install_key(settings.home))  # read on the first record
    compiled = build_default_graph(settings).compile(name="memagent")
    prestart_local_server(settings, functools.partial(router_probe, settings))  # loads now
    return compiled


def graph() -> CompiledStateGraph[State, Context, InputState, State]:
    """langgraph.json's ``memagent.graph.builder:graph``: a zero-argument graph factory
    (``langgraph dev`` calls it; it reads a module-level name, so it cannot be lazy any
    other way). Importing this module compiles nothing and reads no environment."""
    return studio_graph()
