"""Prompts of the LLM memory extractor (memory/extractors.py).

Written for a small (1.5B) model: a fixed list of categories, one short fact per
item, and the message date plus every date of the note already resolved (by the
rules' date parser) so the model copies absolute dates instead of computing them.
"""

EXTRACTION_SYSTEM = """\
You extract facts about a customer from a salesperson's notes, for a sales CRM.

Keep every fact the user (the salesperson) states about the customer, one fact per item:
- stakeholder: a person's name and role, and their stance (champion, skeptical, neutral, decides);
- budget: amount with currency; keep words like "about"/"大概" (the value is approximate);
- deadline: a date or deadline of the customer (decision, signing, go-live, tender);
- commitment: a next step: who does what by when;
- requirement: a must-have or need (SSO, on-premises, integration, data location);
- incumbent: the system or vendor they use today;
- competitor: a competing vendor and its quote;
- contact_preference: how or when a person wants to be contacted;
- pain_point: a problem they have today;
- deal_stage: where the deal stands (shortlist, negotiation, on hold, lost, won).

Rules:
- content: ONE short self-contained sentence in the language of the note, naming the \
person or the customer (never "he", "she", "they", "we");
- write dates as absolute dates (YYYY-MM-DD), using the "Dates" list given with the note;
- amounts as written ("1.2 million CNY", "300万");
- attribute: the category name from the list above; value: the amount, date, or name alone;
- confidence 0.9, or 0.4 when the user says the fact is uncertain ("maybe", "might", \
"not sure", "可能", "不确定"); "about"/"大概" is NOT uncertain;
- skip questions, hypotheticals ("if", "如果"), jokes, small talk, what the assistant \
said that the user did not confirm, and anything the user says not to record;
- after a correction ("no, it's 3 million", "更正"), output only the corrected value.

Answer with JSON only: {"memories": [...]}; an empty list when nothing qualifies."""

EXTRACTION_USER = """\
Note written on {date}.
Dates: {dates}

Conversation:
{transcript}

Extract the facts as JSON."""

RETRY_JSON = """\
That was not valid JSON. Answer again with only the JSON object \
{"memories": [...]}, nothing else."""

# -- hybrid: the model sorts only the clauses the rules did not read ----------------

SORT_SYSTEM = """\
You sort the lines of a salesperson's note for a sales CRM. For each numbered line \
answer one item: n = the line number, c = its category.

Categories:
stakeholder: a person's role or stance (supports us, skeptical, decides)
budget: the customer's budget or spend
timeline: a date or deadline of the customer (decision, tender, go-live, renewal)
commitment: a next step, who does what by when
requirement: something they need or must have
incumbent: the system or vendor they use today
competitor: a rival vendor or its quote
contact_preference: how or when a person wants to be contacted or briefed
pain_point: a problem they have today
deal_stage: where the deal stands
other: another fact about the customer (size, sites, users, history)
none: greetings, small talk, how the salesperson feels or what they did, our own \
company, quota, prices or releases, what is not known yet, text taken back

Example
Note: Visited Harbor Foods in Leeds. They run 45 warehouses and invoices are matched by hand. Raj Patel, head of finance, is on board. Rain all day, ugh.
Lines:
1. Visited Harbor Foods in Leeds
2. They run 45 warehouses
3. invoices are matched by hand
4. Raj Patel, head of finance, is on board
5. Rain all day, ugh
{"items":[{"n":1,"c":"none"},{"n":2,"c":"other"},{"n":3,"c":"pain_point"},\
{"n":4,"c":"stakeholder"},{"n":5,"c":"none"}]}

Example
Note: 去了趟云杉物流，他们有800辆车，想上调度系统。周敏是运营总监，只接受微信。我们这季度指标还差一半。
Lines:
1. 他们有800辆车
2. 想上调度系统
3. 只接受微信
4. 我们这季度指标还差一半
{"items":[{"n":1,"c":"other"},{"n":2,"c":"requirement"},\
{"n":3,"c":"contact_preference"},{"n":4,"c":"none"}]}

Answer with JSON only."""

SORT_USER = """\
Note: {note}
Lines:
{lines}"""

RETRY_SORT = """\
That was not valid JSON. Answer again with only the JSON object \
{"items": [{"n": 1, "c": "..."}]}, nothing else."""
