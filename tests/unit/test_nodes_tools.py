"""tools: CRM tools scoped by the run context, called through the graph's tool loop."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import factory, memory_store, scripted
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from memagent.core.context import Context
from memagent.core.state import State
from memagent.graph.builder import build_graph, off_extractor
from memagent.graph.validation import InvalidMessageError
from memagent.memory.crm import Crm, InvalidCustomerError, UnknownScopeError, new_customer
from memagent.memory.namespaces import InvalidScopeError
from memagent.nodes.query_rewrite import make_rewriter
from memagent.nodes.recall import make_recall_node
from memagent.nodes.tools import make_tools, needs_tool


async def simple_prompt(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    human = [m for m in state.messages if m.type == "human"]
    return {"prompt": [SystemMessage("sales assistant"), *human], "prompt_tokens": 7}


class Router:
    def __init__(self, name: str, args: dict[str, Any]) -> None:
        self.name, self.args = name, args

    async def __call__(
        self, messages: Sequence[AnyMessage], tools: Sequence[BaseTool]
    ) -> list[ToolCall]:
        return [ToolCall(name=self.name, args=self.args, id=f"call_{self.name}")]


def compiled(crm: Crm, model: Any, router: Any) -> Any:
    builder = build_graph(
        rewriter=make_rewriter("rules", small_model=lambda: model),
        recall=make_recall_node("hybrid"),
        extractor=off_extractor(),
        tools=make_tools(crm),
        chat_model_factory=factory(model),
        prompt_assembly=simple_prompt,
        router=router,
    )
    return builder.compile(checkpointer=InMemorySaver(), store=memory_store())


@pytest.fixture
def crm(tmp_path: Path) -> Crm:
    return Crm(tmp_path / "crm.sqlite")


def test_tools_never_take_the_scope_from_model_arguments(crm: Crm) -> None:
    for t in make_tools(crm):
        props = t.tool_call_schema.model_json_schema().get("properties", {})
        assert not {"user_id", "customer_id", "runtime"} & set(props), t.name


async def test_log_commitment_through_the_graph_is_scoped_and_paired(crm: Crm) -> None:
    model = scripted("Logged it for Friday.")
    router = Router("log_commitment", {"description": "Send SOC2 report", "due_date": "2026-12-04"})
    graph = compiled(crm, model, router)
    config = {"configurable": {"thread_id": "t1"}}
    out = await graph.ainvoke(
        {"messages": [HumanMessage("Remind me to send the SOC2 report")]},
        config,
        context=Context(user_id="alice", customer_id="globex"),
    )
    kinds = [type(m).__name__ for m in out["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    call, result = out["messages"][1], out["messages"][2]
    assert isinstance(call, AIMessage) and isinstance(result, ToolMessage)
    assert result.tool_call_id == call.tool_calls[0]["id"]
    assert "Logged commitment" in result.text
    assert out["messages"][-1].text == "Logged it for Friday."
    assert [c.description for c in crm.open_commitments("alice", "globex")] == ["Send SOC2 report"]
    assert crm.open_commitments("alice", "acme") == []
    assert crm.open_commitments("bob", "globex") == []


async def test_tool_errors_come_back_as_results(crm: Crm) -> None:
    router = Router("log_commitment", {"description": "call back", "due_date": "next week"})
    graph = compiled(crm, scripted("Which date?"), router)
    out = await graph.ainvoke(
        {"messages": [HumanMessage("log a follow-up call")]},
        {"configurable": {"thread_id": "t2"}},
        context=Context(user_id="alice", customer_id="acme"),
    )
    assert "YYYY-MM-DD" in out["messages"][2].text
    assert crm.open_commitments("alice", "acme") == []


async def test_lookup_and_email_use_the_context_customer(crm: Crm) -> None:
    graph = compiled(
        crm, scripted("Here it is."), Router("draft_followup_email", {"topic": "pricing"})
    )
    out = await graph.ainvoke(
        {"messages": [HumanMessage("draft an email about pricing")]},
        {"configurable": {"thread_id": "t3"}},
        context=Context(user_id="alice", customer_id="lanhai"),
    )
    assert "wanglei@lanhai.example" in out["messages"][2].text
    graph = compiled(crm, scripted("ok"), Router("lookup_customer", {}))
    out = await graph.ainvoke(
        {"messages": [HumanMessage("who is the contact there?")]},
        {"configurable": {"thread_id": "t4"}},
        context=Context(user_id="alice", customer_id="initech"),
    )
    assert "Priya" in out["messages"][2].text


async def call_tool(
    crm: Crm, name: str, args: dict[str, Any], thread: str, customer: str
) -> ToolMessage:
    """The tool message of one turn whose router calls ``name`` with ``args``; it succeeded."""
    graph = compiled(crm, scripted("ok"), Router(name, args))
    out = await graph.ainvoke(
        {"messages": [HumanMessage(f"please {name}")]},
        {"configurable": {"thread_id": thread}},
        context=Context(user_id="alice", customer_id=customer),
    )
    result = out["messages"][2]
    assert isinstance(result, ToolMessage) and result.status == "success", result
    return result


async def test_tools_say_not_in_the_crm_for_a_new_prospect(crm: Crm) -> None:
    """A prospect without a CRM record is no error: the model is told it is not on file,
    commitments are kept, and a draft leaves the address for the user to fill in."""

    async def call(name: str, args: dict[str, Any], thread: str) -> ToolMessage:
        return await call_tool(crm, name, args, thread, "huaxin")

    looked = await call("lookup_customer", {}, "p1")
    assert "'huaxin' is not in the CRM" in looked.text and "Error" not in looked.text
    logged = await call(
        "log_commitment", {"description": "Send deck", "due_date": "2026-05-01"}, "p2"
    )
    assert "Logged commitment" in logged.text
    listed = await call("list_open_commitments", {}, "p3")
    assert "Send deck" in listed.text
    draft = await call("draft_followup_email", {"topic": "pricing"}, "p4")
    assert "not in the CRM" in draft.text and "To: [address]" in draft.text
    assert "Send deck" in draft.text and "Hi [name]," in draft.text
    # the person the user names is who the draft greets (Studio: "Draft a short email to
    # Wang Fang ..." was answered "Hi [name]")
    named = await call("draft_followup_email", {"topic": "a call", "recipient": "Wang Fang"}, "p5")
    assert "Hi Wang Fang," in named.text and "To: [address]" in named.text


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("lookup_customer", {}),
        ("list_open_commitments", {}),
        ("log_commitment", {"description": "Send deck", "due_date": "2026-05-01"}),
        ("draft_followup_email", {"topic": "pricing"}),
    ],
)
async def test_tool_calls_raise_no_serializer_warning(
    crm: Crm, name: str, args: dict[str, Any]
) -> None:
    """Every tool gets the graph's ``State`` without a pydantic warning. Typed as a bare
    ``ToolRuntime[Context]`` (state: dict), each call warned "Expected `dict[any, any]`"
    in ``langgraph dev``'s log (session 12, Studio), and where warnings are errors the
    call failed and the model was told to "fix your mistakes"."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = await call_tool(crm, name, args, name, "lanhai-robotics")
    assert "Pydantic" not in result.text and "fix your mistakes" not in result.text, result.text


NOTE = (
    "Met Lanhai Robotics today. CTO Wang Lei prefers monthly invoices, wants SSO with Okta, "
    "budget about 800k USD, we promised a demo next Tuesday."
)


@pytest.mark.parametrize("name", ["lookup_customer", "list_open_commitments"])
async def test_a_note_runs_no_read_only_tool(crm: Crm, name: str) -> None:
    """A note that asks nothing gets no lookup even when a hint word ("promised") sends
    the router to one (session 12: for a new prospect the reply model then asked "what
    tools were used"); the same lookup asked for runs, and a note may still log."""
    graph = compiled(crm, scripted("Noted."), Router(name, {}))
    ctx = Context(user_id="alice", customer_id="lanhai-robotics")
    out = await graph.ainvoke(
        {"messages": [HumanMessage(NOTE)]}, {"configurable": {"thread_id": "n"}}, context=ctx
    )
    assert [m.type for m in out["messages"]] == ["human", "ai"], out["messages"]
    asked = await graph.ainvoke(
        {"messages": [HumanMessage("Who is the contact person, and what did we promise?")]},
        {"configurable": {"thread_id": "q"}},
        context=ctx,
    )
    assert any(isinstance(m, ToolMessage) and m.name == name for m in asked["messages"])
    logging = compiled(
        crm,
        scripted("ok"),
        Router("log_commitment", {"description": "Demo", "due_date": "2026-12-08"}),
    )
    logged = await logging.ainvoke(
        {"messages": [HumanMessage(NOTE)]}, {"configurable": {"thread_id": "l"}}, context=ctx
    )
    assert any(
        "Logged commitment" in m.text for m in logged["messages"] if isinstance(m, ToolMessage)
    )


async def test_an_added_account_is_what_the_tools_see(crm: Crm) -> None:
    crm.add(new_customer("huaxin.com", name="华信", email="li@huaxin.example", deal_size=5))
    graph = compiled(crm, scripted("ok"), Router("lookup_customer", {}))
    out = await graph.ainvoke(
        {"messages": [HumanMessage("look up the account")]},
        {"configurable": {"thread_id": "a1"}},
        context=Context(user_id="john.smith@corp.com", customer_id="huaxin.com"),
    )
    text = out["messages"][2].text
    assert "华信 (id huaxin.com)" in text and "<li@huaxin.example>" in text
    assert "stage prospect" in text and "5 USD" in text


def test_crm_add_checks_fields_and_keeps_the_seed(crm: Crm) -> None:
    assert [c.id for c in crm.customers()] == ["acme", "globex", "initech", "lanhai"]
    added = crm.add(new_customer("acme.com", name=" Acme  Inc. ", currency="eur", notes="a\nb"))
    assert (added.name, added.currency, added.stage, added.notes) == (
        "Acme Inc.", "EUR", "prospect", "a\nb"
    )  # fmt: skip
    assert crm.find("acme.com") == added and crm.customer("acme").name == "Acme Corp"
    with pytest.raises(InvalidCustomerError, match="already in the CRM"):
        crm.add(new_customer("acme", name="Other"))
    for kwargs, needle in [
        ({"name": "  "}, "name must not be empty"),
        ({"name": "x", "email": "not-an-address"}, "email"),
        ({"name": "x", "email": "a@b@c"}, "email"),
        ({"name": "x", "currency": "dollars"}, "3-letter"),
        ({"name": "x", "deal_size": -1}, "deal size"),
        ({"name": "x\x00"}, "control"),
        ({"name": "x", "notes": "n" * 2001}, "longer"),
    ]:
        with pytest.raises(InvalidCustomerError, match=needle):
            new_customer("new", **kwargs)
    with pytest.raises(InvalidScopeError):
        new_customer("*", name="x")


def test_crm_knows_records_and_rejects_bad_input(crm: Crm) -> None:
    assert crm.check_scope("alice", "nope") is None
    assert crm.check_scope("alice", "acme") == crm.customer("acme")
    with pytest.raises(UnknownScopeError, match="'nope' is not in the CRM"):
        crm.customer("nope")
    with pytest.raises(InvalidScopeError):
        crm.check_scope("alice", "")
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        crm.log_commitment("alice", "acme", "x", "tomorrow")
    with pytest.raises(ValueError, match="description"):
        crm.log_commitment("alice", "acme", "   ", "2026-01-01")


def test_needs_tool() -> None:
    assert needs_tool("Draft an email to Dana")
    assert needs_tool("帮我起草一封跟进邮件")
    assert not needs_tool("What did they think about the price?")


@pytest.mark.parametrize("text", ["", "   ", "budget 5k. " * 4000])
async def test_the_graph_refuses_what_the_cli_refuses(crm: Crm, text: str) -> None:
    """A LangGraph client (Studio) that sends an empty or over-long message gets the
    CLI's one-line error at once, before any model call: session 12's Studio run gave an
    empty message a model reply and a 44,000-character one two 120 s model timeouts."""
    model = scripted("should not be called")
    graph = compiled(crm, model, None)
    with pytest.raises(InvalidMessageError, match="empty|the limit is 32000"):
        await graph.ainvoke(
            {"messages": [HumanMessage(text)]},
            {"configurable": {"thread_id": "x"}},
            context=Context(user_id="alice", customer_id="lanhai-robotics"),
        )
    ok = await graph.ainvoke(
        {"messages": [HumanMessage("Budget is 5k.")]},
        {"configurable": {"thread_id": "y"}},
        context=Context(user_id="alice", customer_id="lanhai-robotics"),
    )
    assert ok["messages"][-1].type == "ai"
