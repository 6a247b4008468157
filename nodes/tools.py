"""Sales tools over the local CRM and the memory store.

Every tool takes the user and customer from the run context (``ToolRuntime.context``),
never from model arguments, so a model cannot reach another account's data. An account
without a CRM record (a new prospect) is no error: the tools say it is not in the CRM.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt import ToolNode, ToolRuntime

from memagent.core.context import Context
from memagent.core.state import State
from memagent.memory.crm import Commitment, Crm, Customer
from memagent.nodes.recall import DEFAULT_TUNING, recall_memories
from memagent.nodes.recall_expand import RecallTuning
from memagent.prompts import tools as texts

# fmt: off
TOOL_HINTS = (
    "commitment", "promise", "follow up", "follow-up", "followup", "remind me to", "todo", "to-do",
    "open items", "an email", "the email", "draft", "deal size", "stage", "contact person",
    "who is the contact", "look up", "lookup", "log a", "log the",
    "承诺", "答应", "跟进", "提醒", "待办", "起草", "草拟", "写封", "写一封", "联系人", "阶段",
    "商机", "客户信息", "记一下",
)
# fmt: on
"""Words that make a tool plausible; other messages skip the router call entirely."""

Runtime = ToolRuntime[Context, State]
"""What a tool is given. The graph's state type is named: a bare ``ToolRuntime[Context]``
leaves it ``dict``, and pydantic warned on every tool call that the ``State`` it was handed
is no dict (a warning under ``langgraph dev``, a failed tool call where warnings are errors)."""


def needs_tool(message: str) -> bool:
    lowered = message.lower()
    return any(hint in lowered for hint in TOOL_HINTS)


def describe_customer(c: Customer) -> str:
    """One line on a CRM customer: contact, stage, deal size and notes."""
    contact = " ".join(p for p in (c.contact, f"<{c.email}>" if c.email else "") if p)
    return (
        f"{c.name} (id {c.id}): contact {contact or 'not on file'}; stage {c.stage}; "
        f"deal size {c.deal_size:,} {c.currency}. Notes: {c.notes or 'none'}"
    )


def followup_email(
    topic: str, c: Customer | None, open_items: list[Commitment], recipient: str = ""
) -> str:
    """A follow-up email draft on ``topic`` listing our open commitments, to ``recipient``
    when the user named one, else to the CRM's contact; placeholders stand in for an
    address and a name neither gives."""
    bullets = "\n".join(f"- {r.description} (by {r.due_date})" for r in open_items)
    email = c.email if c is not None and c.email else "[address]"
    crm_contact = c.contact.split(" (")[0] if c is not None and c.contact else ""
    contact = recipient.strip() or crm_contact or "[name]"
    return (
        f"To: {email}\nSubject: Follow-up: {topic}\n\nHi {contact},\n\n"
        f"Following up on {topic}.\n"
        + (f"Open items on our side:\n{bullets}\n" if bullets else "")
        + "\nBest regards,\n"
    )


def make_tools(crm: Crm, *, tuning: RecallTuning = DEFAULT_TUNING) -> list[BaseTool]:
    """The assistant's tools, bound to one CRM database; ``search_memory`` recalls with
    ``tuning``, as the recall node does."""

    def lookup_customer(runtime: Runtime) -> str:
        c = crm.find(runtime.context.customer_id)
        if c is None:
            return texts.NOT_IN_CRM.format(customer_id=runtime.context.customer_id)
        return describe_customer(c)

    def list_open_commitments(runtime: Runtime) -> str:
        ctx = runtime.context
        rows = crm.open_commitments(ctx.user_id, ctx.customer_id)
        if not rows:
            return "No open commitments for this customer."
        return "\n".join(f"- [{r.id}] due {r.due_date}: {r.description}" for r in rows)

    def log_commitment(description: str, due_date: str, runtime: Runtime) -> str:
        ctx = runtime.context
        try:
            row = crm.log_commitment(ctx.user_id, ctx.customer_id, description, due_date)
        except ValueError as exc:
            return f"Not logged: {exc}"
        return f"Logged commitment {row.id}, due {row.due_date}: {row.description}"

    def draft_followup_email(topic: str, runtime: Runtime, recipient: str = "") -> str:
        """``recipient``: the person to write to, when the user names one."""
        ctx = runtime.context
        c = crm.find(ctx.customer_id)
        open_items = crm.open_commitments(ctx.user_id, ctx.customer_id)
        note = (
            "" if c is not None else texts.DRAFT_WITHOUT_CONTACT.format(customer_id=ctx.customer_id)
        )
        return note + followup_email(topic, c, open_items, recipient)

    def search_memory(query: str, runtime: Runtime) -> str:
        ctx = runtime.context
        if runtime.store is None:
            return "Memory is not available."
        result = recall_memories(runtime.store, ctx.user_id, ctx.customer_id, query, tuning=tuning)
        if not result.items:
            return "Nothing remembered about that."
        return "\n".join(f"- {i.content}" for i in result.items)

    return [
        StructuredTool.from_function(lookup_customer, description=texts.LOOKUP_CUSTOMER),
        StructuredTool.from_function(list_open_commitments, description=texts.LIST_COMMITMENTS),
        StructuredTool.from_function(log_commitment, description=texts.LOG_COMMITMENT),
        StructuredTool.from_function(draft_followup_email, description=texts.DRAFT_EMAIL),
        StructuredTool.from_function(search_memory, description=texts.SEARCH_MEMORY),
    ]


def make_tool_node(tools: list[BaseTool]) -> ToolNode:
    """Runs the tool calls of the last AI message; errors come back as tool messages."""
    return ToolNode(tools, handle_tool_errors=True)
