"""Run-scoped configuration: who is talking about which customer, and models.

Passed with ``context=`` on invoke (CLI, tests) or set in LangGraph Studio's
assistant configuration. Fields left ``None`` fall back to settings.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Context:
    """Who the turn is for; every store access is scoped by these two ids."""

    user_id: str = "demo-user"
    """The salesperson using the assistant."""

    customer_id: str = "acme"
    """The customer account the conversation is about (an id that keeps
    ``memagent.memory.namespaces.CUSTOMER_ID_RULE``: lowercase, no spaces, e.g. a domain,
    ``lanhai-robotics`` or ``华信``; a run with another fails at once; it need not be in
    the CRM)."""

    model: str | None = None
    """Main chat model (defaults to settings)."""

    small_model: str | None = None
    """Model for rewrite, summary and extraction (defaults to settings)."""

    temperature: float | None = None
    """Sampling temperature of the main model (defaults to settings)."""

    context_window: int | None = None
    """Context window in tokens that prompt assembly budgets for."""
