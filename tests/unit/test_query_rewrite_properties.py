"""The rules query rewriter over varied inputs (issue 14: one sentence three times in a
query, and a word cut at the length limit). Properties, whatever the message, the
previous turn and working memory hold: no sentence twice, no word cut, within the limit,
and nothing of the message's first sentence lost when it fits."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from memagent.nodes.prompt_assembly import update_working
from memagent.nodes.query_rewrite import MAX_QUERY_CHARS, rules_query
from memagent.nodes.query_rewrite_rules import cut_at_word, join_unique

# fmt: off
EN = [
    "Our budget is 3 million and it must include SSO.", "Li Wei is the decision maker.",
    "Can we do it by Friday?", "They hate phone calls, email only.",
    "The procurement committee meets every Thursday afternoon in Shenzhen.",
    "What did they say about the incumbent system?", "Is it still on track?",
    "We promised a demo next Tuesday with the full fleet-tracking integration.",
    "Acme's CTO wants on-premises deployment with Okta single sign-on.",
]
ZH = [
    "预算大概300万。", "王芳负责采购。", "必须私有化部署。", "他们上次说什么了？", "那个呢？",
    "下个月15号之前要报价，客户希望我们尽快安排演示。",
]
# fmt: on
SENTENCES = st.sampled_from(EN + ZH)
MESSAGE = st.lists(SENTENCES, min_size=1, max_size=6).map(" ".join)
_SPLIT = re.compile(r"(?<=[.!?;。！？；])\s*")
_LATIN_WORD = re.compile(r"[A-Za-z0-9]+")


def _norm(sentence: str) -> str:
    return re.sub(r"[\W_]+", " ", sentence.lower()).strip()


def _words(*texts: str) -> set[str]:
    words = set()
    for text in texts:
        words |= set(_LATIN_WORD.findall(text))
        words |= set(_LATIN_WORD.findall(re.sub(r"(\w)['\u2019]s\b", r"\1", text)))
    return words


@settings(max_examples=300, deadline=None)
@given(message=MESSAGE, previous=MESSAGE, earlier=MESSAGE)
def test_rules_query_repeats_no_sentence_and_cuts_no_word(
    message: str, previous: str, earlier: str
) -> None:
    # working memory built the way the graph builds it: from the previous user turns
    now = datetime(2026, 11, 3, tzinfo=UTC)
    working, _ = update_working({}, earlier, turn=1, now=now, ttl_s=3600)
    working, _ = update_working(working.to_state(), previous, turn=2, now=now, ttl_s=3600)
    recent = [f"human: {earlier}", "ai: Noted.", f"human: {previous}", "ai: Noted."]
    query = rules_query(message, recent, working.to_state())

    assert 0 < len(query) <= MAX_QUERY_CHARS
    sentences = [_norm(s) for s in _SPLIT.split(query) if _norm(s)]
    assert len(sentences) == len(set(sentences)), query
    # every Latin word of the query is a whole word of the inputs (none was cut)
    cut = _words(query) - _words(message, previous, earlier)
    assert not cut, (cut, query)


@given(text=MESSAGE, limit=st.integers(min_value=20, max_value=400))
def test_cut_at_word_never_ends_inside_a_word(text: str, limit: int) -> None:
    out = cut_at_word(text, limit)
    assert len(out) <= limit
    folded = " ".join(text.split())
    assert folded.startswith(out)
    if out and len(out) < len(folded):
        end, after = out[-1], folded[len(out)]
        assert not (_LATIN_WORD.match(end) and _LATIN_WORD.match(after)), (out, after)


def test_the_reported_repeat_is_gone() -> None:
    said = "Our budget is 3 million and it must include SSO."
    working, _ = update_working({}, said, turn=1, now=datetime.now(UTC), ttl_s=3600)
    query = rules_query(said, [f"human: {said}", "ai: ok"], working.to_state())
    assert query == said


def test_join_unique_keeps_first_spelling_and_drops_contained_sentences() -> None:
    assert join_unique(["Budget is 3M.", "budget is 3m", "SSO needed. Budget is 3M!"]) == (
        "Budget is 3M. SSO needed."
    )
