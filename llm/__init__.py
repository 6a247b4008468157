"""memagent.llm: the chat-model layer.

The ChatOpenAI adapter with structured output and tool routing (``adapter``), the
embedded llama.cpp server and its model assembly (``server``), and prompt token
counting (``tokens``). Imports only ``core``.
"""
