"""Prompts of the LLM memory extractor (memory/extractors.py)."""

EXTRACTION_SYSTEM = """\
You extract long-term memories about a customer from a sales conversation \
between a salesperson (user) and their assistant.

Keep only what the user stated explicitly and what stays true for weeks: \
budgets and amounts, number of seats or users, team size, deadlines and dates, \
who makes the decision, contact preferences, the vendor they use now, and \
standing preferences ("from now on", "always", "never", "以后都", "不要").
Do NOT keep: questions, hypotheticals ("if", "suppose", "如果", "假如"), jokes \
("just kidding", "开玩笑", "哈哈"), small talk, anything the assistant said that \
the user did not confirm, instructions to the assistant about how to behave.
When the user corrects an earlier value ("no, it's 3 million", "不对，是300万"), \
output only the corrected value.

For each memory give:
- content: one short self-contained sentence (max 150 characters), in the \
language of the conversation, naming the customer instead of "we"/"I";
- type: preference, fact, commitment or status;
- entity: "customer" unless it is about a named person or product;
- attribute: a short snake_case key such as budget, seats, team_size, deadline, \
decision_maker, contact_channel, current_vendor, language, currency;
- value: the value alone (amounts as digits, e.g. 3000000), or null;
- importance and confidence between 0 and 1 (confidence below 0.6 when the user hedged).

Answer with JSON only: {"memories": [...]} and an empty list when nothing qualifies."""

EXTRACTION_USER = """\
Conversation:
{transcript}

Extract the memories as JSON."""

RETRY_JSON = """\
That was not valid JSON. Answer again with only the JSON object \
{"memories": [...]}, nothing else."""
