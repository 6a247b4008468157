"""Scale-out load and fault bench: SQLite vs PostgreSQL, side by side, in one run.

Per backend: two agent processes (``bench/scale_agent.py``) and two ``memagent worker``
processes share one sessions/jobs/CRM backend and one store (the embedded Qdrant store
opened shared, hash embeddings). N sessions of T turns run concurrently, half on each
agent. Faults: agent 0 is killed with SIGKILL in the middle of its turns and a new agent
process takes its sessions over; worker 0 is killed with SIGKILL while jobs are running
(its leases expire after ``MEMAGENT_EXTRACT_LEASE_S``) and a new worker starts.

The chat model is an echo inside the agent processes and extraction uses the rules, so
neither LLM is the bottleneck: the figures are those of the checkpointer, the outbox,
the locks and the store.

Checked afterwards (``check`` returns the problems; the bench prints them and exits 1):
nothing lost (every session has its T turns, each answered), nothing twice (no message
twice in a session; each budget version written once, one active), no turn in another
session, every job done or dead-lettered with a reason (none pending or running).
Printed: turns/s, jobs/s and p95 queue delay (submit to done) per backend.

    python bench/scale_bench.py [--sessions 200] [--turns 5] [--backends sqlite,postgres]

PostgreSQL: a throwaway cluster (tests/support/pg_cluster.py), or ``MEMAGENT_TEST_DATABASE_URL``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "support"))
sys.path.insert(0, str(HERE))

from offline_env import offline_env  # noqa: E402
from scale_agent import message, user_of  # noqa: E402


@dataclass
class Report:
    backend: str
    sessions: int
    turns: int
    turn_s: float = 0.0
    turns_done: int = 0
    jobs: dict[str, int] = field(default_factory=dict)
    jobs_s: float = 0.0
    p95_delay_s: float = 0.0
    resumed: int = 0
    problems: list[str] = field(default_factory=list)
    dead_reasons: list[str] = field(default_factory=list)

    @property
    def turns_per_s(self) -> float:
        return self.turns_done / self.turn_s if self.turn_s else 0.0


def _env(base: Path, backend: str, url: str | None, name: str) -> dict[str, str]:
    home = base / "home" if backend == "sqlite" else base / f"home-{name}"
    extra = {"MEMAGENT_DATABASE_URL": url} if url else {}
    return offline_env(home, MEMAGENT_STORE_LOCATION=str(base / "store"),
                       MEMAGENT_STORE_SHARED="true", MEMAGENT_EXTRACT_LEASE_S="5", **extra)  # fmt: skip


def _settings(env: dict[str, str]) -> Any:
    from memagent.core.settings import Settings

    keys = {k[len("MEMAGENT_") :].lower(): v for k, v in env.items() if k.startswith("MEMAGENT_")}
    return Settings(**keys)


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(json.JSONDecodeError):  # a killed agent's last line
            out.append(json.loads(line))
    return out


def run_backend(
    backend: str, sessions: int, turns: int, url: str | None, *, concurrency: int = 16,
    timeout_s: float = 1800.0,
) -> Report:  # fmt: skip
    """Run the scenario on one backend and check the invariants."""
    rep = Report(backend, sessions, turns)
    base = Path(tempfile.mkdtemp(prefix=f"scale-{backend}-"))
    names = [f"s{i:03d}" for i in range(sessions)]
    halves = [names[0::2], names[1::2]]
    memagent = str(Path(sys.executable).parent / "memagent")
    procs: list[subprocess.Popen[bytes]] = []

    def spawn(args: list[str], name: str) -> subprocess.Popen[bytes]:
        logf = open(base / f"{name}.err", "ab")  # noqa: SIM115 - closed with the process
        # SIGINT back to its default: a bench started in the background of a shell
        # inherits it ignored, and the workers would not stop on it at the end
        p = subprocess.Popen(args, env=_env(base, backend, url, name), stderr=logf,
                             stdout=subprocess.DEVNULL,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
        procs.append(p)
        return p

    def agent(i: int, part: list[str], tag: str) -> subprocess.Popen[bytes]:
        log = base / f"agent{i}.jsonl"
        return spawn([sys.executable, str(HERE / "scale_agent.py"), str(log), ",".join(part),
                      str(turns), str(concurrency)], f"agent{i}{tag}")  # fmt: skip

    settings = _settings(_env(base, backend, url, "check"))
    from memagent.graph.jobs import open_queue

    # create the schema/files once before the crowd starts (both outboxes are idempotent
    # under concurrent setup; this only keeps the first seconds out of the figures)
    open_queue(settings).close()
    deadline = time.monotonic() + timeout_s
    try:
        workers = [spawn([memagent, "worker"], f"worker{i}") for i in range(2)]
        start = time.time()
        agents = [agent(i, part, "") for i, part in enumerate(halves)]
        # fault 1: agent 0 killed mid-turn once a third of its turns are logged
        while len(_lines(base / "agent0.jsonl")) < len(halves[0]) * turns // 3:
            if agents[0].poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        agents[0].send_signal(signal.SIGKILL)
        agents[0].wait()
        agents[0] = agent(0, halves[0], "-resumed")
        # fault 2: worker 0 killed while jobs run
        queue = open_queue(settings)
        while queue.counts()["running"] == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait()
        workers.append(spawn([memagent, "worker"], "worker0-restarted"))
        for a in agents:
            a.wait(timeout=max(1.0, deadline - time.monotonic()))
        rep.turn_s = time.time() - start
        while queue.outstanding() and time.monotonic() < deadline:
            time.sleep(0.1)
        for w in workers[1:]:
            w.send_signal(signal.SIGINT)
        for w in workers[1:]:
            w.wait(timeout=30)
        _measure(rep, queue, base, names)
        queue.close()
        asyncio.run(_check_sessions(rep, settings, names, turns))
        _check_store(rep, settings, names, turns)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(base, ignore_errors=True)
    return rep


def _measure(rep: Report, queue: Any, base: Path, names: list[str]) -> None:
    logged = _lines(base / "agent0.jsonl") + _lines(base / "agent1.jsonl")
    rep.resumed = sum(e["taken"] == "resumed" for e in logged)
    rep.jobs = queue.counts()
    jobs = queue.jobs(limit=1_000_000)
    done = [j for j in jobs if j.status == "done"]
    if done:
        raw = [j for j in jobs if j.status in ("done", "dead")]
        delays = sorted(_finished(queue, j) - j.created_at for j in raw)
        rep.p95_delay_s = delays[min(len(delays) - 1, int(0.95 * len(delays)))]
        span = max(_finished(queue, j) for j in raw) - min(j.created_at for j in jobs)
        rep.jobs_s = len(raw) / span if span > 0 else 0.0
    for j in jobs:
        if j.status in ("pending", "running"):
            rep.problems.append(f"job {j.id} still {j.status}")
        if j.status == "dead" and not j.last_error:
            rep.problems.append(f"dead job {j.id} has no reason")
        elif j.status == "dead":
            rep.dead_reasons.append(str(j.last_error)[:200])


def _finished(queue: Any, job: Any) -> float:
    """When a job finished: its row's last update (``Job`` does not carry it)."""
    jid = job.id
    if hasattr(queue, "pool"):
        with queue.pool.connection() as conn:
            row = conn.execute("SELECT updated_at FROM memagent_jobs WHERE id=%s", (jid,))
            return float(row.fetchone()["updated_at"])
    row = queue._conn().execute("SELECT updated_at FROM jobs WHERE id=?", (jid,)).fetchone()
    return float(row[0])


async def _check_sessions(rep: Report, settings: Any, names: list[str], turns: int) -> None:
    from memagent.graph.agent import list_sessions, session_state

    listed = {r["session"]: r for r in await list_sessions(settings)}
    if set(listed) != set(names):
        rep.problems.append(f"sessions listed: {len(listed)} of {len(names)}")
    for s in names:
        state = await session_state(s, settings) or {}
        pairs = [(m.type, str(m.text)) for m in state.get("messages", [])]
        humans = [t for k, t in pairs if k == "human"]
        # counted from the checkpoints: a turn answered just before its agent was killed
        # is in the session but never reached the agent's log
        rep.turns_done += sum(
            (k, k2) == ("human", "ai") for (k, _), (k2, _) in zip(pairs, pairs[1:], strict=False)
        )
        want = [message(s, i) for i in range(1, turns + 1)]
        if humans != want:
            rep.problems.append(f"{s}: user turns {len(humans)} (want {turns}) or out of order")
        if any(not t.startswith(f"[{s}]") and not t.startswith(f"re: [{s}]") for _, t in pairs):
            rep.problems.append(f"{s}: holds a turn of another session")
        for (k, t), (k2, t2) in zip(pairs[::2], pairs[1::2], strict=False):
            if (k, k2) != ("human", "ai") or t2 != f"re: {t}":
                rep.problems.append(f"{s}: a message without its own reply")
                break
        if listed.get(s, {}).get("user_id") not in (None, user_of(s)):
            rep.problems.append(f"{s}: scope {listed[s]['user_id']}")


def _check_store(rep: Report, settings: Any, names: list[str], turns: int) -> None:
    from memagent.memory.namespaces import namespace
    from memagent.stores import open_store

    with open_store(settings.resolved_store_location(), settings=settings) as store:
        for s in names:
            items = [i.value for i in store.search(namespace(user_of(s), "acme", "facts"),
                                                   limit=200)]  # fmt: skip
            budget = [v for v in items if v.get("attribute") == "budget"]
            versions = [v.get("version") for v in budget]
            active = [v for v in budget if v.get("status") == "active"]
            if len(versions) != len(set(versions)):
                rep.problems.append(f"{s}: a budget version written twice {sorted(versions)}")
            if len(active) != 1:
                rep.problems.append(f"{s}: {len(active)} active budget records")
            elif str(turns) not in str(active[0].get("value", "")):
                rep.problems.append(
                    f"{s}: active budget {active[0].get('value')!r} is not the last"
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--concurrency", type=int, default=16, help="turns in flight per agent")
    ap.add_argument("--backends", default="sqlite,postgres")
    args = ap.parse_args()
    reports = []
    with ExitStack() as stack:
        for backend in args.backends.split(","):
            url = None
            if backend == "postgres":
                from pg_cluster import create_database, throwaway_cluster

                url = create_database(stack.enter_context(throwaway_cluster()), "scale")
            reports.append(run_backend(backend, args.sessions, args.turns, url,
                                       concurrency=args.concurrency))  # fmt: skip
    print(f"\n{args.sessions} sessions x {args.turns} turns, 2 agents + 2 workers, "
          "agent 0 and worker 0 killed with SIGKILL mid-run (echo chat model, rules extractor)")  # fmt: skip
    cols = ["backend", "turns", "turns/s", "jobs done/dead", "jobs/s", "p95 queue delay s",
            "resumed turns", "problems"]  # fmt: skip
    print(" | ".join(cols))
    for r in reports:
        print(" | ".join([
            r.backend, str(r.turns_done), f"{r.turns_per_s:.1f}",
            f"{r.jobs.get('done', 0)}/{r.jobs.get('dead', 0)}", f"{r.jobs_s:.1f}",
            f"{r.p95_delay_s:.2f}", str(r.resumed), str(len(r.problems)),
        ]))  # fmt: skip
    for r in reports:
        for p in r.problems[:20]:
            print(f"  {r.backend}: {p}")
        for reason in sorted(set(r.dead_reasons))[:5]:
            print(f"  {r.backend} dead-lettered: {reason}")
    sys.exit(1 if any(r.problems for r in reports) else 0)


if __name__ == "__main__":
    main()
