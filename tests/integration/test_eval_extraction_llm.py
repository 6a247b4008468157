"""``eval extraction`` with the real local LLM extractor through the outbox and the worker.

The whole run shares one event loop, so the model's async client must serve every job
of every dialog: a failed job may only be the model's own malformed answer (reported,
as the 1.5B model sometimes gives one), never a transport or event-loop error; what
the model extracts is only required to be something confirmed, not a given figure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.callbacks import BaseCallbackHandler

from memagent.core.settings import Settings
from memagent.evals.eval_dataset import Dialog, GoldItem, load_dataset
from memagent.evals.eval_extraction import _llm, run_extraction_eval
from memagent.llm.adapter import chat_model
from memagent.memory.extractors import llm_extractor

pytestmark = [pytest.mark.llm, pytest.mark.slow]

AT = "2026-11-12T10:00:00+08:00"
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sales_extraction_v2_sample.json"


def test_llm_extractor_reaches_the_model_for_every_job(llm_settings: Settings) -> None:
    dialogs = [d for d in load_dataset(SAMPLE).dialogs if d.split == "dev"]
    res = run_extraction_eval(_llm(llm_settings), dialogs, version=2)
    assert res["extractor"] == "llm" and res["dialogs"] == 2
    errors = res["error_samples"]
    assert all(e.startswith("MalformedExtractionError") for e in errors), errors
    assert res["extractor_errors"] < 3  # the sample's dev dialogs are three jobs
    assert res["active_memories"] >= 1 and res["gold_memories"] == 5
    assert set(res["by_lang"]) == {"en", "zh"}


class _Calls(BaseCallbackHandler):
    """Counts the chat model calls and keeps the lines each was asked to sort."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.lines.append(str(messages[0][-1].content).split("Lines:\n")[-1])


def test_the_hybrid_extractor_sends_the_real_model_only_what_the_rules_did_not_read(
    llm_settings: Settings,
) -> None:
    calls = _Calls()
    # a client of its own (see the next test): the shared one is bound to the event loop of
    # the run that first used it, and a later run's call then fails on a closed loop
    client = httpx.AsyncClient(timeout=llm_settings.llm_timeout)
    model = chat_model(
        llm_settings, small=True, temperature=0.0, callbacks=[calls], http_async_client=client
    )
    turns_en = ({"role": "user", "content": "Budget is 400k. Acme dispatch is done by phone "
                 "and routes are planned by hand. Vans are leased.", "at": AT},)  # fmt: skip
    turns_zh = ({"role": "user", "content": "云杉物流 做冷链的 有800辆车 运营总监是周敏 "
                 "他只看微信", "at": AT},)  # fmt: skip
    dialogs = [Dialog(id="hy-en", turns=turns_en, gold=(), customer="acme"),
               Dialog(id="hy-zh", turns=turns_zh, gold=(), customer="yunshan")]  # fmt: skip
    res = run_extraction_eval(llm_extractor(model), dialogs, version=2)
    assert all(e.startswith("MalformedExtractionError") for e in res["error_samples"]), res
    assert len(calls.lines) >= 2  # one note, one call each (a retry adds one)
    sent = "\n".join(calls.lines)
    assert "Vans are leased" in sent and "做冷链的" in sent
    assert "400k" not in sent and "周敏" not in sent and "800" not in sent  # read by the rules
    # the rules' facts stay whatever the model answers
    assert res["active_memories"] >= 3, res


def test_a_dictated_run_on_note_with_a_condition_reaches_the_real_model(
    llm_settings: Settings,
) -> None:
    # one unpunctuated voice memo with an "if" in the middle: the rules once labelled all of
    # it a hypothetical; its other clauses must still reach the model and be stored
    calls = _Calls()
    # a client of its own: langchain-openai shares one async HTTP client per base URL and
    # timeout, bound to the event loop of the run that first used it (the test above)
    client = httpx.AsyncClient(timeout=llm_settings.llm_timeout)
    model = chat_model(
        llm_settings, small=True, temperature=0.0, callbacks=[calls], http_async_client=client
    )
    memo = ("quick memo from the Delmar visit uh we met with Paul Okafor he's their CFO and "
            "he said the finance team still re-keys every invoice by hand, he wants a trial "
            "starting March 2nd "
            "and if it goes well the full deal is about 900k next year, also they got a pitch "
            "from Zuora, he prefers texts over email")  # fmt: skip
    gold = (GoldItem(groups=(("zuora",),), category="competitor"),
            GoldItem(groups=(("okafor",), ("cfo",)), category="stakeholder"))  # fmt: skip
    dialog = Dialog(id="run-on", turns=({"role": "user", "content": memo, "at": AT},),
                    gold=gold, customer="delmar")  # fmt: skip
    res = run_extraction_eval(llm_extractor(model), [dialog], version=2)
    errors = res["error_samples"]
    assert all(e.startswith("MalformedExtractionError") for e in errors), errors
    sent = "\n".join(calls.lines)
    # the rules read the role, the trial and the rival themselves; what they do not read
    # reaches the model, while the condition's own tail stays out
    assert "re-keys every invoice" in sent and "900k" not in sent, sent
    # before, the rules' "hypothetical" label kept the whole memo from the model: nothing
    assert res["recall"] >= 0.5 and res["active_memories"] >= 1, res
