"""Sales benchmark (issue 14 item 5): multi-session sales stories through the agent.

The stories and the scoring live in ``memagent.evals.eval_stories`` (also
``memagent eval sessions --stories``). Each story is told to the real agent over
several sessions (notes, a budget correction, a new prospect), the worker extracts,
then every question is asked in a fresh session. Printed per story and per language:
planted facts recalled, corrections recalled at their current value (the old value
never presented as current), leaks between accounts, and with ``--llm`` whether the
real local model's reply states the current value. Uses the configured settings
(``MEMAGENT_*``: embedder, extractor) in a temporary home per story.

    .venv/bin/python bench/sales_bench.py [--llm] [--lang en|zh|both] [--story ID ...]
"""

from __future__ import annotations

import argparse
import sys
import time

from memagent.evals.eval_stories import pick, report_lines, run_stories
from memagent.graph.settings import get_settings


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", action="store_true", help="answer with the real local model")
    parser.add_argument("--lang", default="both", choices=["en", "zh", "both"])
    parser.add_argument("--story", action="append", default=[], help="only this story")
    args = parser.parse_args(argv)
    try:
        stories = pick(args.story, args.lang)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = get_settings()
    start = time.perf_counter()
    results = run_stories(settings, stories=stories, real_llm=args.llm)
    print("\n".join(report_lines(results)))
    print(f"({len(results)} stories, embedder {settings.embedder}, extractor {settings.extractor}, "
          f"{time.perf_counter() - start:.0f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
