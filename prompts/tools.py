"""Descriptions of the sales tools (the router and the model read them).

The router prompt itself belongs to the LLM adapter (``memagent.graph.llm.choose_tool``).
"""

LOOKUP_CUSTOMER = "Look up the current customer in the CRM: contact, stage, deal size, notes."
LIST_COMMITMENTS = "List the open commitments and follow-ups for the current customer."
LOG_COMMITMENT = (
    "Log a commitment or follow-up for the current customer with a due date (YYYY-MM-DD)."
)
DRAFT_EMAIL = "Draft a follow-up email to the current customer's contact about a topic."
SEARCH_MEMORY = "Search what you remember about the current customer."

TOOL_RESULTS = """\
{question}

Results of the tools the assistant ran for this request. Use them in your answer:
{results}"""
"""The current user message with this turn's tool results folded in (for the reply model)."""
