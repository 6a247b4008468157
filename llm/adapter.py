"""Every model call goes through here: a ChatOpenAI that speaks to llama.cpp's server.

llama-cpp-python's OpenAI-compatible server differs from OpenAI in three ways that
matter to us, and they are handled in one place (``LlamaCppChatOpenAI``):
it ignores ``max_completion_tokens`` (it reads ``max_tokens``), it rejects assistant
messages whose content is ``None`` (ChatOpenAI sends that for tool-call turns), and it
takes structured output only as ``{"type": "json_object", "schema": ...}``. Callers
write standard OpenAI requests; the adapter rewrites the payload.

On top of it, async only (the product's path): ``ask_parsed`` (the one parse of a model
answer, with one retry), ``astructured`` (schema-constrained JSON validated by Pydantic)
and ``achoose_tool`` (tool routing as a structured call, because a 1.5B model rarely
calls tools on its own with ``tool_choice="auto"``).
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from datetime import date
from typing import Any, Literal, TypeVar

import httpx
import openai
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolCall
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, PrivateAttr, ValidationError

from memagent.core.settings import Settings
from memagent.llm.server import (
    LLMUnavailableError,
    Role,
    aensure_local_server,
    ensure_local_server,
)

__all__ = [
    "LLMOutputError",
    "LLMUnavailableError",
    "LlamaCppChatOpenAI",
    "achoose_tool",
    "aforce_tool_call",
    "ask_parsed",
    "astructured",
    "chat_model",
    "check_llm",
]

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
Compat = Literal["llamacpp", "openai"]
PENDING_URL = "http://127.0.0.1:9/v1"
"""Placeholder until the local server is resolved on the first request."""
_ENDPOINT_READY = "_memagent_endpoint_ready"
"""Request kwarg from the async paths to ``_get_request_payload``: resolved already."""

# Adapter instructions. Kept beside the code that parses their answers (the node
# prompts live in prompts/); callers may pass their own.
STRUCTURED_RETRY = (
    "That reply was not valid ({error}). Answer again with only a JSON object "
    "that matches the required schema."
)
ROUTER_SYSTEM = (
    "You decide whether a sales assistant must call a tool for the user's latest "
    "request. Tools:\n{tools}\n\n"
    'Answer with a JSON object {{"tool": <tool name or "none">, "args": {{...}}}}. '
    'Pick "none" when the request is small talk or can be answered without a tool. '
    "Fill args only from the conversation. Today is {today}."
)
ROUTER_REQUEST = "Conversation so far:\n{history}\n\nLatest request: {request}"


class LLMOutputError(ValueError):
    """The model's answer is not valid for the requested schema, even after a retry."""


# --- the adapter --------------------------------------------------------------------------


def adapt_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """Rewrite an OpenAI chat payload into what llama-cpp-python's server accepts.

    ``response_format`` moves into ``extra_body`` so ChatOpenAI takes its plain
    ``create`` path (its ``parse`` path would try to validate OpenAI's own format).
    """
    if "max_completion_tokens" in payload:
        payload["max_tokens"] = payload.pop("max_completion_tokens")
    for message in payload.get("messages", []):
        if message.get("role") == "assistant" and message.get("content") is None:
            message["content"] = ""
    if "response_format" in payload:
        fmt = llamacpp_response_format(payload.pop("response_format"))
        if fmt is not None:
            payload["extra_body"] = {**(payload.get("extra_body") or {}), "response_format": fmt}
    return payload


def llamacpp_response_format(fmt: Any) -> dict[str, Any] | None:
    """OpenAI ``json_schema`` (or a Pydantic class) -> ``json_object`` + ``schema``."""
    if isinstance(fmt, type) and issubclass(fmt, BaseModel):
        return {"type": "json_object", "schema": json_schema(fmt)}
    if not isinstance(fmt, dict) or fmt.get("type") == "text":
        return None
    if fmt.get("type") == "json_schema":
        return {"type": "json_object", "schema": fmt.get("json_schema", {}).get("schema", {})}
    return dict(fmt)


class LlamaCppChatOpenAI(ChatOpenAI):
    """ChatOpenAI with the llama.cpp quirk adapter and a lazily resolved base URL.

    ``compat="openai"`` leaves payloads untouched except ``None`` assistant content.
    Connection failures surface as ``LLMUnavailableError`` with a one-line message.

    Resolving the local server may assemble the model and start a process, which blocks
    for seconds to minutes: the async paths resolve it off the event loop first (and tell
    ``_get_request_payload``, which ChatOpenAI calls on the loop, not to do it again).
    """

    compat: Compat = "llamacpp"
    _resolve_base_url: Callable[[], str] | None = PrivateAttr(default=None)
    _aresolve_base_url: Callable[[], Awaitable[str]] | None = PrivateAttr(default=None)

    def _use_base_url(self, url: str) -> None:
        if url != self.openai_api_base:
            self.openai_api_base = url
            for client in (self.root_client, self.root_async_client):
                if client is not None:
                    client.base_url = httpx.URL(url)

    def _endpoint(self) -> None:
        if self._resolve_base_url is not None:
            self._use_base_url(self._resolve_base_url())

    async def _aendpoint(self) -> None:
        if self._aresolve_base_url is not None:
            self._use_base_url(await self._aresolve_base_url())
        elif self._resolve_base_url is not None:
            self._use_base_url(await asyncio.to_thread(self._resolve_base_url))

    def _get_request_payload(
        self, input_: LanguageModelInput, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict:
        if not kwargs.pop(_ENDPOINT_READY, False):
            self._endpoint()
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if self.compat == "llamacpp":
            return adapt_payload(payload)
        for message in payload.get("messages", []):
            if message.get("role") == "assistant" and message.get("content") is None:
                message["content"] = ""
        return payload

    def _unavailable(self, error: Exception) -> LLMUnavailableError:
        what = "timed out" if isinstance(error, openai.APITimeoutError) else "unreachable"
        return LLMUnavailableError(f"LLM endpoint {self.openai_api_base} {what}: {error}")

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        try:
            return super()._generate(*args, **kwargs)
        except openai.APIConnectionError as e:
            raise self._unavailable(e) from None

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        await self._aendpoint()
        try:
            return await super()._agenerate(*args, **{**kwargs, _ENDPOINT_READY: True})
        except openai.APIConnectionError as e:
            raise self._unavailable(e) from None

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        try:
            yield from super()._stream(*args, **kwargs)
        except openai.APIConnectionError as e:
            raise self._unavailable(e) from None

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        await self._aendpoint()
        try:
            async for chunk in super()._astream(*args, **{**kwargs, _ENDPOINT_READY: True}):
                yield chunk
        except openai.APIConnectionError as e:
            raise self._unavailable(e) from None


def chat_model(settings: Settings, *, small: bool = False, **overrides: Any) -> LlamaCppChatOpenAI:
    """The chat model for ``settings`` (main or small); building it starts nothing.

    With no ``base_url`` the local llama.cpp server is started (or reused) on the
    first request. ``overrides`` are ChatOpenAI fields and win over settings.
    """
    s = settings
    local = s.base_url is None and "base_url" not in overrides
    params: dict[str, Any] = {
        "model": (s.small_model or s.model) if small else s.model,
        "base_url": s.base_url or PENDING_URL,
        "api_key": s.api_key,
        "temperature": s.temperature,
        "max_tokens": s.reply_tokens,
        "timeout": s.llm_timeout,
        "max_retries": 1,
        "compat": "llamacpp" if local else "openai",
        **overrides,
    }
    model = LlamaCppChatOpenAI(**params)
    if local:
        role = server_role(s, small=small)
        model._resolve_base_url = lambda: ensure_local_server(s, role)
        model._aresolve_base_url = lambda: aensure_local_server(s, role)
    return model


def server_role(settings: Settings, *, small: bool) -> Role:
    """Which local server answers: the small-model calls (routing, summary, extraction,
    rewriting) go to the background server when ``prefix_reuse`` is on, so they never
    evict the chat's evaluated prefix (``memagent.llm.server``)."""
    return "background" if small and settings.prefix_reuse else "chat"


# --- structured output --------------------------------------------------------------------


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace ``$ref``s into ``$defs`` by their definitions (bounds and enums kept).

    Small grammars and small models both do better with one self-contained schema.
    """
    defs = schema.get("$defs", {})

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name in seen:
                    raise ValueError(f"recursive schema {name!r} is not supported")
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return walk({**copy.deepcopy(defs[name]), **rest}, (*seen, name))
            return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        return node

    return walk(schema, ())


def json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    return inline_refs(schema.model_json_schema())


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """Standard OpenAI structured-output request (the adapter rewrites it for llama.cpp)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": json_schema(schema), "strict": False},
    }


def parse_output(text: str, schema: type[M]) -> M:
    """Parse a model answer; tolerates code fences some models wrap JSON in."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    return schema.model_validate_json(body)


def _error_text(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "object"
        return f"{where}: {first['msg']}"
    return str(error).splitlines()[0][:200]


def _output_error(schema: type[BaseModel], text: str, error: Exception) -> LLMOutputError:
    return LLMOutputError(
        f"model output is not a valid {schema.__name__} after a retry "
        f"({_error_text(error)}): {text[:200]!r}"
    )


async def ask_parsed(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    parse: Callable[[str], T],
    *,
    failure: Callable[[str, Exception], Exception],
    retry_prompt: Callable[[Exception], str] | None = None,
    **kwargs: Any,
) -> T:
    """One model call whose answer ``parse`` must accept, with one retry.

    The one JSON-from-model loop: when ``parse`` raises ``ValueError`` (JSON and Pydantic
    errors are ValueErrors) the answer and the error go back to the model once
    (``retry_prompt``, default ``STRUCTURED_RETRY`` with the error); a second bad answer
    raises ``failure(text, error)``. ``kwargs`` go to every call (``response_format``, ...).
    """
    msgs = list(messages)
    for attempt in range(2):
        text = str((await model.ainvoke(msgs, **kwargs)).text)
        try:
            return parse(text)
        except ValueError as e:
            if attempt:
                raise failure(text, e) from None
            prompt = (
                retry_prompt(e) if retry_prompt else STRUCTURED_RETRY.format(error=_error_text(e))
            )
            msgs = [*msgs, AIMessage(content=text), HumanMessage(content=prompt)]
    raise AssertionError("unreachable")


async def astructured(
    model: BaseChatModel, messages: Sequence[BaseMessage], schema: type[M], **kwargs: Any
) -> M:
    """Ask for JSON constrained by ``schema``; validate; one retry; else ``LLMOutputError``."""
    return await ask_parsed(
        model,
        messages,
        functools.partial(parse_output, schema=schema),
        failure=functools.partial(_output_error, schema),
        response_format=response_format(schema),
        **kwargs,
    )


# --- tool routing -------------------------------------------------------------------------

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


# --- doctor -------------------------------------------------------------------------------


def check_llm(settings: Settings, *, probe: bool = True) -> tuple[bool, str]:
    """For ``memagent doctor``: can we get an answer from the configured model?

    ``probe=False`` only checks that the pieces are there (no server is started).
    """
    s = settings
    if s.base_url:
        try:
            r = httpx.get(
                f"{s.base_url.rstrip('/')}/models",
                headers={"Authorization": f"Bearer {s.api_key.get_secret_value()}"},
                timeout=min(s.llm_timeout, 10.0),
            )
        except httpx.HTTPError as e:
            return False, f"endpoint {s.base_url} unreachable: {e.__class__.__name__}"
        if r.status_code != 200:
            return False, f"endpoint {s.base_url} answered HTTP {r.status_code}"
        return True, f"endpoint {s.base_url} is up (model {s.model})"
    return _check_local(s, probe)


def _check_local(s: Settings, probe: bool) -> tuple[bool, str]:
    import importlib.util

    from memagent.llm import server as llm_server

    if importlib.util.find_spec("llama_cpp") is None:
        return False, f"local LLM: llama-cpp-python is not installed ({llm_server.PIP_HINT})"
    try:
        if not probe:
            if s.gguf_path is not None:
                return True, f"local LLM: {llm_server.model_path(s)}"
            llm_server.part_paths()
            model = s.model_dir.expanduser() / llm_server.MODEL_FILENAME
            where = (
                f"at {model}" if model.is_file() else f"assembled on first use in {model.parent}"
            )
            return True, f"local LLM: model parts installed, model {where}"
        reply = chat_model(s, max_tokens=4).invoke("Say OK.")
    except LLMUnavailableError as e:
        return False, f"local LLM: {e}".splitlines()[0]
    return True, f"local LLM answers ({reply.text.strip()[:20]!r}) at {ensure_local_server(s)}"
