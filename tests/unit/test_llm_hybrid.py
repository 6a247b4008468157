"""The hybrid LLM extractor (the default with ``MEMAGENT_EXTRACTOR=llm``): the rules'
facts are kept, the model only sorts the clauses no rule fact covers, cheap checks drop
a category a clause cannot hold, and no fact is written twice."""

from __future__ import annotations

import json

import pytest
from graph_fakes import scripted

from memagent.core.types import Turn
from memagent.llm.model import LLMUnavailableError
from memagent.memory.extract_rules import extract_rules
from memagent.memory.extractors import LLMExtractor, RulesExtractor, llm_extractor
from memagent.memory.llm_hybrid import Line, SortedLine, dedupe, to_memory, uncovered_lines
from memagent.memory.llm_items import LLMMemory
from memagent.memory.write_path import Candidate

AT = "2026-11-12T10:00:00+08:00"


def _sorted(*items: tuple[int, str]) -> str:
    return json.dumps({"items": [{"n": n, "c": c} for n, c in items]})


def _lines(model: object, call: int = -1) -> str:
    """The numbered lines of a prompt the scripted model was sent (the last by default)."""
    seen = model.seen[call]  # type: ignore[attr-defined]
    return str(next(m for m in seen if m.type == "human").content).split("Lines:\n")[1]


async def test_the_salespersons_own_quota_never_reaches_the_model() -> None:
    model = scripted(_sorted((1, "stakeholder")))
    res = await llm_extractor(model)([Turn("user", "I'm at 60% of my target.", "m1", AT)])
    assert model.seen == [] and res.candidates == []


async def test_no_model_call_when_the_rules_read_every_clause() -> None:
    model = scripted(_sorted((1, "budget")))
    res = await llm_extractor(model)([Turn("user", "Our budget is 3 million.", "m1", AT)])
    assert model.seen == []
    assert [(c.attribute, c.value) for c in res.candidates] == [("budget", "3000000")]


async def test_only_the_clauses_the_rules_did_not_read_reach_the_model() -> None:
    text = "Victor Ramos is the CFO. He reports to the board."
    model = scripted(_sorted((1, "stakeholder")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert _lines(model) == "1. He reports to the board"
    contents = [c.content for c in res.candidates]
    # the rules' fact as they wrote it, and the model's clause about the same person in
    # the user's own words joins it (one memory per person)
    assert contents == ["Victor Ramos: CFO; He reports to the board"]
    assert res.candidates[0].message_ids == ["m1"]


async def test_nothing_known_and_where_i_was_never_reach_the_model() -> None:
    model = scripted(_sorted((1, "budget")))
    text = "No idea about their budget yet. Long day at Acme in Leeds. 今天拜访了华信科技。"
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert model.seen == [] and res.candidates == []


async def test_a_category_the_clause_cannot_hold_is_dropped() -> None:
    # a 1.5B model files an office address as a size fact and the salesperson's own
    # impression as a stakeholder; neither clause holds such a fact
    text = "Acme's office is in Leeds. I'm impressed by their new warehouse."
    model = scripted(_sorted((1, "other"), (2, "stakeholder")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert len(model.seen) == 1 and res.candidates == [], res
    assert any(r.startswith("not a other") for r in res.reasons), res.reasons
    assert any(r.startswith("not a stakeholder") for r in res.reasons), res.reasons


def test_a_kind_the_rules_read_in_the_same_sentence_is_not_written_twice() -> None:
    # "两套系统数据不通，收银也很慢": when the rules read the sentence's pain point, the
    # model's pain point from its other clause would be a second memory of one fact
    line = Line("收银也很慢", None, "收银也很慢", frozenset({"pain_point"}))
    assert to_memory(SortedLine(n=1, c="pain_point"), [line]) == (
        "the rules read this sentence's pain_point"
    )
    fresh = Line("收银也很慢", None, "收银也很慢", frozenset())
    assert isinstance(to_memory(SortedLine(n=1, c="pain_point"), [fresh]), LLMMemory)


async def test_a_long_note_is_sorted_in_chunks_and_a_failed_chunk_loses_only_its_lines() -> None:
    text = ("Acme dispatch is done by phone. Routes are planned by hand. Drivers carry paper "
            "logs. The depot opens at six. Vans are leased. Returns pile up at the depot.")  # fmt: skip
    model = scripted(_sorted((1, "pain_point"), (2, "pain_point")), "not json", "still not")
    extractor = LLMExtractor(model, lines_per_call=4)
    res = await extractor([Turn("user", text, "m1", AT)])
    assert len(model.seen) == 3  # chunk 1 once; chunk 2 once and its one retry
    assert (
        _lines(model, 1) == "1. Vans are leased\n2. Returns pile up at the depot"
    )  # chunk 2 holds lines 5-6
    assert [c.content for c in res.candidates] == [
        "Acme dispatch is done by phone", "Routes are planned by hand"]  # fmt: skip
    assert any("malformed" in r and "2 line(s) left to the rules" in r for r in res.reasons)


async def test_the_prompt_is_a_stable_prefix_and_the_lines() -> None:
    model = scripted(_sorted((1, "requirement")))
    await llm_extractor(model)([Turn("user", "Drivers carry paper logs.", "m1", AT)])
    prompt = str(model.seen[0][0].content)
    assert '"items"' in prompt and "none:" in prompt  # the stable, cached prefix
    assert _lines(model) == "1. Drivers carry paper logs"


def test_dedupe_keeps_one_per_key_and_value_and_per_text() -> None:
    rule = Candidate(content="Budget: 400k", attribute="budget", value="400000")
    twin = Candidate(content="Budget: 400k", attribute="budget", value="400000")
    same_key = Candidate(content="They can spend 400k", attribute="budget", value="400000")
    new = Candidate(content="Vans are leased", attribute="other")
    restated = Candidate(content="Acme: vans are leased.", attribute="requirement")
    kept, dropped = dedupe([rule, twin], [same_key, new, restated])
    assert [c.content for c in kept] == ["Budget: 400k", "Vans are leased"] and dropped == 3


async def test_full_mode_still_sends_the_whole_note() -> None:
    model = scripted(json.dumps({"memories": []}))
    await llm_extractor(model, hybrid=False)([Turn("user", "Our budget is 3 million.", "m1", AT)])
    assert len(model.seen) == 1 and "Our budget is 3 million." in str(model.seen[0][-1].content)


class _DownAfterFirst:
    """A scripted model whose endpoint goes away after its first answer."""

    def __init__(self, first: str) -> None:
        self.inner = scripted(first)
        self.calls = 0

    async def ainvoke(self, messages: object, **kwargs: object) -> object:
        self.calls += 1
        if self.calls > 1:
            raise LLMUnavailableError("LLM endpoint http://127.0.0.1:1 timed out: read timeout")
        return await self.inner.ainvoke(messages, **kwargs)  # type: ignore[arg-type]


async def test_a_timeout_after_the_first_chunk_keeps_what_was_sorted() -> None:
    text = ("Acme dispatch is done by phone. Routes are planned by hand. Drivers carry paper "
            "logs. The depot opens at six. Vans are leased. Returns pile up at the depot.")  # fmt: skip
    model = _DownAfterFirst(_sorted((1, "pain_point")))
    res = await LLMExtractor(model, lines_per_call=4)([Turn("user", text, "m1", AT)])  # type: ignore[arg-type]
    assert model.calls == 2
    assert [c.content for c in res.candidates] == ["Acme dispatch is done by phone"]
    assert any("timed out" in r and "2 line(s) left to the rules" in r for r in res.reasons)


async def test_a_timeout_on_the_first_call_is_raised_to_the_worker() -> None:
    model = _DownAfterFirst("")
    model.calls = 1  # down from the start
    with pytest.raises(LLMUnavailableError):
        await llm_extractor(model)([Turn("user", "Drivers carry paper logs.", "m1", AT)])  # type: ignore[arg-type]


def test_a_clause_only_the_model_reads_is_stored_by_the_worker() -> None:
    """End to end through the outbox, the worker and the write path."""
    from memagent.evals.eval_dataset import Dialog
    from memagent.evals.eval_replay import Replayer

    model = scripted(_sorted((1, "stakeholder")))
    turns = ({"role": "user", "content": "Victor Ramos is the CFO. He reports to the board.",
              "at": AT},)  # fmt: skip
    with Replayer(llm_extractor(model)) as replayer:
        out = replayer.replay(Dialog(id="hy", turns=turns, gold=(), customer="orchard"))
    assert len(model.seen) == 1 and not out.errors
    # the model's clause is stored, joined to the rules' memory of the same person
    assert sorted(m["content"] for m in out.confirmed) == [
        "Victor Ramos: CFO; He reports to the board"]  # fmt: skip


def test_a_short_sentence_the_rules_did_not_read_goes_whole() -> None:
    turn = Turn("user", "Decision moved too - now mid-January.", "m1", AT)
    lines = uncovered_lines([turn], extract_rules([turn])[0])
    # one line, so "decision" and its new date stay in one fact (two clauses would be
    # "Decision moved too" and "now mid-January", neither a fact on its own)
    assert [line.text for line in lines] == ["Decision moved too - now mid-January"]
    assert "2027-01-15" in lines[0].dated


async def test_a_second_date_of_a_sentence_is_not_taken_by_the_rules_first() -> None:
    text = ("I owe Elena a reference customer by the 13th, and she'll get Mark into the site "
            "walk scheduled for December 2.")  # fmt: skip
    model = scripted(_sorted((1, "timeline")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert _lines(model) == "1. she'll get Mark into the site walk scheduled for December 2"
    assert any("site walk" in c.content and "2026-12-02" in c.content for c in res.candidates)


RUN_ON = (
    "quick memo from the Delmar visit uh we met with Paul Okafor he's their CFO and he "
    "said the old billing tool is way too slow, he wants a trial starting March 2nd uh the "
    "trial budget is 40k and if it goes well the full deal is about 900k next year, also "
    "they got a pitch from Zuora, he prefers texts over email"
)


def test_a_run_on_note_with_one_condition_is_read_clause_by_clause() -> None:
    # a dictated sentence with one "if" was not sent at all: every fact of the note was
    # lost; only the condition's own tail is one. The rules read none of it here (since
    # they read such notes too, the lines the hybrid builds are checked on their own)
    turn = Turn("user", RUN_ON, "m1", AT)
    said = " | ".join(line.text for line in uncovered_lines([turn], []))
    for fact in (
        "he's their CFO",
        "trial starting March 2nd",
        "pitch from Zuora",
        "texts over email",
    ):
        assert fact in said, (fact, said)
    assert "900k" not in said  # "if it goes well the full deal is about 900k": a condition


def test_a_short_conditional_sentence_is_still_not_read() -> None:
    turn = Turn("user", "If they sign by Friday, the budget would be 300k.", "m1", AT)
    assert uncovered_lines([turn], extract_rules([turn])[0]) == []


async def test_a_fact_from_a_run_on_note_with_a_condition_is_stored() -> None:
    # whether the rules read the Zuora pitch or the model sorts it, it is stored; the
    # condition's 900k never is (the model here sorts nothing it is sent)
    turn = Turn("user", RUN_ON, "m1", AT)
    res = await llm_extractor(scripted(*[_sorted() for _ in range(3)]))([turn])
    assert any("Zuora" in c.content for c in res.candidates), res.reasons
    assert not any("900k" in c.content for c in res.candidates)


def test_a_bullet_with_a_bare_name_goes_whole_with_its_role() -> None:
    # "张敏" alone is too short to send: cut off, the role and the stance lost the name
    turn = Turn("user", "新锐零售 电话沟通\n- 对接人：张敏，数字化中心总监，态度积极", "m1", AT)
    lines = uncovered_lines([turn], [])  # as when the rules read none of it
    assert any("张敏" in line.text and "数字化中心总监" in line.text for line in lines), lines


def test_a_category_the_line_cannot_hold_is_refiled_by_its_words() -> None:
    # the 1.5B model files an attendee with a title as "other" and an old system as
    # "other"; their own words show a stakeholder and an incumbent
    attendee = Line("Attendees: Jens Möller (Procurement Manager)")
    memory = to_memory(SortedLine(n=1, c="other"), [attendee])
    assert isinstance(memory, LLMMemory) and memory.attribute == "stakeholder", memory
    system = to_memory(SortedLine(n=1, c="other"), [Line("还有一套金蝶的老TMS")])
    assert isinstance(system, LLMMemory) and system.attribute == "current_vendor", system
    spelled = to_memory(
        SortedLine(n=1, c="budget"),
        [Line("she said two hundred fifty thousand pounds for phase one")],
    )
    assert isinstance(spelled, LLMMemory) and spelled.attribute == "budget", spelled
    # what holds no fact of any kind is still dropped
    trip = to_memory(
        SortedLine(n=1, c="timeline"), [Line("heading into Falcon Aerospace tomorrow")]
    )
    assert isinstance(trip, str) and trip.startswith("not a timeline")


def test_a_named_person_with_a_role_sorted_as_nothing_is_kept() -> None:
    memory = to_memory(SortedLine(n=1, c="none"), [Line("Attendees: Hannah Lee (Dir. IT)")])
    assert isinstance(memory, LLMMemory) and memory.attribute == "stakeholder", memory
    for small_talk in ("pretty good actually", "just got off the phone with crestline foods"):
        assert to_memory(SortedLine(n=1, c="none"), [Line(small_talk)]) == (
            "sorted as not a customer fact"
        )


async def test_a_hedge_in_one_clause_of_a_long_note_leaves_the_others_confirmed() -> None:
    # a dictated note of one long sentence: "他也不确定具体多少" (about a rival's price) made
    # every fact the model read in it unconfirmed
    text = ("今天去了恒达医院，他们明年要过智慧医院评级四级，所以时间比较紧，"
            "卫宁报价好像比我们低，但是他也不确定具体多少")  # fmt: skip
    turn = Turn("user", text, "m1", AT)
    lines = uncovered_lines([turn], extract_rules([turn])[0])
    n = next(i for i, line in enumerate(lines, 1) if "评级四级" in line.text)
    model = scripted(_sorted((n, "requirement")))
    extractor = llm_extractor(model)
    extractor.learned = None  # the model's reading of the line, not the learned fallback's
    res = await extractor([turn])
    grading = [c for c in res.candidates if "评级四级" in c.content]
    assert grading and grading[0].confidence == 0.9, (res.candidates, res.reasons)


async def test_the_hybrid_path_keeps_the_learned_fallbacks_facts() -> None:
    # the default extractor stores what the learned fallback reads beside the rules; the
    # LLM path keeps those too and sends the model only what neither read
    text = ("今天去了恒达医院，他们明年要过智慧医院评级四级，所以时间比较紧，"
            "卫宁报价好像比我们低，但是他也不确定具体多少")  # fmt: skip
    turn = Turn("user", text, "m1", AT)
    default = await RulesExtractor()([turn])
    learned = [c for c in default.candidates if c.attribute.endswith(":learned")]
    assert learned, default.candidates  # the fixture needs a fact only the fallback reads
    res = await llm_extractor(scripted(_sorted()))([turn])
    got = {c.content for c in res.candidates}
    assert {c.content for c in learned} <= got, (got, res.reasons)


def test_the_checks_read_traditional_characters() -> None:
    # a Taiwan note: "財務長" is a role and "新台幣4,500萬元" an amount, as their
    # simplified forms are
    for category, text in (("stakeholder", "出席: 黃美玲、財務長"),
                           ("budget", "三、預算：新台幣4,500萬元（含硬體）")):  # fmt: skip
        memory = to_memory(SortedLine(n=1, c=category), [Line(text)])  # type: ignore[arg-type]
        assert isinstance(memory, LLMMemory), (text, memory)


def test_a_note_title_never_reaches_the_model() -> None:
    # a 1.5B model files "Northwind Freight, 11/16" as a fact with a number
    text = ("Northwind Freight, 11/16\nAccount: Kestrel Energy | Activity: On-site visit | "
            "Date: 11/10/2026\nTheir vans are leased.")  # fmt: skip
    turn = Turn("user", text, "m1", AT)
    lines = uncovered_lines([turn], extract_rules([turn])[0])
    assert [line.text for line in lines] == ["Their vans are leased"], lines


def test_a_problem_a_channel_and_tomorrow_are_read_in_the_lines_own_words() -> None:
    cases = (
        ("none", "人工录入占了一半工时", "pain_point"),  # the model filed a problem as nothing
        ("other", "护士站经常要等好几分钟", "pain_point"),
        ("other", "語音備忘: 他習慣用LINE聯絡", "contact_preference"),
        ("commitment", "我明天會把修訂版合約寄過去", "commitment"),
    )
    for said, text, attribute in cases:
        memory = to_memory(SortedLine(n=1, c=said), [Line(text)])  # type: ignore[arg-type]
        assert isinstance(memory, LLMMemory) and memory.attribute == attribute, (text, memory)
    assert isinstance(to_memory(SortedLine(n=1, c="none"), [Line("ugh what a day")]), str)


async def test_a_year_both_facts_resolve_to_is_not_a_shared_figure() -> None:
    # "明年 (2027年)" written after the model's line and "明年6月 (2027年6月 ...)" in the
    # rules' deadline: the one shared "2027" made the requirement look read by the rules
    turn = Turn("user", "他们明年要过智慧医院评级四级，必须在明年6月前上线。", "m1", AT)
    lines = uncovered_lines([turn], extract_rules([turn])[0])
    n = next(i for i, line in enumerate(lines, 1) if "评级四级" in line.text)
    res = await llm_extractor(scripted(_sorted((n, "requirement"))))([turn])
    assert any("评级四级" in c.content for c in res.candidates), (res.candidates, res.reasons)


def test_a_second_person_of_a_sentence_the_rules_read_reaches_the_model_and_is_kept() -> None:
    # the rules read one stakeholder of the sentence; its other person is not "taken"
    line = Line("Jens Möller (Procurement Manager)", None, "", frozenset())
    rule = Candidate(content="Tom Reed: CFO.", attribute="stakeholder:tom_reed:role")
    from memagent.memory.llm_hybrid import _taken

    assert "stakeholder" not in _taken([rule], [], line.text)
    assert "stakeholder" in _taken([rule], [], "Tom Reed is keen")  # the same person
    assert "pain_point" in _taken(
        [Candidate(content="痛点：两套系统数据不通", attribute="pain_point:x")], [], "收银也很慢"
    )  # a kind without names: one fact per sentence, as before


def test_what_the_model_files_wrongly_or_as_nothing_is_read_by_its_words() -> None:
    cases = (
        ("none", "he basically doesn't do email, call his office line", "contact_preference"),
        ("none", "I'm sending our revised paper tomorrow", "commitment"),
        ("none", "語音備忘: 吳廠長說蔡總比較保守", "stakeholder"),
        ("timeline", "競爭者: Oracle與鼎新已做過簡報", "competitor"),
    )
    for said, text, attribute in cases:
        memory = to_memory(SortedLine(n=1, c=said), [Line(text)])  # type: ignore[arg-type]
        assert isinstance(memory, LLMMemory), (text, memory)
        assert memory.attribute.startswith(attribute), (text, memory)
    dated = Line("時程：明年第二季完成選商", None, "時程：明年 (2027年)第二季完成選商")
    memory = to_memory(SortedLine(n=1, c="budget"), [dated])
    assert isinstance(memory, LLMMemory) and memory.attribute == "deadline", memory
    for small_talk in (
        "I'll ping you when there's something",
        "keep it short",
        "赵磊会拉上孙丽一起",
    ):
        assert isinstance(to_memory(SortedLine(n=1, c="none"), [Line(small_talk)]), str)


def test_a_tools_label_shows_the_system_in_use() -> None:
    memory = to_memory(SortedLine(n=1, c="other"), [Line("tools: Adobe Workfront + lots of email")])
    assert isinstance(memory, LLMMemory) and memory.attribute == "current_vendor", memory


def test_a_lone_word_and_what_is_still_to_be_confirmed_never_reach_the_model() -> None:
    # the 1.5B model kept "curr" (a cut-off label) and "DM: 待确认" as facts
    text = "curr\nDM: 待确认\nIT contact TBD\nTheir vans are leased."
    turn = Turn("user", text, "m1", AT)
    lines = uncovered_lines([turn], extract_rules([turn])[0])
    assert [line.text for line in lines] == ["Their vans are leased"], lines


async def test_a_two_clause_sentence_with_a_condition_sends_its_plain_clause() -> None:
    # a conditional sentence was read clause by clause only from three clauses up: the
    # incumbent of this one never reached the model (the rules read neither clause)
    text = "They run Oracle for billing today, but if the pilot works they would move to us."
    model = scripted(_sorted((1, "incumbent")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert _lines(model) == "1. They run Oracle for billing today"
    assert [c.content for c in res.candidates] == ["They run Oracle for billing today (2026-11-12)"]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("If they sign, we give 10% off.", ""),
        ("They sign in March, but only if legal approves.",
         "They sign in March, but only if legal approves"),
        ("If the pilot works they will roll out to 40 stores, and their drivers hate paper.",
         "their drivers hate paper"),
        ("如果试点顺利，他们会推广到40家门店。", "如果试点顺利，他们会推广到40家门店"),
        ("If they sign by Friday, the budget would be 300k.", ""),
    ],
)  # fmt: skip
def test_what_a_condition_governs_never_reaches_the_model_without_it(text: str, kept: str) -> None:
    # a result the condition governs goes only with its condition, in one line (the
    # model's fact then keeps it); an imagined result ("would be") or our own offer
    # ("we give 10% off") not at all
    turn = Turn("user", text, "m1", AT)
    lines = [line.text for line in uncovered_lines([turn], [])]
    assert lines == ([kept] if kept else []), lines


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Summit call was a riot - their buyer joked they'd pay us $5 million if we could "
         "make their CEO stop sending 2am emails 😂.", []),
        ("Good call with Delmar, their CFO said they'd pay 2 million if we could cut the "
         "rollout to 6 weeks, they need SSO.", ["they need SSO"]),
        ("Met Delmar today, they would sign the 3-year deal if legal approves the SLA, and "
         "they need SSO.", ["they need SSO"]),
    ],
)  # fmt: skip
def test_a_clause_a_bare_trailing_if_governs_or_a_joke_never_reaches_the_model(
    text: str, kept: list[str]
) -> None:
    # the words before a bare "if" are its result, not a statement ("they'd pay us $5
    # million if ..." was sent to the model and stored as a fact), and a joke with an
    # "if" in it was read clause by clause
    turn = Turn("user", text, "m1", AT)
    assert [line.text for line in uncovered_lines([turn], [])] == kept


@pytest.mark.parametrize(
    "text",
    [
        "And our SKO is in Vegas in January, can't wait.",  # our sales kickoff
        "對了我們公司下個月要搬到內湖，到時候拜訪客戶比較遠。",  # our office move (Traditional)
        "我方区域总、售前参会。",  # who came from our side
    ],
)
async def test_our_own_company_is_never_sent_to_the_model(text: str) -> None:
    # a 1.5B model files our own kickoff as a timeline and our attendees as
    # stakeholders; nothing in them is about the customer
    model = scripted(_sorted((1, "timeline"), (2, "stakeholder")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert model.seen == [] and res.candidates == [], res


@pytest.mark.parametrize(
    "text",
    [
        "ok so just left harbor point credit union met with denise kowalski",
        "Heading into Bayshore Hotels now, first meeting.",
        "剛從鴻泰半導體出來。",
        "Oh wait sorry.",
        "Ugh, long day.",
        "先这样。",
    ],
)
async def test_where_i_went_and_filler_never_reach_the_model(text: str) -> None:
    model = scripted(_sorted((1, "stakeholder")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert model.seen == [] and res.candidates == [], res


async def test_our_own_next_step_still_reaches_the_model() -> None:
    # what we promised the customer is a commitment, not our company's own affairs (an
    # undated promise: the rules now read the dated "我方: 周五前开demo账号给他" themselves)
    model = scripted(_sorted((1, "commitment")))
    text = "我方：负责给他们开通试用账号。"
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert len(model.seen) == 1
    assert [c.attribute.split(":")[0] for c in res.candidates] == ["commitment"], res


def _kept(text: str, category: str, person: str | None = None) -> str | None:
    """The category a line sorted as ``category`` is kept under, or None."""
    memory = to_memory(SortedLine(n=1, c=category), [Line(text, person, text)])  # type: ignore[arg-type]
    return memory.attribute if isinstance(memory, LLMMemory) else None


@pytest.mark.parametrize(
    ("text", "category", "kept"),
    [
        ("Close Date: 12/18/2026", "timeline", "deadline"),  # a date written in figures
        ("合同签署日期：2027/01/15", "timeline", "deadline"),
        ("Outcome: verbal yes!!", "other", "deal_stage"),  # the stage its words show
        ("Outcome: verbal yes!!", "deal_stage", "deal_stage"),
        ("Jonas asked for 45-day payment terms - we agreed", "requirement", "requirement"),
        ("Freja will be day-to-day owner", "contact_preference", "stakeholder"),
        ("Vikram: WhatsApp > email", "none", "contact_preference"),
    ],
)
def test_a_line_whose_words_hold_the_fact_is_kept(text: str, category: str, kept: str) -> None:
    assert _kept(text, category) == kept


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("oh and the coffee there was great", "deal_stage"),  # no stage in its words
        ("crews in CO and NM", "deal_stage"),
        ("the weather was awful all day", "pain_point"),
    ],
)
def test_a_stage_or_a_pain_needs_words_that_show_it(text: str, category: str) -> None:
    assert _kept(text, category) is None


async def test_a_second_persons_contact_preference_in_one_sentence_is_kept() -> None:
    text = "蔡經理偏好 email，吳總那邊下午比較好約。"
    # the rules read the first person's channel; the second person's is another fact,
    # not a restatement of theirs ("吳總只接 LINE", "吳總那邊要 LINE 聯絡" the rules now
    # read themselves)
    rules = [c.content for c in extract_rules([Turn("user", text, "m1", AT)])[0]]
    model = scripted(_sorted((1, "contact_preference")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    extra = [c.content for c in res.candidates if c.content not in rules]
    assert len(rules) == 1 and len(extra) == 1, (rules, res)


@pytest.mark.parametrize(
    "text", ["今天颱風外圍環流雨好大。", "Pouring rain all day in Leeds, ugh."]
)
async def test_the_weather_is_not_a_pain_point(text: str) -> None:
    model = scripted(_sorted((1, "pain_point")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert res.candidates == [], res


def test_a_pain_counted_in_days_is_still_a_pain() -> None:
    assert _kept("每个月光对账就要五六个人忙十来天", "pain_point") == "pain_point"


@pytest.mark.parametrize(
    ("text", "category", "kept"),
    [
        # a Latin word written against Chinese characters is still a word ("用WhatsApp")
        ("佢鍾意用WhatsApp", "contact_preference", "contact_preference"),
        ("排产用Excel表", "other", "current_vendor"),
        ("cur: Oracle EBS + Excel排产，没APS", "other", "current_vendor"),
        # a rival named in Chinese, known by what they did
        ("他们对比过万科的住这儿和碧桂园的凤凰会", "competitor", "competitor"),
    ],
)
def test_words_against_chinese_characters_are_read(text: str, category: str, kept: str) -> None:
    assert _kept(text, category) == kept


async def test_the_models_line_carries_full_names_and_dates_in_figures_resolved() -> None:
    # a date in figures is written in ISO form too, and a first name the note gave in
    # full earlier is written in full, so the memory is found by either form
    text = (
        "Present: Lars Eriksen (CFO), Freja Holm (Head of Fleet Digital).\n"
        "Freja will be day-to-day owner.\nClose Date: 12/18/2026"
    )
    model = scripted(_sorted((1, "stakeholder"), (2, "timeline")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert "1. Freja will be day-to-day owner\n2. Close Date: 12/18/2026" in _lines(model)
    contents = [c.content for c in res.candidates]
    assert any(c.endswith("; Freja Holm will be day-to-day owner") for c in contents), contents
    assert "Close Date: 12/18/2026 (2026-12-18)" in contents, contents


def test_the_models_fact_about_a_person_the_rules_hold_joins_their_memory() -> None:
    # one memory per person: the model's "day-to-day owner" clause is added to the rules'
    # fact about Freja Holm, not written as a second memory of her
    rule = Candidate(content="Freja Holm: Head of Fleet Digital.", attribute="stakeholder:freja")
    extra = Candidate(content="Freja Holm will be day-to-day owner", attribute="stakeholder:x")
    other = Candidate(content="Jonas Berg asked for 45-day terms", attribute="requirement:y")
    kept, dropped = dedupe([rule], [extra, other])
    assert [c.content for c in kept] == [
        "Freja Holm: Head of Fleet Digital; Freja Holm will be day-to-day owner",
        "Jonas Berg asked for 45-day terms",
    ] and dropped == 1
    assert kept[0].attribute == "stakeholder:freja"  # the rules' key: it versions as before
    # a line only led by a person (the one named last) may be about someone else
    led = Candidate(content="Freja Holm：孙浩负责厂房进度", attribute="stakeholder:z")
    assert len(dedupe([rule], [led])[0]) == 2


@pytest.mark.parametrize(
    "text",
    [
        "We promised to send them the SOC 2 report.",
        "Also, we agreed to share two reference customers.",
        "I told him I will send the pricing sheet.",
        "我们答应给他们发一份同行业案例。",
        "我们承诺提供源代码托管。",
    ],
)
async def test_an_undated_promise_is_a_commitment(text: str) -> None:
    # a commitment needs no time word: "promised", "will send", 答应, 承诺 are enough
    model = scripted(_sorted((1, "commitment")))
    res = await llm_extractor(model)([Turn("user", text, "m1", AT)])
    assert len(model.seen) == 1, "the rules read it; pick a line only the model sorts"
    assert [c.type for c in res.candidates] == ["commitment"], res.reasons


async def test_an_undated_promise_filed_elsewhere_is_refiled_as_a_commitment() -> None:
    model = scripted(_sorted((1, "timeline")))
    res = await llm_extractor(model)(
        [Turn("user", "We promised to send the SOC 2 report.", "m1", AT)]
    )
    assert [c.type for c in res.candidates] == ["commitment"], res.reasons


async def test_a_line_with_no_promise_and_no_time_is_still_not_a_commitment() -> None:
    model = scripted(_sorted((1, "commitment")))
    res = await llm_extractor(model)(
        [Turn("user", "Acme is a family-owned logistics firm.", "m1", AT)]
    )
    assert res.candidates == [], res
