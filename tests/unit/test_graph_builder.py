"""build_graph: slots swap implementations without changing topology or channels."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from graph_fakes import factory, memory_store, runtime, scripted
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from memagent.core.context import Context
from memagent.core.settings import Settings
from memagent.core.state import State
from memagent.graph import builder as b


def _boom(settings: Any = None, *, small: bool = False) -> Any:
    raise AssertionError("a model was created while building the graph")


def shape(settings: Settings) -> tuple[Any, ...]:
    compiled = b.build_default_graph(settings, chat_model_factory=_boom).compile()
    drawable = compiled.get_graph()
    edges = sorted((e.source, e.target, e.conditional) for e in drawable.edges)
    return tuple(sorted(drawable.nodes)), tuple(edges), tuple(sorted(compiled.channels))


def test_every_slot_combination_has_the_same_topology_and_channels(tmp_path: Path) -> None:
    shapes = {
        shape(Settings(home=tmp_path, rewriter=rw, recall=rc, extractor=ex))  # type: ignore[arg-type]
        for rw, rc, ex in itertools.product(
            ("llm", "rules", "off"), ("hybrid", "dense", "keyword", "off"), ("llm", "rules", "off")
        )
    }
    assert len(shapes) == 1
    nodes = shapes.pop()[0]
    assert set(b.NODES) <= set(nodes)
    assert not (tmp_path / "jobs.sqlite").exists()  # nothing opened at build time
    assert not (tmp_path / "crm.sqlite").exists()


def test_route_after_llm() -> None:
    from langchain_core.messages import AIMessage

    assert b.route_after_llm(State(messages=[AIMessage("hi")])) == b.ASYNC_EXTRACT
    call = AIMessage(content="", tool_calls=[{"name": "x", "args": {}, "id": "1"}])
    assert b.route_after_llm(State(messages=[call])) == b.TOOLS


def test_the_turn_ends_with_extraction_then_the_session_work(tmp_path: Path) -> None:
    compiled = b.build_default_graph(Settings(home=tmp_path), chat_model_factory=_boom).compile()
    edges = {(e.source, e.target) for e in compiled.get_graph().edges}
    assert (b.LLM, b.ASYNC_EXTRACT) in edges
    assert (b.ASYNC_EXTRACT, b.END_OF_TURN) in edges
    assert (b.END_OF_TURN, "__end__") in edges
    assert not any(src == b.ASYNC_EXTRACT and dst == "__end__" for src, dst in edges)


async def test_end_of_turn_runs_the_session_hook_and_flushes_access_stats() -> None:
    from memagent.nodes.recall import AccessLog

    calls: list[str] = []

    class Log(AccessLog):
        def flush(self, store: Any) -> None:
            calls.append("flush")

    async def after_reply(state: State, rt: Any) -> dict[str, Any]:
        calls.append("after_reply")
        return {"working": {"version": 1}, "degraded": ["summary"]}

    node = b.make_end_of_turn(after_reply, access_log=Log())
    update = await node(State(degraded=["recall"]), runtime(memory_store()))
    assert calls == ["after_reply", "flush"]
    assert update == {"working": {"version": 1}, "degraded": ["summary"]}


def _degraded_turn(note: str) -> Any:
    async def node(state: State, rt: Any) -> dict[str, Any]:
        return {"degraded": [note]}

    return node


async def test_degraded_collects_this_turns_notes_and_is_reset_next_turn(
    tmp_path: Path,
) -> None:
    """Every node adds its own note through the reducer; the next turn starts empty."""
    from memagent.nodes.query_rewrite import make_rewriter

    failing = {"on": True}

    async def recall(state: State, rt: Any) -> dict[str, Any]:
        return {"briefing": [], **({"degraded": ["recall"]} if failing["on"] else {})}

    async def prompt(state: State, rt: Any) -> dict[str, Any]:
        return {"prompt": list(state.messages), "prompt_tokens": 1, "degraded": ["prompt"]}

    async def extract(state: State, rt: Any) -> dict[str, Any]:
        return {"degraded": ["extraction", "recall"]} if failing["on"] else {}

    graph = b.build_default_graph(
        Settings(home=tmp_path, extractor="off"),
        chat_model_factory=factory(scripted("One.", "Two.")),
        rewriter=make_rewriter("rules", small_model=lambda: scripted("unused")),
        recall=recall,
        prompt_assembly=prompt,
        extractor=extract,
        after_reply=_degraded_turn("summary"),
    ).compile(checkpointer=InMemorySaver(), store=memory_store())
    config: Any = {"configurable": {"thread_id": "t"}}
    ctx = Context(user_id="alice", customer_id="acme")
    first = await graph.ainvoke({"messages": [HumanMessage("hello")]}, config, context=ctx)
    assert first["degraded"] == ["recall", "prompt", "extraction", "summary"]
    failing["on"] = False
    second = await graph.ainvoke({"messages": [HumanMessage("again")]}, config, context=ctx)
    assert second["degraded"] == ["prompt", "summary"]


def test_add_notes_appends_in_order_and_resets_on_the_marker() -> None:
    from memagent.core.state import RESET, add_notes, fresh_notes

    assert add_notes(["a"], ["b", "a", "c"]) == ["a", "b", "c"]
    assert add_notes(None, None) == []
    assert add_notes(["a"], []) == ["a"]
    assert add_notes(["a", "b"], fresh_notes()) == []
    assert add_notes(["a"], fresh_notes("x", "x")) == ["x"]
    assert RESET not in add_notes(["a"], ["b", RESET])


async def test_extractor_enqueues_on_the_queue(tmp_path: Path) -> None:
    from memagent.graph.jobs import JobQueue

    queue = JobQueue(tmp_path / "jobs.sqlite")
    settings = Settings(home=tmp_path, extractor="rules")

    async def prompt(state: State, rt: Any) -> dict[str, Any]:
        return {"prompt": list(state.messages), "prompt_tokens": 1}

    graph = b.build_default_graph(
        settings,
        chat_model_factory=factory(scripted("Noted.")),
        queue_factory=lambda: queue,
        prompt_assembly=prompt,
    )
    compiled = graph.compile(checkpointer=InMemorySaver(), store=memory_store())
    await compiled.ainvoke(
        {"messages": [HumanMessage("Our budget is 3 million USD.")]},
        {"configurable": {"thread_id": "t"}},
        context=Context(user_id="alice", customer_id="acme"),
    )
    assert queue.outstanding() == 1


def test_unknown_extractor_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown extractor"):
        b.make_extractor("magic", lambda: None)  # type: ignore[arg-type]


async def test_every_node_logs_trace_id_name_and_ms(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def prompt(state: State, rt: Any) -> dict[str, Any]:
        return {"prompt": list(state.messages), "prompt_tokens": 1}

    settings = Settings(home=tmp_path, extractor="off")
    graph = b.build_default_graph(
        settings, chat_model_factory=factory(scripted("Hi.")), prompt_assembly=prompt
    ).compile(checkpointer=InMemorySaver(), store=memory_store())
    with caplog.at_level("INFO", logger="memagent.trace"):
        out = await graph.ainvoke(
            {"messages": [HumanMessage("hello")]},
            {"configurable": {"thread_id": "t"}},
            context=Context(user_id="alice", customer_id="acme"),
        )
    lines = [r.getMessage() for r in caplog.records if r.name == "memagent.trace"]
    for node in (
        b.QUERY_REWRITE,
        b.RECALL,
        b.PROMPT_ASSEMBLY,
        b.LLM,
        b.ASYNC_EXTRACT,
        b.END_OF_TURN,
    ):
        assert any(f"trace={out['trace_id']} node={node} ms=" in line for line in lines), node


def test_recall_tuning_comes_from_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memagent.nodes.recall_expand import RecallTuning

    seen: dict[str, Any] = {}
    real_recall, real_tools = b.make_recall_node, b.make_tools

    def recall_node(*args: Any, tuning: RecallTuning, **kwargs: Any) -> Any:
        seen["recall"] = tuning
        return real_recall(*args, tuning=tuning, **kwargs)

    def tools(*args: Any, tuning: RecallTuning, **kwargs: Any) -> Any:
        seen["tools"] = tuning
        return real_tools(*args, tuning=tuning, **kwargs)

    monkeypatch.setattr(b, "make_recall_node", recall_node)
    monkeypatch.setattr(b, "make_tools", tools)
    settings = Settings(
        home=tmp_path,
        recall_feedback_weight=0.0,
        recall_entity_focus=1.0,
        recall_names_out=False,
    )
    b.build_default_graph(settings, chat_model_factory=_boom)
    assert seen["recall"] == seen["tools"]
    assert (seen["recall"].feedback_weight, seen["recall"].entity_focus) == (0.0, 1.0)
    assert not seen["recall"].names_out
    assert not seen["recall"].expands
    with pytest.raises(ValueError, match="recall_entity_focus"):
        Settings(home=tmp_path, recall_entity_focus=1.5)


def test_langgraph_json_graph_is_a_module_attribute_factory() -> None:
    """``langgraph dev`` reads ``memagent.graph.builder:graph`` from the module's own
    attributes (a module ``__getattr__`` is not seen, and Studio's runs then fail): it must
    be a real attribute, a zero-argument factory returning the compiled graph."""
    import json
    from pathlib import Path

    from langgraph.graph.state import CompiledStateGraph

    spec = json.loads((Path(__file__).parents[2] / "langgraph.json").read_text())
    module_name, attr = spec["graphs"]["sales_agent"].split(":")
    assert module_name == b.__name__
    factory = vars(b)[attr]
    assert callable(factory)
    assert isinstance(factory(), CompiledStateGraph)
