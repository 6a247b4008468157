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
calls tools on its own with ``tool_choice="auto"``). They live in ``llm/structured.py``
and ``llm/routing.py`` and are re-exported here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Literal

import httpx
import openai
from langchain_core.language_models import LanguageModelInput
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, PrivateAttr

from memagent.core.settings import Settings
from memagent.llm.routing import (
    ROUTER_REQUEST,
    ROUTER_SYSTEM,
    ToolLike,
    achoose_tool,
    aforce_tool_call,
    router_messages,
    router_schema,
    tool_specs,
    validate_route,
)
from memagent.llm.server import (
    LLMUnavailableError,
    Role,
    aensure_local_server,
    ensure_local_server,
)
from memagent.llm.structured import (
    STRUCTURED_RETRY,
    LLMOutputError,
    ask_parsed,
    astructured,
    inline_refs,
    json_schema,
    parse_output,
    response_format,
)

__all__ = [
    "ROUTER_REQUEST",
    "ROUTER_SYSTEM",
    "STRUCTURED_RETRY",
    "LLMOutputError",
    "LLMUnavailableError",
    "LlamaCppChatOpenAI",
    "ToolLike",
    "achoose_tool",
    "adapt_payload",
    "aforce_tool_call",
    "ask_parsed",
    "astructured",
    "chat_model",
    "check_llm",
    "inline_refs",
    "json_schema",
    "llamacpp_response_format",
    "parse_output",
    "response_format",
    "router_messages",
    "router_schema",
    "server_role",
    "tool_specs",
    "validate_route",
]

Compat = Literal["llamacpp", "openai"]
PENDING_URL = "http://127.0.0.1:9/v1"
"""Placeholder until the local server is resolved on the first request."""
_ENDPOINT_READY = "_memagent_endpoint_ready"
"""Request kwarg from the async paths to ``_get_request_payload``: resolved already."""


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
                    client.base_url = url  # a str: the SDK builds its own URL type

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
        # a Timeout object, not a float: langchain-openai then builds this model its own HTTP
        # clients instead of sharing one cached per base URL and timeout, whose async client
        # is bound to the event loop that first used it ("Event loop is closed" in a later
        # asyncio.run, a notebook cell or the next test). The SDK's own ``openai.Timeout``:
        # openai 3.63 moved to httpx2 and rejects an ``httpx.Timeout``.
        "timeout": openai.Timeout(s.llm_timeout),
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
