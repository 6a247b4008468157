"""``memagent eval sessions --stories`` on real components: the agent with its SQLite
checkpointer, the embedded Qdrant store (hash embeddings), the job queue and the
in-process worker with the rules extractor; the chat model is the note-taker.

A story is told over several sessions and asked in fresh ones: every planted fact must
be recalled, a corrected budget must be recalled at its new value and never at the
old, the new prospect must not see the first account's facts. With extraction off the
same run recalls nothing, so the scoring is not vacuous.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import factory, scripted
from typer.testing import CliRunner

from memagent.core.settings import Settings
from memagent.evals.eval_stories import NoteTaker, pick, run_stories
from memagent.graph.cli import app


def _settings(tmp_path: Path, extractor: str = "rules") -> Settings:
    return Settings(home=tmp_path / "home", embedder="hash", extractor=extractor,  # type: ignore[arg-type]
                    rewriter="rules", recall="hybrid")  # fmt: skip


@pytest.mark.parametrize(
    ("story", "current", "old"), [("zh-huaxin", "350万", "300万"), ("en-northwind", "650k", "800k")]
)
def test_a_story_is_recalled_in_fresh_sessions(
    tmp_path: Path, story: str, current: str, old: str
) -> None:
    model = scripted("Noted.")
    (result,) = run_stories(_settings(tmp_path), stories=pick([story]), workdir=tmp_path / "w",
                            chat_model_factory=factory(model))  # fmt: skip
    c = result.counts()
    misses = [(p.question, p.facts, p.corrections, p.leaks, p.recalled) for p in result.probes
              if not all(p.facts.values()) or not all(p.corrections.values()) or p.leaks]  # fmt: skip
    assert c["facts_recalled"] == c["facts"] > 0, misses
    assert c["corrections_ok"] == c["corrections"] == 1, misses
    assert c["leaks"] == 0, misses
    budget = next(p for p in result.probes if p.corrections)
    assert any(current in r for r in budget.recalled)
    # the model asked the budget question in a fresh session was shown the new value only
    prompt = next(
        "\n".join(str(m.text) for m in seen)
        for seen in model.seen
        if budget.question in str(seen[-1].text)
    )
    assert current in prompt and old not in prompt


def test_without_extraction_nothing_is_recalled(tmp_path: Path) -> None:
    (result,) = run_stories(
        _settings(tmp_path, extractor="off"), stories=pick(["zh-huaxin"]), workdir=tmp_path / "w"
    )
    c = result.counts()
    assert c["facts"] > 0 and c["facts_recalled"] == 0 and c["corrections_ok"] == 0


def test_cli_runs_one_story_and_prints_per_story_and_language(tmp_path: Path) -> None:
    env = {"MEMAGENT_HOME": str(tmp_path / "h"), "MEMAGENT_EMBEDDER": "hash"}
    res = CliRunner().invoke(
        app, ["eval", "sessions", "--stories", "--story", "zh-huaxin"], env=env
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("zh-huaxin") and "facts recalled 8/8" in lines[0]
    assert any(line.startswith("[zh]") for line in lines) and lines[-1].startswith("overall")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--stories", "--story", "nope"], "unknown story 'nope'"),
        (["--llm"], "--story, --llm and --workdir go with --stories"),
    ],
)
def test_cli_bad_story_options_get_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    res = CliRunner().invoke(app, ["eval", "sessions", *args], env={"MEMAGENT_HOME": str(tmp_path)})
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


class _LoopBound(NoteTaker):
    """Like the local model's async client: bound to the event loop of its first call."""

    loop: Any = None

    async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                         **kw: Any) -> Any:  # fmt: skip
        loop = asyncio.get_running_loop()
        if self.loop is None:
            self.loop = loop
        elif loop is not self.loop:
            raise RuntimeError("Event loop is closed")
        return self._generate(messages, stop, None, **kw)


def test_several_stories_share_one_event_loop(tmp_path: Path) -> None:
    """A real model's client serves every story of a run (it broke from the second on)."""
    model = _LoopBound()
    results = run_stories(_settings(tmp_path), stories=pick(["zh-huaxin", "zh-lanhai"]),
                          workdir=tmp_path / "w", chat_model_factory=factory(model))  # fmt: skip
    assert [r.id for r in results] == ["zh-huaxin", "zh-lanhai"]
    assert all(r.counts()["facts_recalled"] > 0 for r in results)
