"""Latency benchmark: a chat session with memory on and the bundled local model.

In one run, on this machine:

1. A ``--turns``-turn session (default 20) through the real agent (SQLite checkpointer,
   embedded store with seeded memories, rules extraction worker, the bundled model on
   the local llama.cpp server), once with ``MEMAGENT_PREFIX_REUSE`` on (background model
   calls on their own server) and once off (one server for every call). Per turn: prompt tokens sent and evaluated by the chat
   server (read from its log: llama-cpp-python prints the reused prefix and the
   evaluated prompt tokens of every request), time to first token, reply time (to the
   last token), and memory overhead (query rewrite + recall + prompt assembly + extraction
   enqueue, from the per-node trace log).
2. ``memagent ask`` wall time, cold (``MEMAGENT_SERVICE=off``: the process starts the
   model server and opens everything) versus warm (the per-home service running).

Replies are capped at ``--reply-tokens`` (60, the target's reply length). Targets
(issue 16), checked from turn 3 on: TTFT p50 <= 1.5 s, reply p50 <= 4 s, evaluated <= 30%
of sent, warm ask p50 <= 5 s, overhead p95 <= 60 ms.

The full measurement, in one command (about 10-15 minutes on an idle machine; the
defaults are the issue's: 20 turns with reuse on and then off, 3 cold and 3 warm asks):

    .venv/bin/python bench/latency_bench.py

Quicker iterations: ``--turns 8 --modes on --skip-ask``; a briefing that changes from
question to question: ``--more-memories 24``. The load average is printed at the start
and the end: times on a loaded machine are inflated, token counts are not.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

USER, CUSTOMER = "bench-user", "acme"
OVERHEAD_NODES = ("query_rewrite", "recall", "prompt_assembly", "async_extract")
PROMPT_TPS, GEN_TPS = 100.0, 20.0
"""The bundled model's speeds on an idle 2-core machine (issue 16), for the projection
printed beside the measured times (a shared machine's load inflates those)."""

MEMORIES = [
    "Acme's budget for the CRM rollout is $120,000 for this fiscal year.",
    "Dana Reyes is the VP of Sales at Acme and signs the contract.",
    "Acme wants the pilot live for 40 sales reps before the end of March.",
    "Acme uses Salesforce today and its renewal is due in June.",
    "We agreed to send Acme a security questionnaire by next Friday.",
    "Acme's IT lead Omar worries about single sign-on with Okta.",
    "Acme asked for a 10% discount on a two-year commitment.",
    "The demo for Acme's sales managers is scheduled for Wednesday.",
]

MORE_MEMORIES = [
    "Acme's finance team closes its books on the 25th of each month.",
    "Priya from Acme procurement needs three vendor quotes before any purchase order.",
    "Acme opened a new office in Lisbon with 12 account executives.",
    "Acme's legal team wants our data processing agreement redlined by April.",
    "Acme prefers invoices in euros for its European entities.",
    "Acme's CEO mentioned an IPO plan for next year at the kickoff.",
    "Acme complained that their last vendor had slow support response times.",
    "Acme's marketing department runs HubSpot for email campaigns.",
    "Acme's sales reps mostly work from iPads in the field.",
    "Acme asked whether we host data in the EU region.",
    "Acme's CFO Martin approves any spend above $50,000.",
    "Acme's rollout should start with the inside sales team in Chicago.",
    "Acme wants weekly usage reports sent to Dana every Monday.",
    "Acme had an outage in November that delayed their previous CRM project.",
    "Acme's support contract must include a 4-hour response SLA.",
    "Acme's training budget is separate from the software budget.",
    "Acme wants to integrate the CRM with their NetSuite ERP.",
    "Acme's competitor evaluation also includes HubSpot Sales Hub.",
    "Acme's headcount plan adds 20 sales reps in the second half.",
    "Acme asked for references from two manufacturing customers.",
    "Acme's board meets in the first week of every quarter.",
    "Acme requested a sandbox environment for their admins.",
    "Acme's sales operations lead is Kim Tanaka.",
    "Acme's fiscal year starts in February.",
]

QUESTIONS = [
    "Remind me where we stand with Acme.",
    "Who signs the contract on their side?",
    "What did Omar worry about?",
    "How big is their budget for the rollout?",
    "They now say 45 reps instead of 40. Does that change the plan?",
    "Draft two sentences I can say to open the demo.",
    "What should I prepare before Wednesday?",
    "Can we offer the discount they asked for?",
    "When is their current Salesforce renewal?",
    "What are the main risks in this deal?",
    "Summarise the pilot scope in one line.",
    "What is a good next step after the demo?",
    "How do I answer the single sign-on concern?",
    "What did we promise to send them?",
    "Give me three questions to ask Dana.",
    "Is the March deadline realistic?",
    "What would a two-year deal be worth?",
    "Who else should join the demo from our side?",
    "Write a one-line follow-up after the call.",
    "What should I log in the CRM after today?",
]


# --- the chat server's own account of each request -----------------------------------------

PREFIX = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens")
PROMPT_EVAL = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")
EXACT = "full prompt already cached"


@dataclass
class Request:
    sent: int
    evaluated: int


def parse_requests(log: str) -> list[Request]:
    """One entry per request the server answered in ``log``: prompt tokens sent (reused
    prefix + evaluated) and evaluated. A request without a prefix-match line was evaluated
    in full; the perf line gives its size."""
    out: list[Request] = []
    reused: int | None = None
    remaining = 0
    for line in log.splitlines():
        if m := PREFIX.search(line):
            reused, remaining = int(m.group(1)), int(m.group(2))
        elif EXACT in line:
            reused, remaining = -1, 0
        elif m := PROMPT_EVAL.search(line):
            evaluated = int(m.group(1))
            if reused is None:
                out.append(Request(sent=evaluated, evaluated=evaluated))
            elif reused < 0:
                out.append(Request(sent=evaluated, evaluated=0))
            else:
                out.append(Request(sent=reused + remaining, evaluated=remaining))
            reused = None
    return out


class LogTail:
    """New text of a growing log file since the last call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0

    def read(self) -> str:
        if not self.path.exists():
            return ""
        with self.path.open("rb") as f:
            f.seek(self.offset)
            data = f.read()
        self.offset += len(data)
        return data.decode(errors="replace")


class NodeTimes(logging.Handler):
    """Collects ``node=<name> ms=<ms>`` from the per-node trace log."""

    LINE = re.compile(r"node=(\w+) ms=([\d.]+)")

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.ms: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if m := self.LINE.search(record.getMessage()):
            self.ms[m.group(1)] = self.ms.get(m.group(1), 0.0) + float(m.group(2))


# --- one session --------------------------------------------------------------------------


@dataclass
class Turn:
    n: int
    sent: int
    evaluated: int
    ttft: float
    reply: float
    overhead_ms: float
    tokens: int
    all_evaluated: int = 0
    """Every request of the turn on the chat server (the reply, and routing when shared)."""
    background: int = 0
    """Prompt tokens the background server evaluated during the turn (routing)."""


async def seed(agent: Any, settings: Any, extra: int = 0) -> None:
    from memagent.memory.extractors import candidate_from_text
    from memagent.memory.write_path import WriteConfig, write_memory

    config = WriteConfig.for_settings(settings)
    lock = agent.queue.lock if agent.queue is not None else None
    for text in [*MEMORIES, *MORE_MEMORIES[:extra]]:
        await asyncio.to_thread(
            write_memory, agent.store, USER, CUSTOMER, candidate_from_text(text),
            origin="manual", lock=lock, config=config,
        )  # fmt: skip


async def session(settings: Any, turns: int, extra: int = 0) -> list[Turn]:
    from memagent.graph.agent import aopen_agent, arun_turn
    from memagent.llm.server import ensure_local_server, log_file, state_dir

    await asyncio.to_thread(ensure_local_server, settings)  # model load is not a turn
    times = NodeTimes()
    trace = logging.getLogger("memagent.trace")
    trace.addHandler(times)
    trace.setLevel(logging.INFO)
    out: list[Turn] = []
    try:
        async with aopen_agent(settings) as agent:
            await seed(agent, settings, extra)
            tail = LogTail(log_file(state_dir(settings)))
            bg_tail = LogTail(log_file(state_dir(settings), "background"))
            for n in range(turns):
                times.ms.clear()
                first: list[float] = []
                last: list[float] = []
                count = [0]

                def on_token(_: str, first: list[float] = first, last: list[float] = last,
                             count: list[int] = count) -> None:  # fmt: skip
                    now = time.perf_counter()
                    if not first:
                        first.append(now)
                    last[:] = [now]
                    count[0] += 1

                t0 = time.perf_counter()
                try:
                    await arun_turn(
                        agent, QUESTIONS[n % len(QUESTIONS)], user_id=USER,
                        customer_id=CUSTOMER, session="latency-bench", on_token=on_token,
                    )  # fmt: skip
                except Exception as exc:  # noqa: BLE001 - report the turns measured so far
                    print(f"  turn {n + 1:2d}: failed after {time.perf_counter() - t0:.0f}s "
                          f"({type(exc).__name__}); the session stops here", flush=True)  # fmt: skip
                    break
                end = time.perf_counter()
                await asyncio.sleep(0.2)  # the server's log lines of this turn
                reqs = parse_requests(tail.read())
                bg_reqs = parse_requests(bg_tail.read())
                reply_req = reqs[-1] if reqs else Request(0, 0)
                out.append(
                    Turn(
                        n=n + 1,
                        sent=reply_req.sent,
                        evaluated=reply_req.evaluated,
                        ttft=(first[0] if first else end) - t0,
                        reply=(last[0] if last else end) - t0,
                        overhead_ms=sum(times.ms.get(k, 0.0) for k in OVERHEAD_NODES),
                        tokens=count[0],
                        all_evaluated=sum(r.evaluated for r in reqs),
                        background=sum(r.evaluated for r in bg_reqs),
                    )
                )
                t = out[-1]
                print(
                    f"  turn {t.n:2d}: sent {t.sent:5d} eval {t.evaluated:5d} "
                    f"(all reqs {t.all_evaluated:5d}, background {t.background:4d}) ttft {t.ttft:5.2f}s reply {t.reply:5.2f}s "
                    f"overhead {t.overhead_ms:6.1f}ms chunks {t.tokens}",
                    flush=True,
                )
    finally:
        trace.removeHandler(times)
        from memagent.llm.server import close_local_servers

        close_local_servers()
    return out


# --- ask, cold and warm -------------------------------------------------------------------


def memagent_cmd(*args: str) -> list[str]:
    exe = Path(sys.executable).with_name("memagent")
    return [str(exe), *args] if exe.exists() else [sys.executable, "-m", "memagent", *args]


def timed_ask(env: dict[str, str], question: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        memagent_cmd("ask", question, "--user", USER, "--customer", CUSTOMER),
        env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    return time.perf_counter() - t0


def asks(home: Path, n: int, reply_tokens: int) -> tuple[list[float], list[float]]:
    env = {**os.environ, "MEMAGENT_HOME": str(home), "MEMAGENT_REPLY_TOKENS": str(reply_tokens)}
    cold = [timed_ask({**env, "MEMAGENT_SERVICE": "off"}, QUESTIONS[i]) for i in range(n)]
    warm_env = {**env, "MEMAGENT_SERVICE": "auto"}
    subprocess.run(memagent_cmd("service", "start"), env=warm_env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    try:
        timed_ask(warm_env, QUESTIONS[0])  # the service loads the model on its first turn
        warm = [timed_ask(warm_env, QUESTIONS[i + 1]) for i in range(n)]
    finally:
        subprocess.run(memagent_cmd("service", "stop"), env=warm_env, check=False,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    return cold, warm


# --- report -------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def side_by_side(on: list[Turn], off: list[Turn]) -> None:
    print("\nturn | sent on/off | evaluated on/off | TTFT s on/off | reply s on/off | "
          "overhead ms on/off")  # fmt: skip
    for i in range(max(len(on), len(off))):
        a = on[i] if i < len(on) else None
        b = off[i] if i < len(off) else None

        def f(t: Turn | None, attr: str, fmt: str) -> str:
            return format(getattr(t, attr), fmt) if t else "-"

        print(f"{i + 1:4d} | {f(a, 'sent', '5d')} / {f(b, 'sent', '5d')} | "
              f"{f(a, 'evaluated', '5d')} / {f(b, 'evaluated', '5d')} | "
              f"{f(a, 'ttft', '5.2f')} / {f(b, 'ttft', '5.2f')} | "
              f"{f(a, 'reply', '5.2f')} / {f(b, 'reply', '5.2f')} | "
              f"{f(a, 'overhead_ms', '6.1f')} / {f(b, 'overhead_ms', '6.1f')}")  # fmt: skip


def projected(turns: list[Turn], prompt_tps: float, gen_tps: float) -> str:
    """TTFT and reply time at fixed model speeds, from the measured token counts and
    overhead: what the same session costs on an unloaded machine of those speeds."""
    late = [t for t in turns if t.n >= 3]
    ttft = [(t.all_evaluated + t.background) / prompt_tps + t.overhead_ms / 1000 for t in late]
    reply = [x + t.tokens / gen_tps for x, t in zip(ttft, late, strict=True)]
    if not late:
        return ""
    return (
        f"projected at {prompt_tps:.0f} prompt tok/s and {gen_tps:.0f} output tok/s: "
        f"TTFT p50 {statistics.median(ttft):.2f}s p95 {pct(ttft, 0.95):.2f}s · "
        f"reply p50 {statistics.median(reply):.2f}s p95 {pct(reply, 0.95):.2f}s"
    )


def summary(name: str, turns: list[Turn]) -> None:
    late = [t for t in turns if t.n >= 3]
    if not late:
        return
    ttft = [t.ttft for t in late]
    reply = [t.reply for t in late]
    ratio = sum(t.evaluated for t in late) / max(1, sum(t.sent for t in late))
    ratios = [t.evaluated / t.sent for t in late if t.sent]
    over = [t.overhead_ms for t in turns]
    print(
        f"{name:>4} (turns 3..{turns[-1].n}): TTFT p50 {statistics.median(ttft):.2f}s "
        f"p95 {pct(ttft, 0.95):.2f}s [target <= 1.5] · reply p50 {statistics.median(reply):.2f}s "
        f"p95 {pct(reply, 0.95):.2f}s [<= 4] · evaluated/sent total {ratio:.0%} "
        f"median {statistics.median(ratios) if ratios else float('nan'):.0%} [<= 30%] · "
        f"overhead p50 {statistics.median(over):.1f}ms p95 {pct(over, 0.95):.1f}ms [<= 60] · "
        f"mean chunks {statistics.mean(t.tokens for t in turns):.0f}"
    )
    print(f"      {projected(turns, PROMPT_TPS, GEN_TPS)}")


async def sessions(modes: list[str], a: argparse.Namespace, homes: list[Path]) -> dict[str, Any]:
    from memagent.core.settings import Settings

    results: dict[str, list[Turn]] = {}
    for mode in modes:
        home = Path(tempfile.mkdtemp(prefix=f"memagent-latency-{mode}-"))
        homes.append(home)
        settings = Settings(home=home, prefix_reuse=mode == "on", reply_tokens=a.reply_tokens)
        print(f"\nprefix reuse {mode} (home {home}, {settings.llm_threads} server threads)",
              flush=True)  # fmt: skip
        results[mode] = await session(settings, a.turns, a.more_memories)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=20, help="turns of the chat session")
    parser.add_argument("--asks", type=int, default=3, help="cold and warm asks each")
    parser.add_argument("--reply-tokens", type=int, default=60, help="reply length cap")
    parser.add_argument("--modes", default="on,off", help="prefix reuse modes to run")
    parser.add_argument("--skip-ask", action="store_true", help="no ask timings")
    parser.add_argument(
        "--more-memories",
        type=int,
        default=0,
        help=f"seed up to {len(MORE_MEMORIES)} more memories, so the briefing's top 8 changes "
        "from question to question (with the 8 base memories it holds all of them every turn)",
    )
    parser.add_argument("--skip-session", action="store_true", help="only the ask timings")
    parser.add_argument("--keep", action="store_true", help="keep the temporary homes")
    a = parser.parse_args()

    print(f"latency bench: {a.turns} turns, replies <= {a.reply_tokens} tokens, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    homes: list[Path] = []
    modes = [] if a.skip_session else [m for m in a.modes.split(",") if m in ("on", "off")]
    results = asyncio.run(sessions(modes, a, homes))  # one event loop: clients are cached
    if results:
        side_by_side(results.get("on", []), results.get("off", []))
    print()
    for mode, turns in results.items():
        summary(mode, turns)
    print(f"load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not a.skip_ask:
        home = Path(tempfile.mkdtemp(prefix="memagent-latency-ask-"))
        homes.append(home)
        cold, warm = asks(home, a.asks, a.reply_tokens)
        print(f"\nask wall: cold {', '.join(f'{x:.1f}' for x in cold)} s (p50 "
              f"{statistics.median(cold):.1f}) · warm {', '.join(f'{x:.1f}' for x in warm)} s "
              f"(p50 {statistics.median(warm):.1f}) [warm target <= 5]")  # fmt: skip
    if not a.keep:
        for home in homes:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
