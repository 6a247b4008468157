"""Prompt of the LLM query rewriter: a standalone search query for memory recall."""

QUERY_REWRITE_PROMPT = """\
Rewrite the user's last message as one short standalone search query for looking up \
notes about the customer. Resolve pronouns and references ("it", "that", "last time", \
"他", "上次") using the recent conversation. Keep names, amounts, dates and the user's \
language. Output only the query, no explanation.

Recent conversation:
{recent}

Last message: {message}
Query:"""
