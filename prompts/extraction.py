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
stakeholder: a person at the customer, their title or role, or stance (supports us, \
skeptical, decides) / 客户方的人、职务、态度
budget: the customer's budget or spend / 预算、金额
timeline: a date, deadline or event of the customer (decision, tender, \
review, go-live, renewal) / 时间节点、截止日期
commitment: a next step, who does what by when / 下一步、谁在何时做什么
requirement: something they need or must have / 需求、必须
incumbent: the system or vendor they use today / 现用系统
competitor: a rival vendor or its quote / 竞品、对手报价
contact_preference: how or when a person wants to be contacted / 联系方式偏好
pain_point: a problem they have today / 痛点
deal_stage: where the deal stands / 进展阶段
other: another fact about the customer (size, sites, users, history) / 其他客户事实
none: greetings, small talk, a heading, how the salesperson feels or what they did, \
our own company, quota, prices or releases, what is not known yet, text taken back / 无

Example
Note: Visited Harbor Foods in Leeds. Present: Raj Patel (Head of Finance). They run 45 warehouses and invoices are matched by hand. Pilot review on March 3. Kim won't read email, text her instead. Rain all day, ugh.
Lines:
1. Visited Harbor Foods in Leeds
2. Present: Raj Patel (Head of Finance)
3. They run 45 warehouses
4. invoices are matched by hand
5. Pilot review on March 3
6. Kim won't read email, text her instead
7. Rain all day, ugh
{"items":[{"n":1,"c":"none"},{"n":2,"c":"stakeholder"},{"n":3,"c":"other"},\
{"n":4,"c":"pain_point"},{"n":5,"c":"timeline"},{"n":6,"c":"contact_preference"},\
{"n":7,"c":"none"}]}

Example
Note: 去了趟云杉物流，他们有800辆车，想上调度系统，现在用的是金蝶的老系统。周敏是运营总监，只接受微信。我们这季度指标还差一半。
Lines:
1. 他们有800辆车
2. 想上调度系统
3. 现在用的是金蝶的老系统
4. 只接受微信
5. 我们这季度指标还差一半
{"items":[{"n":1,"c":"other"},{"n":2,"c":"requirement"},{"n":3,"c":"incumbent"},\
{"n":4,"c":"contact_preference"},{"n":5,"c":"none"}]}

Answer with JSON only."""

SORT_EARLIER = """\
Earlier messages (context only, not to sort): {earlier}
"""

SORT_USER = """\
Note: {note}
Lines:
{lines}"""

RETRY_SORT = """\
That was not valid JSON. Answer again with only the JSON object \
{"items": [{"n": 1, "c": "..."}]}, nothing else."""
