"""Descriptions of the sales tools (the router and the model read them).

The router prompt itself belongs to the LLM adapter (``memagent.llm.adapter.choose_tool``).
"""

LOOKUP_CUSTOMER = "Look up the current customer in the CRM: contact, stage, deal size, notes."
LIST_COMMITMENTS = "List the open commitments and follow-ups for the current customer."
LOG_COMMITMENT = (
    "Log a commitment or follow-up for the current customer with a due date (YYYY-MM-DD)."
)
DRAFT_EMAIL = (
    "Draft a follow-up email about a topic to the current customer's contact, or to the "
    "recipient the user names."
)
SEARCH_MEMORY = "Search what you remember about the current customer."

NOT_IN_CRM = (
    "Customer {customer_id!r} is not in the CRM yet (a new prospect): there is no contact, "
    "e-mail address, stage, deal size or notes on file. Do not invent them; use what the "
    "user said and what you remember."
)
"""What the CRM tools answer for an account without a CRM record."""

DRAFT_WITHOUT_CONTACT = (
    "Customer {customer_id!r} is not in the CRM, so the draft has no address or contact "
    "name: ask the user for them.\n\n"
)
"""Put before a follow-up draft for an account without a CRM record."""

TOOL_RESULTS = """\
{question}

Results of the tools the assistant ran for this request. Use them in your answer:
{results}"""
"""The current user message with this turn's tool results folded in (for the reply model)."""
