"""QdrantStore benchmark: ingest, search latency, reopen, engine comparison.

Prints, per size (items spread over 1000 namespaces = 100 users x 10 customers):
ingest items/s with a fast fake embedder, then search p50/p95 for the floor
measured in the same run (the engine's own filtered query; the e5 query
embedding alone) next to the store's dense-only and hybrid search (keyword
cache cold = first query of a namespace, warm = repeated), store-only with the
fake embedder and end-to-end with the default e5 embedder. Then the reopen time
of the largest store, and qdrant-client local mode vs qdrant-edge at a size
local mode still finishes.

    OMP_NUM_THREADS=1 .venv/bin/python bench/store_bench.py               # 1k, 10k, 100k
    OMP_NUM_THREADS=1 .venv/bin/python bench/store_bench.py --sizes 1000 --queries 50  # quick

Numbers are for the machine it runs on; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langgraph.store.base import PutOp  # noqa: E402

from memagent.stores import store_ops  # noqa: E402
from memagent.stores.embeddings import E5_DIMS, default_embeddings  # noqa: E402
from memagent.stores.engines import INDEXED  # noqa: E402
from memagent.stores.qdrant_store import QdrantStore  # noqa: E402

DIMS = E5_DIMS
USERS, CUSTOMERS = 100, 10
WORDS = [
    "order",
    "invoice",
    "shipment",
    "pump",
    "valve",
    "turbine",
    "budget",
    "discount",
    "contract",
    "renewal",
    "delivery",
    "warehouse",
    "quote",
    "price",
    "margin",
    "support",
    "ticket",
    "meeting",
    "demo",
    "trial",
    "license",
    "upgrade",
    "payment",
    "overdue",
    "email",
    "phone",
    "preference",
    "manager",
    "director",
    "procurement",
    "quality",
    "audit",
]
PRODUCTS = ["XJ-2000", "ZX-9", "PT-450", "MV-12", "KL-7000", "QR-88"]


class FakeEmbeddings(Embeddings):
    """Deterministic random unit vectors seeded by the text: near-zero cost."""

    def _one(self, text: str) -> list[float]:
        v = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(DIMS)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


def namespace(i: int) -> tuple[str, ...]:
    n = i % (USERS * CUSTOMERS)
    return ("memagent", f"u{n // CUSTOMERS}", f"c{n % CUSTOMERS}", "facts")


def fact(rng: random.Random, i: int) -> str:
    words = rng.sample(WORDS, 8)
    return f"{' '.join(words[:4])} {rng.choice(PRODUCTS)} PO-2026-{i:06d} {' '.join(words[4:])}"


def query_text(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)} {rng.choice(WORDS)} {rng.choice(PRODUCTS)}"


def pct(samples: Sequence[float]) -> tuple[float, float]:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return statistics.median(ms), p95


def timed(fn: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def ingest(store: QdrantStore, n: int, batch: int, seed: int = 7) -> float:
    rng = random.Random(seed)
    t = time.perf_counter()
    for start in range(0, n, batch):
        store.batch(
            [
                PutOp(namespace(i), f"k{i}", {"content": fact(rng, i)})
                for i in range(start, min(n, start + batch))
            ]
        )
    return n / (time.perf_counter() - t)


def search_rows(
    store: QdrantStore, n_queries: int, seed: int, label: str
) -> list[tuple[str, float, float]]:
    """Engine floor, dense-only and hybrid (cold + warm keyword cache) p50/p95."""
    rng = random.Random(seed)
    emb = store.embeddings
    assert emb is not None
    cases = [
        (namespace(rng.randrange(USERS * CUSTOMERS))[:3], query_text(rng)) for _ in range(n_queries)
    ]
    vecs = [emb.embed_query(q) for _, q in cases]
    now = time.time()
    it = iter(range(len(cases)))
    rows = []

    def engine_only() -> None:
        i = next(it)
        where = store_ops.data_where(cases[i][0], None, now).and_(INDEXED)
        store.engine.search(vecs[i], where, 10, store_ops.ITEM_FIELDS)

    rows.append(
        (
            f"engine filtered query ({label} vectors precomputed)",
            *pct(timed(engine_only, len(cases))),
        )
    )
    for mode in ("dense", "hybrid"):
        store._searcher.cache.clear()
        samples = []
        for prefix, q in cases:
            t = time.perf_counter()
            store.search_scored(prefix, query=q, mode=mode, limit=10)  # type: ignore[arg-type]
            samples.append(time.perf_counter() - t)
        tag = "" if mode == "dense" else ", keyword cache cold"
        rows.append((f"store {mode} ({label}{tag})", *pct(samples)))
        if mode == "hybrid":
            warm = []
            for prefix, q in cases:
                t = time.perf_counter()
                store.search_scored(prefix, query=q, mode="hybrid", limit=10)
                warm.append(time.perf_counter() - t)
            rows.append((f"store hybrid ({label}, keyword cache warm)", *pct(warm)))
    return rows


def bench_size(
    n: int, args: argparse.Namespace, root: str
) -> tuple[list[tuple[str, float, float]], str]:
    location = os.path.join(root, f"edge-{n}")
    index = {"dims": DIMS, "embed": FakeEmbeddings(), "fields": ["content"]}
    rows: list[tuple[str, float, float]] = []
    with QdrantStore.from_location(location, index=index) as store:  # type: ignore[arg-type]
        rate = ingest(store, n, args.batch)
        rows.append(
            (f"ingest, fake embedder, batches of {args.batch} (items/s)", rate, float("nan"))
        )
        rows += search_rows(store, args.queries, 11, "fake embedder")
    if args.e5:
        e5 = default_embeddings()
        e5.embed_query("warm up")
        qs = [query_text(random.Random(i)) for i in range(args.queries)]
        rows.append(
            ("e5 query embedding alone", *pct([_t(partial(e5.embed_query, q)) for q in qs]))
        )
        index_e5 = {"dims": DIMS, "embed": e5, "fields": ["content"]}
        with QdrantStore.from_location(location, index=index_e5) as store:  # type: ignore[arg-type]
            rows += [
                r
                for r in search_rows(store, args.queries, 13, "e5")
                if not r[0].startswith("engine")
            ]
    return rows, location


def _t(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def reopen(location: str) -> tuple[float, float]:
    index = {"dims": DIMS, "embed": FakeEmbeddings(), "fields": ["content"]}
    t = time.perf_counter()
    cm = QdrantStore.from_location(location, index=index)  # type: ignore[arg-type]
    store = cm.__enter__()
    opened = time.perf_counter() - t
    t = time.perf_counter()
    store.search_scored(namespace(3)[:3], query="pump invoice", mode="hybrid")
    first = time.perf_counter() - t
    cm.__exit__(None, None, None)
    return opened, first


def engines_compare(n: int, queries: int, root: str) -> list[tuple[str, float, float]]:
    rows = []
    for engine in ("edge", "client"):
        location = os.path.join(root, f"cmp-{engine}-{n}")
        index = {"dims": DIMS, "embed": FakeEmbeddings(), "fields": ["content"]}
        with QdrantStore.from_location(location, index=index, engine=engine) as store:  # type: ignore[arg-type]
            rate = ingest(store, n, 500)
            rows.append((f"{engine}: ingest {n} (items/s)", rate, float("nan")))
            rng = random.Random(5)
            emb = store.embeddings
            assert emb is not None
            cases = [
                (namespace(rng.randrange(USERS * CUSTOMERS))[:3], emb.embed_query(query_text(rng)))
                for _ in range(queries)
            ]
            now = time.time()

            def run(
                case: tuple[tuple[str, ...], list[float]], s: QdrantStore = store, now: float = now
            ) -> None:
                where = store_ops.data_where(case[0], None, now).and_(INDEXED)
                s.engine.search(case[1], where, 10, store_ops.ITEM_FIELDS)

            rows.append(
                (f"{engine}: filtered query at {n}", *pct([_t(partial(run, c)) for c in cases]))
            )
    return rows


def print_table(title: str, rows: list[tuple[str, float, float]]) -> None:
    print(f"\n{title}")
    print(f"{'measure':<62} {'p50 ms / rate':>14} {'p95 ms':>9}")
    for name, a, b in rows:
        bs = "" if b != b else f"{b:9.2f}"  # NaN: a rate, no percentile
        print(f"{name:<62} {a:14.2f} {bs:>9}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated item counts")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument(
        "--no-e5", dest="e5", action="store_false", help="skip the default-embedder rows"
    )
    ap.add_argument("--compare-size", type=int, default=2000, help="0 skips the engine comparison")
    ap.add_argument(
        "--dir", default=None, help="where stores are written (default: a temp dir on disk)"
    )
    args = ap.parse_args()
    root = args.dir or tempfile.mkdtemp(
        prefix="memagent-bench-", dir=os.environ.get("TMPDIR", "/var/tmp")
    )
    print(
        f"store bench: root={root} threads OMP={os.environ.get('OMP_NUM_THREADS')} cpus={os.cpu_count()}"
    )
    last = None
    try:
        for n in [int(s) for s in args.sizes.split(",") if s]:
            rows, last = bench_size(n, args, root)
            print_table(f"{n} items / {USERS * CUSTOMERS} namespaces, {args.queries} queries", rows)
        if last:
            opened, first = reopen(last)
            print_table(
                "reopen of the largest store",
                [
                    ("open (s)", opened, float("nan")),
                    ("first hybrid query after reopen (ms)", first * 1000, float("nan")),
                ],
            )
        if args.compare_size:
            print_table(
                f"qdrant-client local mode vs qdrant-edge ({args.compare_size} items)",
                engines_compare(args.compare_size, min(args.queries, 50), root),
            )
    finally:
        if not args.dir:
            with suppress(OSError):
                shutil.rmtree(root)


if __name__ == "__main__":
    main()
