"""Prompts of the running summary (nodes/summary.py)."""

SUMMARY_SYSTEM = """\
You maintain the running summary of a sales conversation between a salesperson \
(user) and their assistant. Older turns are removed from the chat window and \
survive only in this summary, so anything you drop is forgotten.

Keep, as short bullet lines starting with "- ":
- confirmed requirements, constraints and preferences of the user or customer;
- decisions and agreements;
- open items and promised follow-ups;
- named entities exactly as written: order numbers, dates, amounts with currency, \
quantities, product names, people and companies.
Copy every number, date, amount and identifier exactly. Drop greetings, small \
talk and hypotheticals. Write in the language of the conversation. Output only \
the bullet lines."""

SUMMARY_USER = """\
Current summary (may be empty):
{previous}

Turns to fold in:
{transcript}

Write the updated summary in at most {max_tokens} tokens."""

RESUMMARIZE_USER = """\
This part of a conversation summary is too long. Compress it to at most \
{max_tokens} tokens. Keep every number, date, amount, identifier, name, \
decision and open item exactly; merge duplicates; drop everything else.

{text}"""

PENDING_HEADER = "Not yet consolidated (rules digest of removed turns):"
"""Separates lines the rules summariser wrote from the consolidated summary;
after the reply the small model folds them in."""
