"""First-turn benchmark: a newcomer's first questions, through the CLI and Studio.

What a new user waits for before the model is warm, measured the way they use the
product, on a fresh ``MEMAGENT_HOME`` with the bundled model (default settings):

1. ``memagent ask`` (the per-home service): for each of three customers of two
   salespeople, a note (acknowledged by rules), then a question the model answers, in a
   new session. Per question: wall time, and the chat server's own account of the
   request (prompt tokens sent, reused from its cached prefix, evaluated).
2. Studio (``langgraph dev`` + the SDK), with ``MEMAGENT_LLM_PRESTART`` off and then on:
   the server comes up, Studio opens (it fetches the graph and its schemas, which is when
   ``langgraph dev`` builds the graph), the user takes ``--typing`` seconds to write, then
   the first turn and a first question about a second customer. Times side by side, with
   the ratio.

The background server evaluates the tool router's fixed prompt when it starts, so a first
routed question's router call reuses it ("router sent/reused"). The load average is printed
at the start and the end: times on a loaded machine are inflated, token counts are not.

    .venv/bin/python bench/first_turn_bench.py              # both parts, ~6-10 minutes
    .venv/bin/python bench/first_turn_bench.py --part cli
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from latency_bench import LogTail, parse_requests  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
OFFLINE = {"LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1",
           "LANGGRAPH_NO_VERSION_CHECK": "true"}  # fmt: skip
CUSTOMERS = [
    ("rep-a", "acme-logistics",
     "Met Acme Logistics. Their CTO Li Wei decides. Budget is 1.2 million CNY, decision by "
     "end of March. They use Salesforce today.",
     "What should I prepare for the next meeting with Li Wei?"),
    ("rep-a", "lanhai-robotics",
     "Lanhai's CTO Wang Lei wants SSO with Okta and we promised a demo next Tuesday.",
     "Draft two questions to ask Wang Lei at the demo."),
    ("rep-b", "huaxin",
     "华信科技的采购负责人是王芳，项目预算大概300万，必须私有化部署。",
     "下次见王芳之前我应该准备什么？"),
]  # fmt: skip


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMAGENT_")}
    keep = {k: os.environ[k] for k in ("MEMAGENT_MODEL_DIR", "MEMAGENT_GGUF_PATH")
            if k in os.environ}  # fmt: skip
    return {**env, **keep, **OFFLINE, "MEMAGENT_HOME": str(home), **extra}


def ask(env: dict[str, str], user: str, customer: str, session: str, text: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "memagent"), "ask", "-u", user, "-c", customer, "-s", session, text],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"ask failed ({done.returncode}): {done.stderr[-800:]}")
    return time.perf_counter() - t0


def cli_part(home: Path) -> None:
    env = clean_env(home)
    log, bg_log = home / "llm" / "server.log", home / "llm" / "server-background.log"
    print("CLI (memagent ask, service on): note then a model-answered question, new session;")
    print("  chat server: prompt tokens sent / reused / evaluated; router (background server)")
    print(f"  {'customer':16s} {'note s':>7s} {'question s':>10s} {'sent':>5s} "
          f"{'reused':>6s} {'evaluated':>9s} {'router sent/reused':>18s}")  # fmt: skip
    for i, (user, customer, note, question) in enumerate(CUSTOMERS):
        noted = ask(env, user, customer, f"n{i}", note)
        tail, bg_tail = LogTail(log), LogTail(bg_log)
        took = ask(env, user, customer, f"q{i}", question)
        time.sleep(0.3)
        reqs = parse_requests(tail.read())
        r = reqs[-1] if reqs else None
        sent, ev = (r.sent, r.evaluated) if r else (0, 0)
        routed = [f"{q.sent}/{q.sent - q.evaluated}" for q in parse_requests(bg_tail.read())]
        print(f"  {customer:16s} {noted:7.1f} {took:10.1f} {sent:5d} {sent - ev:6d} {ev:9d} "
              f"{' '.join(routed) or '-':>18s}", flush=True)  # fmt: skip
    subprocess.run([str(BIN / "memagent"), "service", "stop"], env=env,
                   capture_output=True, timeout=120)  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def studio_turns(url: str, typing: float) -> list[float]:
    import langgraph_sdk

    client = langgraph_sdk.get_client(url=url, timeout=900)
    times: list[float] = []
    # Opening Studio fetches the graph and its schemas (langgraph dev builds the graph
    # then, not at start-up); then the user types.
    default = (await client.assistants.search(graph_id="sales_agent"))[0]
    await client.assistants.get_graph(default["assistant_id"])
    await client.assistants.get_schemas(default["assistant_id"])
    await asyncio.sleep(typing)
    for user, customer, _, question in (("rep-a", "acme", "", "Hi! What can you do?"),
                                        CUSTOMERS[1]):  # fmt: skip
        a = await client.assistants.create(
            graph_id="sales_agent", context={"user_id": user, "customer_id": customer}
        )
        th = (await client.threads.create())["thread_id"]
        t0 = time.perf_counter()
        run = await client.runs.create(th, a["assistant_id"],
                                       input={"messages": [{"role": "user", "content": question}]})  # fmt: skip
        await client.runs.join(th, run["run_id"])
        status = (await client.runs.get(th, run["run_id"]))["status"]
        times.append(time.perf_counter() - t0)
        if status != "success":
            raise SystemExit(f"Studio run {status}")
    return times


def studio_run(prestart: bool, typing: float) -> list[float]:
    home = Path(tempfile.mkdtemp(prefix="ftb-studio-"))
    port = free_port()
    env = clean_env(home, MEMAGENT_LLM_PRESTART=str(prestart).lower())
    logf = (home / "dev.log").open("wb")
    proc = subprocess.Popen(
        [str(BIN / "langgraph"), "dev", "--port", str(port), "--host", "127.0.0.1",
         "--no-browser", "--no-reload"], cwd=ROOT, env=env, stdout=logf, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        import httpx

        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/ok", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        return asyncio.run(studio_turns(f"http://127.0.0.1:{port}", typing))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        shutil.rmtree(home, ignore_errors=True)


def studio_part(typing: float) -> None:
    print(f"Studio (langgraph dev + SDK), the user types for {typing:.0f} s after it is up")
    runs = {flag: studio_run(flag, typing) for flag in (False, True)}
    off, on = runs[False], runs[True]
    print(f"  {'turn':32s} {'prestart off s':>14s} {'on s':>6s} {'on/off':>6s}")
    for name, a, b in zip(("first turn (Hi! What can you do?)", "second customer's question"),
                          off, on, strict=True):  # fmt: skip
        print(f"  {name:32s} {a:14.1f} {b:6.1f} {b / a:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["cli", "studio", "both"], default="both")
    parser.add_argument("--typing", type=float, default=20.0,
                        help="seconds between Studio being up and the first message")  # fmt: skip
    args = parser.parse_args()
    print(f"first-turn bench: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if args.part in ("cli", "both"):
        home = Path(tempfile.mkdtemp(prefix="ftb-cli-"))
        try:
            cli_part(home)
        finally:
            shutil.rmtree(home, ignore_errors=True)
    if args.part in ("studio", "both"):
        studio_part(args.typing)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
