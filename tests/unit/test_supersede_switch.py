"""A move to another system closes the old incumbent; a rescoped deal and a moved close
date replace the figures of a labelled CRM note (versioning keys)."""

from __future__ import annotations

from datetime import UTC, datetime

from langgraph.store.memory import InMemoryStore

from memagent.core.types import Turn
from memagent.memory.extract_corrections import replaced_by_new, switched
from memagent.memory.extract_keys import fact_key
from memagent.memory.extract_rules import extract_rules
from memagent.memory.namespaces import namespace
from memagent.memory.records import MemoryRecord
from memagent.memory.write_path import write_memory
from memagent.stores.embeddings import hash_embeddings

NS = namespace("u1", "c1", "facts")
T0 = datetime(2026, 11, 16, 9, tzinfo=UTC)


def _active_texts(turns: list[str]) -> list[str]:
    store = InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})
    for i, text in enumerate(turns):
        cands, _ = extract_rules([Turn(role="user", content=text, id=f"m{i}", at=T0.isoformat())])
        for c in cands:
            write_memory(store, "u1", "c1", c, now=T0)
    recs = [MemoryRecord.from_store(i.value) for i in store.search(NS, limit=50)]
    return [r.content for r in recs if r.status == "active"]


def test_the_switch_names_both_systems() -> None:
    assert switched("Brightwave switched from Salesforce to HubSpot last month") == (
        "Salesforce", "HubSpot")  # fmt: skip
    assert switched("他们上个月已经从企业微信切到飞书了") == ("企业微信", "飞书")
    assert switched("They replaced Zendesk with Freshdesk in May") == ("Zendesk", "Freshdesk")
    assert switched("我们从北京出发到上海") is None
    assert switched("pilot kickoff moved from Dec 1 to Jan 12") is None  # dates, not systems
    assert switched("从下周一切到周三") is None
    assert replaced_by_new("他们已经从企业微信切到飞书了") == "他们已经切到飞书了"
    assert replaced_by_new("They replaced Zendesk with Freshdesk") == "They moved to Freshdesk"


def test_a_switch_closes_the_old_incumbent_en() -> None:
    texts = _active_texts([
        "Brightwave Media runs Salesforce as their CRM today.",
        "Heads up: Brightwave switched from Salesforce to HubSpot last month, so the "
        "integration has to be HubSpot.",
    ])  # fmt: skip
    assert not [t for t in texts if "Salesforce" in t], texts
    assert any("HubSpot" in t for t in texts)


def test_a_switch_closes_the_old_incumbent_zh() -> None:
    texts = _active_texts(
        ["青山制造目前用企业微信做内部沟通。", "更新：他们上个月已经从企业微信切到飞书了。"]
    )
    assert not [t for t in texts if "企业微信" in t], texts
    assert any("飞书" in t for t in texts)


def test_deal_value_is_one_figure_and_a_labelled_close_is_the_close() -> None:
    assert fact_key("amount", "$410,000 (3-yr)", None, [], None, "Value")[0] == "deal_value"
    assert fact_key("amount", "New scope ~$120k/yr, 1-year deal", None, [], None)[0] == "deal_value"
    assert fact_key("budget", "合同金额改成90万", None, [], None)[0] == "deal_value"
    assert fact_key("budget", "Budget is $200k", None, [], None)[0] == "budget"
    texts = _active_texts([
        "Opp: Northgate Law\nValue: $300,000 (3-yr)\nClose: Jan 20",
        "Northgate update: New scope ~$180k, 1-year deal. Close pushed to March.",
    ])  # fmt: skip
    assert not [t for t in texts if "300,000" in t or "Jan 20" in t], texts


def test_a_rescheduled_date_touches_no_incumbent() -> None:
    texts = _active_texts([
        "Verdant update: pilot kickoff moved from Dec 1 to Jan 12. They're on NCR for POS "
        "(staying); we'd replace their loyalty engine, currently Antavo.",
    ])  # fmt: skip
    assert len([t for t in texts if "kickoff" in t]) == 1, texts
