"""memagent.core: the leaf layer.

The settings model (not its reading), ``Context``, ``State`` and its reducers, the types
shared across layers (``Turn``, ``Job``), errors, and PII redaction with the log filter
every memagent logger carries (``redact``, ``log_redaction``: every layer logs, the store
adapter included, so redaction sits below them all). Imports nothing from memagent above.
"""
