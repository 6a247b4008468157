"""The SQLite checkpointer deletes the checkpoints of given runs, which a LangGraph
server needs to roll a run back (``multitask_strategy="rollback"``); without it the
server answers the debounced extractor's scheduling with a 500."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph

from memagent.graph.run_checkpoints import RunScopedSqliteSaver


class S(TypedDict):
    log: Annotated[list[str], lambda a, b: [*a, *b]]


def _graph(saver: Any) -> Any:
    b = StateGraph(S)
    b.add_node("step", lambda s: {"log": ["step"]})
    b.add_edge(START, "step")
    b.add_edge("step", END)
    return b.compile(checkpointer=saver)


async def test_deleting_a_runs_checkpoints_leaves_the_earlier_runs(tmp_path: Path) -> None:
    async with RunScopedSqliteSaver.from_conn_string(str(tmp_path / "s.sqlite")) as saver:
        g = _graph(saver)
        for run, thread in (("run-a", "t1"), ("run-b", "t1"), ("run-c", "t2")):
            cfg: Any = {"configurable": {"thread_id": thread}, "metadata": {"run_id": run}}
            await g.ainvoke({"log": [run]}, cfg)
        t1: Any = {"configurable": {"thread_id": "t1"}}
        assert (await g.aget_state(t1)).values["log"] == ["run-a", "step", "run-b", "step"]
        await saver.adelete_for_runs(["run-b", "no-such-run"])
        assert (await g.aget_state(t1)).values["log"] == ["run-a", "step"]
        runs = {c.metadata.get("run_id") async for c in saver.alist(None)}
        assert runs == {"run-a", "run-c"}
        async with saver.conn.execute("SELECT count(*) FROM writes") as cur:
            (writes,) = await cur.fetchone()  # type: ignore[misc]
        async with saver.conn.execute(
            "SELECT count(*) FROM writes w WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE "
            "c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND "
            "c.checkpoint_id = w.checkpoint_id)"
        ) as cur:
            (orphans,) = await cur.fetchone()  # type: ignore[misc]
        assert writes > 0 and orphans == 0
        await saver.adelete_for_runs([])


async def test_the_agents_checkpointer_supports_rollback(tmp_path: Path) -> None:
    from memagent.core.settings import Settings
    from memagent.graph.agent import checkpointer_factory

    async with checkpointer_factory(Settings(home=tmp_path)) as saver:
        assert isinstance(saver, RunScopedSqliteSaver)
        await saver.adelete_for_runs(["r1"])  # AsyncSqliteSaver: NotImplementedError
