"""Extraction benchmark: worker throughput, and reply latency with extraction on vs off.

1. Throughput: N jobs (3 sales statements each) submitted to a real SQLite outbox
   and drained by the worker with the rules extractor into an in-memory store
   (hash embeddings) and, with ``--qdrant``, the embedded Qdrant store.
2. Latency: 30 turns through a minimal LangGraph graph (fake model that waits
   ``--model-ms`` like a real endpoint, SQLite-free in-memory checkpointer).
   "off" ends the turn after the model; "on" adds the real async_extract node
   and an in-process worker thread draining the outbox at the same time.
   Prints the mean/median reply latency of both and the ratio on/off (target <= 1.05).

    OMP_NUM_THREADS=1 python bench/extraction_bench.py [--jobs 200] [--model-ms 300] [--qdrant]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from memagent.core.context import Context
from memagent.core.state import InputState, State
from memagent.graph.jobs import JobQueue, Turn
from memagent.graph.worker import Worker
from memagent.nodes.async_extract import make_async_extract
from memagent.stores.embeddings import hash_embeddings

STATEMENTS = [
    "Our budget is {n} million dollars.",
    "We need {n} seats for the sales team.",
    "Please contact me by email from now on.",
    "我们的预算是{n}0万。",
    "决策人是王总。",
    "合同要在6月{d}日之前签。",
    "Thanks, that sounds good.",
    "What would the price be for {n} seats?",
]


def memory_store() -> InMemoryStore:
    return InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})


def throughput(jobs: int, store: Any, home: Path) -> dict[str, float]:
    q = JobQueue(home / "jobs.sqlite")
    t0 = time.perf_counter()
    for i in range(jobs):
        turns = [
            Turn("user", STATEMENTS[(i + k) % len(STATEMENTS)].format(n=i % 9 + 1, d=i % 28 + 1),
                 f"j{i}-{k}")
            for k in range(3)
        ]  # fmt: skip
        q.submit(thread_id=f"t{i}", user_id="bench", customer_id=f"c{i % 20}", turns=turns)
    submit_s = time.perf_counter() - t0
    rep = Worker(q, store).drain()
    return {
        "jobs": rep.done,
        "submit_ms_per_job": 1000 * submit_s / jobs,
        "jobs_per_s": rep.done / rep.seconds if rep.seconds else float("inf"),
        "writes": float(sum(rep.actions.values())),
    }


def graph(extract: Any, model_ms: float) -> Any:
    async def llm(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        await asyncio.sleep(model_ms / 1000)  # a real endpoint's time to answer
        return {"messages": [AIMessage(f"Noted: {str(state.messages[-1].text)[:40]}")]}

    b = StateGraph(State, input_schema=InputState, context_schema=Context)
    b.add_node("llm", llm)
    b.add_edge(START, "llm")
    if extract is None:
        b.add_edge("llm", END)
    else:
        b.add_node("async_extract", extract)
        b.add_edge("llm", "async_extract")
        b.add_edge("async_extract", END)
    return b.compile(checkpointer=InMemorySaver())


async def turns_latency(g: Any, turns: int, tag: str) -> list[float]:
    cfg = {"configurable": {"thread_id": f"bench-{tag}"}}
    out = []
    for i in range(turns):
        text = STATEMENTS[i % len(STATEMENTS)].format(n=i % 9 + 1, d=i % 28 + 1)
        t0 = time.perf_counter()
        await g.ainvoke({"messages": [HumanMessage(text)]}, cfg, context=Context("bench", "acme"))
        out.append(1000 * (time.perf_counter() - t0))
    return out


def latency(turns: int, model_ms: float, home: Path, rounds: int) -> dict[str, float]:
    q = JobQueue(home / "lat-jobs.sqlite")
    worker = Worker(q, memory_store())
    on_g, off_g = graph(make_async_extract(q), model_ms), graph(None, model_ms)
    on: list[float] = []
    off: list[float] = []
    with worker.running():
        for r in range(rounds):  # interleave so drift hits both sides alike
            off += asyncio.run(turns_latency(off_g, turns, f"off{r}"))
            on += asyncio.run(turns_latency(on_g, turns, f"on{r}"))
        deadline = time.time() + 30
        while q.outstanding() and time.time() < deadline:
            time.sleep(0.05)
    return {
        "turns": float(len(on)),
        "model_ms": model_ms,
        "off_mean_ms": statistics.mean(off),
        "on_mean_ms": statistics.mean(on),
        "off_median_ms": statistics.median(off),
        "on_median_ms": statistics.median(on),
        "ratio_mean": statistics.mean(on) / statistics.mean(off),
        "ratio_median": statistics.median(on) / statistics.median(off),
        "jobs_done": float(q.counts()["done"]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model-ms", type=float, default=300.0)
    ap.add_argument(
        "--qdrant", action="store_true", help="Also drain into the embedded Qdrant store."
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        print(
            "throughput (in-memory store):", fmt(throughput(args.jobs, memory_store(), home / "a"))
        )
        if args.qdrant:
            from memagent.core.settings import Settings
            from memagent.stores import open_store

            s = Settings(home=home / "q", embedder="hash")
            with open_store(s.resolved_store_location(), settings=s) as store:
                print(
                    "throughput (embedded Qdrant):", fmt(throughput(args.jobs, store, home / "b"))
                )
        for ms in (args.model_ms, 0.0):
            print(f"latency (model {ms:.0f} ms):", fmt(latency(args.turns, ms, home, args.rounds)))


def fmt(d: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in d.items())


if __name__ == "__main__":
    main()
