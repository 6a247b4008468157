"""memagent.nodes: the graph's node factories (query_rewrite, recall, prompt_assembly,
llm, tools, async_extract) and their node-local helpers. They import the layers below
(``memory``, ``llm``, ``stores``, ``prompts``, ``core``), never ``graph``: what a node needs
from the composition root (settings, a job queue, a model) is passed to its factory.
"""
