"""memagent.memory: the memory domain, over any LangGraph ``BaseStore``.

Records, namespaces, scoring, forgetting, profile, the write path (redaction
with ``core.redact``, injection screen, compare-and-set, dedupe), extractors, the working-memory model
the CRM model and the id prefixes the CLI shows. Works on any ``BaseStore``: it uses
``stores`` only for the embedder of the injection classifier, the ``MemoryStoreExtensions``
protocol (checked once with ``isinstance``) and the read-only file helpers
(``stores.file_access``); imports ``llm``, ``prompts`` and ``core``, never the layers above.
"""
