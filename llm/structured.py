"""Structured output: one parse of a model answer with one retry (``ask_parsed``) and
schema-constrained JSON validated by Pydantic (``astructured``).

Split out of ``memagent.llm.adapter``, which re-exports every public name.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

# Adapter instruction. Kept beside the code that parses its answers (the node
# prompts live in prompts/); callers may pass their own.
STRUCTURED_RETRY = (
    "That reply was not valid ({error}). Answer again with only a JSON object "
    "that matches the required schema."
)


class LLMOutputError(ValueError):
    """The model's answer is not valid for the requested schema, even after a retry."""


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
