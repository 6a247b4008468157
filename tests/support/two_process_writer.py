"""One of the two writer processes of tests/integration/test_two_process_writes.py.

``python two_process_writer.py STORE_DIR WRITER ROUNDS GO_FILE [JOBS_DB]``: opens the
embedded store in shared mode, prints READY, waits for GO_FILE, then writes ROUNDS
rounds of facts into one namespace through ``write_memory``: a budget value of its
own (conflicting with the other writer's) and two facts both writers state alike
(a free note and a keyed fact). With JOBS_DB the writes take the job queue's
cross-process lock; without it only compare-and-set keeps them apart. Prints one
JSON line of what happened.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from pathlib import Path

from memagent.memory.write_path import Candidate, LockFactory, write_memory
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.qdrant_store import QdrantStore

DIMS = 64


def budget_value(writer: int, n: int) -> str:
    """A value only this writer and round write."""
    return str((writer * 100 + n + 1) * 1_000_000)


def candidates(writer: int, n: int) -> list[Candidate]:
    tag = f"w{writer}-r{n}"
    millions = int(budget_value(writer, n)) // 1_000_000
    return [
        Candidate(
            content=f"Customer budget is {millions} million.",
            attribute="budget",
            value=budget_value(writer, n),
            message_ids=[f"{tag}-budget"],
        ),
        Candidate(content="Customer prefers contact by email.", message_ids=[f"{tag}-email"]),
        Candidate(
            content="Customer needs 12 seats.",
            attribute="seats",
            value="12",
            message_ids=[f"{tag}-seats"],
        ),
    ]


class _Races(logging.Handler):
    """Counts the write path's lost races (its debug log line), for the report."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += "lost a race" in record.getMessage()


def no_lock(name: str) -> contextlib.AbstractContextManager[None]:
    return contextlib.nullcontext()


def main(argv: list[str]) -> None:
    store_dir, writer, rounds, go = argv[0], int(argv[1]), int(argv[2]), Path(argv[3])
    lock: LockFactory = no_lock
    if len(argv) > 4:
        from memagent.graph.jobs import JobQueue

        lock = JobQueue(argv[4]).lock
    index = {"dims": DIMS, "embed": hash_embeddings(DIMS), "fields": ["content"]}
    actions: list[str] = []
    races = _Races()
    log = logging.getLogger("memagent.memory.write_path")
    log.addHandler(races)
    log.setLevel(logging.DEBUG)
    with QdrantStore.from_location(store_dir, index=index, shared=True) as store:  # type: ignore[arg-type]
        print("READY", flush=True)
        deadline = time.monotonic() + 60
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        for n in range(rounds):
            for cand in candidates(writer, n):
                res = write_memory(store, "u1", "c1", cand, lock=lock)
                actions.append(res.action)
    print(json.dumps({"writer": writer, "actions": actions, "races": races.count}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
