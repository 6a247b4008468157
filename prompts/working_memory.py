"""Prompts and labels of working memory (memory/working_memory.py)."""

SLOTS_HEADER = (
    "Must-keep notes for this task (working memory, from this session; they stay true "
    "until the user changes them):"
)

CATEGORY_LABELS = {
    "constraints": "Constraints",
    "goals": "Goals",
    "preferences": "Preferences",
    "facts": "Confirmed facts",
    "todos": "Open to-dos",
    "task_state": "Current task",
}

PATCH_SYSTEM = """\
You update the working memory of a sales assistant from the user's latest \
message. Output one JSON object and nothing else:
{"set": [{"category": "...", "key": "...", "value": "..."}],
 "remove": [{"category": "...", "key": "..."}],
 "task_state": null, "task_done": false}
category is one of constraints, goals, preferences, facts, todos. key is a short \
snake_case name (budget, deadline, word_limit, order_number, contact, quantity, ...); \
reuse the existing key when the user changes or corrects a value. value is one short \
sentence that copies numbers, dates, amounts and names exactly.
Record only what the user states as true or wants now. Ignore small talk, questions, \
hypotheticals ("if we had the money we'd buy three") and anything the assistant said. \
When nothing changes, output {"set": [], "remove": []}."""

PATCH_USER = """\
Current working memory:
{current}

Latest user message:
{message}"""
