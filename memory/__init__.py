"""memagent.memory: the memory domain, over any LangGraph ``BaseStore``.

Records, namespaces, scoring, forgetting, profile, the write path (redaction,
injection screen, compare-and-set, dedupe), extractors, the working-memory model
and the CRM model. Works on any ``BaseStore`` (it uses ``stores`` only for the embedder of
the injection classifier); imports ``llm``, ``prompts`` and ``core``, never the layers above.
"""

from memagent.memory.log_redaction import install_record_redaction

# Every memagent module that logs above ``stores`` imports this package: from here on,
# whoever configures logging (a library user, ``langgraph dev``), memagent's log records
# carry no PII (with a per-process key until the composition root pins the install's).
install_record_redaction()
