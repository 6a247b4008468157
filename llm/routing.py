"""Tool routing as a structured call (``achoose_tool``): a 1.5B model rarely calls tools
on its own with ``tool_choice="auto"``; and a forced call (``aforce_tool_call``).

Split out of ``memagent.llm.adapter``, which re-exports every public name.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolCall
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

from memagent.llm.structured import LLMOutputError, _output_error, ask_parsed, parse_output

# Router instructions. Kept beside the code that parses their answers (the node
# prompts live in prompts/).
ROUTER_SYSTEM = (
    "You decide whether a sales assistant must call a tool for the user's latest "
    "request. Tools:\n{tools}\n\n"
    'Answer with a JSON object {{"tool": <tool name or "none">, "args": {{...}}}}. '
    'Pick "none" when the request is small talk or can be answered without a tool. '
    "Fill args only from the conversation. Today is {today}."
)
ROUTER_REQUEST = "Conversation so far:\n{history}\n\nLatest request: {request}"

ToolLike = BaseTool | type[BaseModel] | dict[str, Any] | Callable[..., Any]


class _Route(BaseModel):
    tool: str
    args: dict[str, Any] = {}


def tool_specs(tools: Sequence[ToolLike]) -> list[dict[str, Any]]:
    """OpenAI function specs (name, description, parameters) of the tools."""
    return [convert_to_openai_tool(t)["function"] for t in tools]


def router_schema(specs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One branch per tool, so the grammar ties each tool name to its own args."""
    branches = [
        {
            "type": "object",
            "properties": {
                "tool": {"const": spec["name"]},
                "args": spec.get("parameters") or {"type": "object", "properties": {}},
            },
            "required": ["tool", "args"],
        }
        for spec in specs
    ]
    none = {"type": "object", "properties": {}, "additionalProperties": False}
    branches.append(
        {
            "type": "object",
            "properties": {"tool": {"const": "none"}, "args": none},
            "required": ["tool", "args"],
        }
    )
    return {"anyOf": branches}


def _history(messages: Sequence[BaseMessage], limit: int = 6, chars: int = 300) -> str:
    lines = [f"{m.type}: {m.text[:chars]}" for m in messages[-limit:] if m.text.strip()]
    return "\n".join(lines) or "(none)"


def router_messages(
    request: str | Sequence[BaseMessage], specs: Sequence[dict[str, Any]], today: date
) -> list[BaseMessage]:
    """System prompt listing the tools, then the recent conversation and the request."""
    if isinstance(request, str):
        history: Sequence[BaseMessage] = []
        last = request
    else:
        humans = [i for i, m in enumerate(request) if isinstance(m, HumanMessage)]
        cut = humans[-1] if humans else len(request)
        history = [m for m in request[:cut] if not isinstance(m, SystemMessage)]
        last = request[cut].text if humans else ""
    listing = "\n".join(
        f"- {s['name']}: {s.get('description', '').strip()} "
        f"args: {json.dumps((s.get('parameters') or {}).get('properties', {}))}"
        for s in specs
    )
    return [
        SystemMessage(content=ROUTER_SYSTEM.format(tools=listing, today=today.isoformat())),
        HumanMessage(content=ROUTER_REQUEST.format(history=_history(history), request=last)),
    ]


def router_probe(tools: Sequence[ToolLike], today: date) -> list[dict[str, str]]:
    """A one-token request whose system prompt is the router's for ``tools`` and ``today``
    (the background server's start-up probe, ``memagent.llm.server``): evaluated at
    start-up, it stays the server's cached prefix, and the first routed turn evaluates only
    the conversation after it."""
    system = router_messages("hi", tool_specs(tools), today)[0]
    return [{"role": "system", "content": system.text}, {"role": "user", "content": "hi"}]


def _router_format(specs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": "route", "schema": router_schema(specs), "strict": False},
    }


def validate_route(
    text: str, tools: Sequence[ToolLike], specs: Sequence[dict[str, Any]]
) -> ToolCall | None:
    """The routed call with args validated by the tool's own schema, or None."""
    route = parse_output(text, _Route)
    if route.tool == "none":
        return None
    names = [s["name"] for s in specs]
    if route.tool not in names:
        raise ValueError(f"unknown tool {route.tool!r}; expected one of {names}")
    tool = tools[names.index(route.tool)]
    args = route.args
    if isinstance(tool, BaseTool):
        call_schema = tool.tool_call_schema
        if isinstance(call_schema, type) and issubclass(call_schema, BaseModel):
            args = call_schema.model_validate(args).model_dump(mode="json", exclude_unset=True)
    elif isinstance(tool, type) and issubclass(tool, BaseModel):
        args = tool.model_validate(args).model_dump(mode="json", exclude_unset=True)
    return ToolCall(
        name=route.tool, args=args, id=f"call_{uuid.uuid4().hex[:12]}", type="tool_call"
    )


async def achoose_tool(
    model: BaseChatModel,
    user_message: str | Sequence[BaseMessage],
    tools: Sequence[ToolLike],
    *,
    today: date | None = None,
) -> ToolCall | None:
    """Route one request: the tool call to make (args validated), or None for no tool.

    ``user_message`` is the request, or the conversation whose last human message is it.
    Deterministic (temperature 0); one retry, then ``LLMOutputError``.
    """
    if not tools:
        return None
    specs = tool_specs(tools)
    return await ask_parsed(
        model,
        router_messages(user_message, specs, today or date.today()),
        lambda text: validate_route(text, tools, specs),
        failure=functools.partial(_output_error, _Route),
        response_format=_router_format(specs),
        temperature=0,
    )


def _forced(model: BaseChatModel, tool: ToolLike) -> Any:
    name = convert_to_openai_tool(tool)["function"]["name"]
    return model.bind_tools([tool], tool_choice=name), name


def _first_call(reply: BaseMessage, name: str) -> ToolCall:
    calls = getattr(reply, "tool_calls", None) or []
    if not calls:
        raise LLMOutputError(f"model did not call the forced tool {name!r}")
    return calls[0]


async def aforce_tool_call(
    model: BaseChatModel, messages: Sequence[BaseMessage], tool: ToolLike
) -> ToolCall:
    """Make the model call ``tool`` (named ``tool_choice``: args constrained by its schema)."""
    bound, name = _forced(model, tool)
    return _first_call(await bound.ainvoke(list(messages)), name)
