"""memagent.memory: the memory domain, over any LangGraph ``BaseStore``.

Records, namespaces, scoring, forgetting, profile, the write path (redaction
with ``core.redact``, injection screen, compare-and-set, dedupe), extractors, the working-memory model
and the CRM model. Works on any ``BaseStore`` (it uses ``stores`` only for the embedder of
the injection classifier); imports ``llm``, ``prompts`` and ``core``, never the layers above.
"""
