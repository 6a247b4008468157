"""Per-job cost of an extraction job's session context (``transcript_context``).

Stores a session of ``--messages`` user messages (sales notes, English and Chinese) in the
real store (Qdrant engine on local disk, hash embeddings) through the worker, as the agent
does, then times ``transcript_context`` for the session's next job ``--repeat`` times: the
read of the stored transcript, and the injection screen's verdict of each earlier message
the job is shown. Counts how often the screen runs per job.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/context_bench.py

Prints wall-clock and process-CPU mean and p95 per job; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from memagent.core.types import Turn  # noqa: E402
from memagent.graph.extraction_steps import transcript_context  # noqa: E402
from memagent.graph.jobs import JobQueue  # noqa: E402
from memagent.graph.worker import Worker  # noqa: E402
from memagent.memory import poison  # noqa: E402
from memagent.memory.extractors import rules_extractor  # noqa: E402
from memagent.memory.write_types import WriteConfig  # noqa: E402
from memagent.stores.embeddings import hash_embeddings  # noqa: E402
from memagent.stores.qdrant_store import QdrantStore  # noqa: E402

NOTES = [
    "Met with Acme Logistics today. Their CTO Li Wei is the decision maker. Budget is 1.2"
    " million CNY for the fleet-tracking rollout, decision by end of March. He hates phone"
    " calls, email only. They currently use Salesforce and were quoted 900k by a competitor.",
    "华信科技的采购负责人是王芳，项目预算大概300万，必须私有化部署，下个月15号之前要报价。"
    "她说上次的方案太贵了，希望我们能给一个分期付款的选项，并且要求提供三个同行业的案例。",
    "Follow-up call with Dana Smith from procurement: they need SSO with Okta, monthly"
    " invoices, and a pilot for two warehouses before the full rollout in Q3. We promised"
    " a demo next Tuesday and a security questionnaire by Friday.",
    "李总今天说他们的IT部门更倾向于本地部署，另外财务那边要求合同里写明年度维护费不超过"
    "合同金额的15%，下周三之前需要我们把修改后的报价单发过去。",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    calls = 0
    screen = poison.check_instruction

    def counted(*a: object, **k: object) -> str | None:
        nonlocal calls
        calls += 1
        return screen(*a, **k)  # type: ignore[arg-type]

    poison.check_instruction = counted  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        index = {"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]}
        with QdrantStore.from_location(str(Path(tmp) / "store"), index=index) as store:  # type: ignore[arg-type]
            queue = JobQueue(Path(tmp) / "jobs.sqlite")
            cfg = WriteConfig()
            worker = Worker(queue, store, extractor=rules_extractor(), write_config=cfg,
                            cross_process_lock=False)  # fmt: skip
            for i in range(args.messages):
                turns = [Turn("user", NOTES[i % len(NOTES)], f"u{i}"),
                         Turn("assistant", "Noted.", f"a{i}")]  # fmt: skip
                queue.submit(thread_id="t", user_id="bench", customer_id="acme", turns=turns)
                worker.drain()
            job = queue.submit(thread_id="t", user_id="bench", customer_id="acme",
                               turns=[Turn("user", "He prefers email.", "next")])  # fmt: skip
            transcript_context(store, job, config=cfg)  # warm: the n-gram judge loads once
            calls = 0
            wall, cpu = [], []
            for _ in range(args.repeat):
                w0, c0 = time.perf_counter(), time.process_time()
                context = transcript_context(store, job, config=cfg)
                cpu.append((time.process_time() - c0) * 1000)
                wall.append((time.perf_counter() - w0) * 1000)
            queue.close()
    print(f"session of {args.messages} user messages; a job is shown {len(context)} of them")
    print(f"screen calls per job: {calls / args.repeat:.1f}")
    for name, xs in (("wall", wall), ("cpu", cpu)):
        arr = np.asarray(xs)
        print(f"{name} ms per job: mean {arr.mean():.2f}  p50 {np.percentile(arr, 50):.2f}"
              f"  p95 {np.percentile(arr, 95):.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
