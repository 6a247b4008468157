"""Per-home service benchmark: what a terminal waits for, through the service and without.

Real ``memagent`` processes on a fresh home, as a user runs them:

1. client start: ``python -c "import memagent.graph.cli"`` (what every command pays);
2. service cold start: ``memagent service start`` on a home with no service (spawn,
   open store, checkpointer, queue, worker, graph) until it answers; then the first
   ``ask`` (which starts the model server and loads the embedder);
3. ``memagent memories list`` wall time: through the warm service vs in-process
   (``MEMAGENT_SERVICE=off``: each command opens the store itself);
4. ``memagent ask`` wall time: through the warm service (model server kept warm) vs
   in-process (each ask opens everything and, with the local model, starts and stops
   the model server), each on its own session.

``--llm fake`` (default) answers from a tiny OpenAI-compatible server in this process:
it measures memagent's own overhead. ``--llm local`` uses the bundled model (slow:
each in-process ask starts the model). Prints medians and the ratio; asserts nothing.

    python bench/service_bench.py [--runs 5] [--llm fake|local] [--embedder hash|e5]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

MEMAGENT = str(Path(sys.executable).with_name("memagent"))
SUPPORT = Path(__file__).resolve().parents[1] / "tests" / "support"


def timed(env: dict[str, str], *args: str) -> float:
    start = time.perf_counter()
    res = subprocess.run([MEMAGENT, *args], capture_output=True, text=True, env=env, timeout=900)
    elapsed = time.perf_counter() - start
    if res.returncode != 0:
        raise SystemExit(f"memagent {' '.join(args)} failed ({res.returncode}): {res.stderr}")
    return elapsed


def median(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} s  (min {min(values):.2f}, max {max(values):.2f})"


@contextlib.contextmanager
def model_url(kind: str) -> Iterator[str | None]:
    if kind == "local":
        yield None
        return
    sys.path.insert(0, str(SUPPORT))
    from fake_openai import serve_fake_openai

    with serve_fake_openai() as fake:
        yield fake.url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--llm", choices=["fake", "local"], default="fake")
    parser.add_argument("--embedder", choices=["hash", "e5"], default="hash")
    args = parser.parse_args()

    client = [timed_import() for _ in range(args.runs)]
    print(f"client import (memagent.graph.cli)      {median(client)}")
    with model_url(args.llm) as url, tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith("MEMAGENT_")}
        env = {**base, "MEMAGENT_HOME": str(Path(tmp) / "home"), "MEMAGENT_EMBEDDER": args.embedder}
        if url:
            env["MEMAGENT_BASE_URL"] = url
        off = {**env, "MEMAGENT_SERVICE": "off"}
        scope = ("--user", "bench", "--customer", "acme")
        try:
            cold = timed(env, "service", "start")
            print(f"service cold start (service start)       {cold:6.2f} s")
            first = timed(env, "ask", "warm up", *scope, "--session", "w0")  # model, embedder up
            print(f"first ask after start (model, embedder)  {first:6.2f} s")
            lists = [timed(env, "memories", "list", "--user", "bench") for _ in range(args.runs)]
            asks = [
                timed(env, "ask", f"Budget is {i} million.", *scope, "--session", f"s{i}")
                for i in range(args.runs)
            ]
        finally:
            subprocess.run([MEMAGENT, "service", "stop"], env=env, capture_output=True)
        lists_off = [timed(off, "memories", "list", "--user", "bench") for _ in range(args.runs)]
        asks_off = [
            timed(off, "ask", f"Budget is {i} million.", *scope, "--session", f"o{i}")
            for i in range(args.runs)
        ]
    print(f"memories list, warm service              {median(lists)}")
    print(f"memories list, in-process                {median(lists_off)}")
    print(f"ask ({args.llm} model), warm service          {median(asks)}")
    print(f"ask ({args.llm} model), in-process            {median(asks_off)}")
    ratio = statistics.median(asks_off) / statistics.median(asks)
    print(f"ask in-process / warm service            {ratio:6.1f}x")


def timed_import() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import memagent.graph.cli"], check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
