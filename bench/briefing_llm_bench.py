"""Does the bundled 1.5B model use the briefing? Real CLI, real local LLM (issue 14).

Each scenario states facts about one customer in session ``s1`` (``memagent ask``), the
extraction jobs are drained, and questions are asked in a fresh session ``s2``. A check
passes when the reply states the stored facts (every needle group of the check matches;
``a|b`` means either spelling). Prints one line per check and the totals: how many
replies state the right facts, and how many of those facts were in the recall list (so a
miss can be told apart: not recalled, or recalled but not used by the model).

    .venv/bin/python bench/briefing_llm_bench.py            # all scenarios
    .venv/bin/python bench/briefing_llm_bench.py --keep     # keep the home for a look
    .venv/bin/python bench/briefing_llm_bench.py --today 2026-12-01 --today 2026-12-02

``--today`` (repeatable) runs the whole bench once per date, each in a fresh home, with
``MEMAGENT_TODAY`` set: the date the system prompt states. The model's reply must not
hinge on it, so a layout is judged over several dates, not one.

Slow (a few minutes on 2 cores): every turn runs the real model.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Check:
    question: str
    needles: tuple[str, ...]
    """Each entry must appear in the reply (case-insensitive); ``a|b`` means either."""


@dataclass(frozen=True)
class Scenario:
    customer: str
    said: tuple[str, ...]
    checks: tuple[Check, ...]
    same_session: bool = False
    """Ask in the session the facts were stated in (the Studio report), not a fresh one."""


# fmt: off
SCENARIOS = (
    Scenario("acme", ("Hi, Acme's budget is 2 million CNY and Li Wei decides.",), (
        Check("What do you know about Acme?", ("2 million|2,000,000|2000000|200万|2m", "li wei")),
        Check("What is Acme's budget?", ("2 million|2,000,000|2000000|200万|2m",)),
        Check("Who makes the decision at Acme?", ("li wei",)),
    )),
    Scenario("acme-studio", ("Hi, Acme's budget is 2 million CNY and Li Wei decides.",), (
        Check("What do you know about Acme?", ("2 million|2,000,000|2000000|200万|2m", "li wei")),
    ), same_session=True),
    Scenario("acme-logistics", (
        "Met with Acme Logistics today. Their CTO Li Wei is the decision maker. Budget is 1.2 "
        "million CNY for the fleet-tracking rollout, decision by end of March. He hates phone "
        "calls, email only.",
    ), (
        Check("How should I contact Acme's CTO?", ("email|e-mail|邮件",)),
        Check("Brief me before the call with Acme Logistics.",
              ("1.2 million|1,200,000|1200000|120万|1.2m", "li wei")),
        Check("When will Acme Logistics decide?", ("march|2027-03-31|3月",)),
    )),
    Scenario("huaxin", (
        "华信科技的采购负责人是王芳，项目预算大概300万，必须私有化部署，下个月15号之前要报价。",
    ), (
        Check("华信的预算是多少？谁负责采购？", ("300万|3000000|3,000,000|三百万|300 万", "王芳")),
        Check("介绍一下这个客户", ("王芳|300万|3000000|3,000,000|私有化",)),
        Check("华信什么时候之前要报价？", ("01-15|1月15|15号|15日|january 15",)),
    )),
    Scenario("lanhai", ("蓝海的CTO王磊是最终决策人，预算120万。他不喜欢电话，只用邮件联系。",), (
        Check("蓝海谁拍板？", ("王磊",)),
        Check("我该怎么联系蓝海的CTO？", ("邮件|email|e-mail",)),
    )),
    Scenario("dongfang", ("东方集团的预算可能是500万，还不确定。",), (
        Check("东方集团的预算是多少？", ("500万|5000000|5,000,000|五百万|500 万",)),
    )),
    Scenario("initech", ("Maybe their budget goes up to 5 million USD.",), (
        Check("What is Initech's budget?", ("5 million|5,000,000|5000000|5m",)),
    )),
)
# fmt: on


TODAY: str | None = None
"""The date the run's system prompt states (``MEMAGENT_TODAY``); None: the clock."""


def _run(home: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MEMAGENT_HOME": str(home),
        "MEMAGENT_REPLY_TOKENS": os.environ.get("MEMAGENT_REPLY_TOKENS", "96"),
        "MEMAGENT_CONTEXT_WINDOW": "4096",
        "MEMAGENT_SERVICE": "auto",
    }
    env.pop("MEMAGENT_BASE_URL", None)
    env.pop("MEMAGENT_TODAY", None)
    if TODAY:
        env["MEMAGENT_TODAY"] = TODAY
    exe = Path(sys.executable).with_name("memagent")
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def ask(home: Path, customer: str, session: str, message: str) -> dict:
    res = _run(
        home,
        "ask",
        message,
        "--user",
        "rep-1",
        "--customer",
        customer,
        "--session",
        session,
        "--json",
    )
    if res.returncode != 0:
        raise SystemExit(f"ask failed ({res.returncode}): {res.stderr.strip()[-400:]}")
    out: dict = json.loads(res.stdout)
    return out


def states(text: str, needle: str) -> bool:
    low = text.lower().replace(" ", "")
    return any(alt.lower().replace(" ", "") in low for alt in needle.split("|"))


def run(home: Path) -> tuple[int, int, int]:
    passed = recalled_ok = total = 0
    for sc in SCENARIOS:
        for message in sc.said:
            ask(home, sc.customer, f"{sc.customer}-s1", message)
    drained = _run(home, "jobs", "drain")
    if drained.returncode != 0:
        raise SystemExit(f"jobs drain failed: {drained.stderr.strip()[-400:]}")
    for sc in SCENARIOS:
        for i, check in enumerate(sc.checks):
            session = f"{sc.customer}-s1" if sc.same_session else f"{sc.customer}-s2-{i}"
            out = ask(home, sc.customer, session, check.question)
            reply = str(out.get("reply", ""))
            recalled = " ".join(str(r.get("content", "")) for r in out.get("recalled", []))
            ok = all(states(reply, n) for n in check.needles)
            in_recall = all(states(recalled, n) for n in check.needles)
            total += 1
            passed += ok
            recalled_ok += in_recall
            mark = "PASS" if ok else "FAIL"
            print(
                f"[{mark}] recall={'yes' if in_recall else 'no '} {sc.customer}: "
                f"{check.question!r} -> {' '.join(reply.split())[:160]!r}",
                flush=True,
            )
    return passed, recalled_ok, total


def main(argv: list[str]) -> int:
    global TODAY
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary home")
    parser.add_argument(
        "--today",
        action="append",
        metavar="YYYY-MM-DD",
        help="date the system prompt states (repeat to run once per date; default: the clock)",
    )
    args = parser.parse_args(argv)
    totals: list[tuple[str, int, int, int]] = []
    for day in args.today or [None]:
        TODAY = day
        label = day or "today (clock)"
        print(f"== {label}", flush=True)
        home = Path(tempfile.mkdtemp(prefix="memagent-briefing-bench-"))
        try:
            passed, recalled_ok, total = run(home)
        finally:
            _run(home, "service", "stop", timeout=300)
            if args.keep:
                print(f"home kept: {home}")
            else:
                shutil.rmtree(home, ignore_errors=True)
        totals.append((label, passed, recalled_ok, total))
    for label, passed, recalled_ok, total in totals:
        print(f"{label}: replies stating the right facts: {passed}/{total}")
        print(f"{label}: checks whose facts were all in the recall list: {recalled_ok}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
