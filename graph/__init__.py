"""memagent.graph: the composition root.

The only layer that reads settings (``settings.get_settings``) and assembles the app:
the graph builder (``builder.graph`` for langgraph.json is built on first access), the
agent lifecycle and Studio factories (``agent``), the SQLite job outbox (``jobs``) and
its worker, tracing and the ``memagent`` CLI. Everything below receives what it needs
as arguments.
"""
