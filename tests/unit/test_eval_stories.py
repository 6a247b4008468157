"""Scoring of the sales stories (``memagent eval sessions --stories``): pure functions."""

from __future__ import annotations

from memagent.evals.eval_stories import StoryResult, figures, pick, score_probe
from memagent.evals.sales_stories import STORIES, Fact, Probe

BUDGET = Fact("budget", ("350万", "3500000"), stale=("300万", "3000000"))
PROBE = Probe("huaxin", "华信的预算是多少？", (BUDGET, Fact("owner", ("王芳",))), absent=("李总",))


def test_current_value_recalled_and_old_one_not_is_a_pass() -> None:
    s = score_probe(
        PROBE, [{"content": "华信的预算是350万"}, {"content": "王芳：采购负责人。"}], None
    )
    assert s.facts == {"budget": True, "owner": True} and s.corrections == {"budget": True}
    assert s.leaks == [] and s.replies == {}


def test_old_value_presented_as_current_fails_the_correction() -> None:
    items = [{"content": "华信的预算是350万"}, {"content": "项目预算大概300万"}]
    s = score_probe(PROBE, items, None)
    assert s.facts["budget"] and s.corrections == {"budget": False} and not s.facts["owner"]


def test_old_value_marked_outdated_is_history_not_current() -> None:
    items = [{"content": "华信的预算是350万"}, {"content": "项目预算大概300万", "outdated": True},
             {"content": "2026-11-03 (outdated) you wrote: 预算300万"}]  # fmt: skip
    assert score_probe(PROBE, items, None).corrections == {"budget": True}


def test_leaks_and_replies() -> None:
    s = score_probe(PROBE, [{"content": "李总拍板"}], "预算是350万，之前是300万")
    assert s.leaks == ["李总"] and s.facts["budget"] is False
    assert s.replies == {"budget": False, "owner": False}  # the reply also states the old value
    ok = score_probe(PROBE, [], "华信的预算是350万，王芳负责采购。")
    assert ok.replies == {"budget": True, "owner": True}


def test_figures_per_story_and_language() -> None:
    a = StoryResult("zh-x", "zh", [score_probe(PROBE, [{"content": "预算350万"}], None)])
    b = StoryResult("en-y", "en", [score_probe(PROBE, [], None)])
    f = figures([a, b])
    assert f["by_lang"]["zh"]["facts_recalled"] == 1 and f["by_lang"]["en"]["facts_recalled"] == 0
    assert f["overall"]["facts"] == 4 and f["stories"]["zh-x"]["corrections_ok"] == 1


def test_the_stories_cover_both_languages_corrections_and_a_new_prospect() -> None:
    assert len(STORIES) >= 6 and sum(s.lang == "zh" for s in STORIES) >= 3
    for s in STORIES:
        assert any(f.corrected for p in s.probes for f in p.facts), s.id
        assert len({c for c, _ in s.sessions}) >= 2 and any(p.absent for p in s.probes), s.id
        assert len(s.sessions) >= 3
    assert [s.id for s in pick([], "zh")] == [s.id for s in STORIES if s.lang == "zh"]
