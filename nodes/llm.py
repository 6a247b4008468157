"""The llm node: the main model answers from the assembled prompt, tools in between.

Small local models call tools unreliably with ``tool_choice="auto"``, so tool use is
routed: when the message plausibly needs a tool, a router (the LLM adapter's
``choose_tool``, a structured small-model call) picks the tool and its arguments, this
node emits that call as an ``AIMessage`` with ``tool_calls``, the ToolNode answers it,
and the model then writes the reply with the tool result in view. Calls and results
stay paired in the history; the number of tool rounds per turn is bounded.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.log_redaction import memagent_logger
from memagent.core.state import State
from memagent.nodes.fact_answer import rules_reply
from memagent.nodes.note_ack import acknowledgement, asks_something
from memagent.nodes.prompt_assembly import without_briefing
from memagent.nodes.reply_repeat import repeated, without_replies
from memagent.nodes.tools import needs_tool
from memagent.prompts.tools import TOOL_RESULTS

logger = memagent_logger(__name__)

MAX_TOOL_ROUNDS = 2
REPLY_TAG = "memagent:reply"
"""Tag on the reply model call, so streaming shows only reply tokens (not router JSON)."""
NOTE_ACK = "memagent_note_ack"
"""``name`` of a reply the rules wrote for a note (no model call), as Studio shows it."""
BRIEF = "memagent_brief"
"""``name`` of a reply written from the recalled facts (``memagent.nodes.brief_reply``,
``memagent.nodes.fact_answer``)."""
READ_ONLY_TOOLS = frozenset({"lookup_customer", "list_open_commitments", "search_memory"})
"""Tools that only read: a note (a message that asks nothing) never needs one."""


class ToolRouter(Protocol):
    """Picks the tool calls (possibly none) for the current message."""

    async def __call__(
        self, messages: Sequence[AnyMessage], tools: Sequence[BaseTool]
    ) -> list[ToolCall]: ...


def this_turn(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """Messages after the last user message: this turn's tool calls and results."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            return list(messages[i + 1 :])
    return []


def earlier_user_messages(messages: Sequence[AnyMessage]) -> list[str]:
    """The user messages before the last one (what a note's pronouns may refer to)."""
    users = [str(m.text) for m in messages if isinstance(m, HumanMessage)]
    return users[:-1]


def wanted_calls(routed: Sequence[ToolCall], tool_names: set[str], message: str) -> list[ToolCall]:
    """The router's calls the turn keeps: known tools, and no read-only one on a note.

    A hint word in a note ("we promised a demo") sent the router to ``lookup_customer``;
    for a new prospect the reply model then had a "not in the CRM" result beside a note
    and answered "Could you please provide more details about what tools were used"
    (session 12, ``memagent ask`` on a new prospect). A note asks for no lookup.
    """
    note = not asks_something(message)
    return [
        c for c in routed if c["name"] in tool_names and not (note and c["name"] in READ_ONLY_TOOLS)
    ]


def tool_rounds(turn: Sequence[AnyMessage]) -> int:
    return sum(1 for m in turn if isinstance(m, AIMessage) and m.tool_calls)


def with_tool_results(prompt: Sequence[AnyMessage], turn: Sequence[AnyMessage]) -> list[AnyMessage]:
    """The prompt with this turn's tool results folded into the current user message.

    The reply model is not bound to tools; a 1.5B model given tool-role messages or a
    separate "tool result" message tends to echo them, while a user message that carries
    the results gets answered.
    """
    results = [f"- {m.name}: {m.text}" for m in turn if isinstance(m, ToolMessage)]
    if not results:
        return list(prompt)
    out = list(prompt)
    last = next((i for i in range(len(out) - 1, -1, -1) if isinstance(out[i], HumanMessage)), None)
    question = str(out[last].text) if last is not None else ""
    folded = HumanMessage(TOOL_RESULTS.format(question=question, results="\n".join(results)))
    if last is None:
        return [*out, folded]
    out[last] = folded
    return out


def adapter_router(
    small_model: Callable[[], BaseChatModel], *, today: date | None = None
) -> ToolRouter:
    """The LLM adapter's ``achoose_tool`` (a grammar-constrained small-model call) as the
    router; imported on first use so importing the graph stays cheap. ``today``: the date
    the router is told (None: the clock)."""

    async def route(messages: Sequence[AnyMessage], tools: Sequence[BaseTool]) -> list[ToolCall]:
        from memagent.llm.adapter import achoose_tool

        chosen = await achoose_tool(small_model(), list(messages), list(tools), today=today)
        return _as_tool_calls(chosen)

    return route


def _as_tool_calls(result: Any) -> list[ToolCall]:
    """Normalise a router answer (None, a call, or a list of calls) to tool calls."""
    if not result:
        return []
    calls = result if isinstance(result, list) else [result]
    out: list[ToolCall] = []
    for call in calls:
        if isinstance(call, dict):
            name, args = call.get("name"), call.get("args") or {}
        else:
            name, args = getattr(call, "name", None), getattr(call, "args", None) or {}
        if name and name != "none":
            out.append(
                ToolCall(name=str(name), args=dict(args), id=f"call_{uuid.uuid4().hex[:12]}")
            )
    return out


async def _acknowledge(
    message: str, state: State, runtime: Runtime[Context], screen_model: bool
) -> str | None:
    """``note_ack.acknowledgement`` of this turn's message, off the event loop (the
    screen's weights load from disk once)."""
    return await asyncio.to_thread(
        acknowledgement,
        message,
        getattr(runtime.context, "customer_id", "") or "this customer",
        context=earlier_user_messages(state.messages),
        screen_model=screen_model,
    )


async def _canned_reply(
    message: str,
    state: State,
    runtime: Runtime[Context],
    note_reply: bool,
    brief_reply: bool,
    screen_model: bool,
) -> AIMessage | None:
    """The reply written without the model, when there is one: a note's acknowledgement
    (``note_reply``), or the recalled facts for a broad question or a question about one
    attribute (``brief_reply``)."""
    if note_reply:
        ack = await _acknowledge(message, state, runtime, screen_model)
        if ack is not None:
            return AIMessage(content=ack, name=NOTE_ACK)
    if brief_reply:
        customer = getattr(runtime.context, "customer_id", "") or ""
        brief = rules_reply(message, customer, state.briefing, degraded=state.degraded)
        if brief is not None:
            return AIMessage(content=brief, name=BRIEF)
    return None


def make_llm_node(
    model: Callable[[], BaseChatModel],
    *,
    tools: Sequence[BaseTool] = (),
    router: ToolRouter | None = None,
    max_tool_rounds: int = MAX_TOOL_ROUNDS,
    note_reply: bool = False,
    brief_reply: bool = False,
    screen_model: bool = True,
) -> Callable[..., Any]:
    """The llm node over a lazily created chat model (no server starts at import);
    ``note_reply`` and ``brief_reply``: replies written without the model (``_canned_reply``;
    ``screen_model``: ``MEMAGENT_POISON_MODEL`` for the note's screen)."""
    tool_names = {t.name for t in tools}

    async def llm(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        turn = this_turn(state.messages)
        prompt = list(state.prompt) or list(state.messages)
        message = next(
            (str(m.text) for m in reversed(state.messages) if isinstance(m, HumanMessage)), ""
        )
        if tool_rounds(turn) == 0:
            canned = await _canned_reply(
                message, state, runtime, note_reply, brief_reply, screen_model
            )
            if canned is not None:
                return {"messages": [canned]}
        if router and tools and tool_rounds(turn) == 0 and needs_tool(message):
            routed = await _route(router, without_briefing(prompt), tools)
            calls = wanted_calls(routed, tool_names, message)
            if calls:
                return {"messages": [AIMessage(content="", tool_calls=calls)]}
        chat = model()
        ctx = runtime.context
        overrides = {
            k: v
            for k, v in (
                ("model", getattr(ctx, "model", None)),
                ("temperature", getattr(ctx, "temperature", None)),
            )
            if v is not None
        }
        if overrides:  # a Studio assistant or a caller may pick another model per run
            chat = chat.bind(**overrides)  # type: ignore[assignment]
        sent = with_tool_results(prompt, turn)
        reply = await chat.ainvoke(sent, config={"tags": [REPLY_TAG]})
        copied = repeated(reply, sent)
        if copied:  # the small model copied an earlier reply: ask once more without it
            logger.info("the reply repeated an earlier reply (near copy); asking again without it")
            reply = await chat.ainvoke(without_replies(sent, copied), config={"tags": [REPLY_TAG]})
        if (
            isinstance(reply, AIMessage)
            and reply.tool_calls
            and tool_rounds(turn) >= max_tool_rounds
        ):
            reply = AIMessage(content=reply.text or "", id=reply.id)
        return {"messages": [reply]}

    return llm


async def _route(
    router: ToolRouter, prompt: Sequence[AnyMessage], tools: Sequence[BaseTool]
) -> list[ToolCall]:
    try:
        return await router(prompt, tools)
    except Exception as exc:  # routing is best effort: answer without tools
        logger.warning("tool routing failed, answering without tools: %s", exc)
        return []


def today() -> str:
    return date.today().isoformat()
