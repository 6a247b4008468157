"""Long messages: what a message at the size limit (32,000 characters) costs per turn.

For each kind of text (English statements, Chinese without spaces, emoji), prints the
characters, the tokens counted, the counting time, the time of one whole turn (real
SQLite checkpointer and embedded store, hash embeddings, a scripted model that answers
at once), the prompt tokens sent against the budget, and the time the worker takes to
extract the turn. ``--exact`` also times the tokenizer on the whole text in one piece,
the way it was counted before long runs were cut (minutes for the Chinese text).

    OMP_NUM_THREADS=1 python bench/long_message_bench.py [--exact]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from graph_fakes import scripted  # noqa: E402

from memagent.graph.agent import MAX_MESSAGE_CHARS, aopen_agent, arun_turn  # noqa: E402
from memagent.graph.settings import Settings  # noqa: E402
from memagent.graph.worker import Worker  # noqa: E402
from memagent.llm.tokens import Budget, count_tokens, encoding  # noqa: E402


def texts() -> dict[str, str]:
    rng = random.Random(7)
    statements = " ".join(
        f"Dana wants a discount on seat {n}. Our budget is ${n}k. We must use vendor{n}."
        for n in range(2000)
    )
    chinese = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(MAX_MESSAGE_CHARS))
    return {
        "english statements": statements[:MAX_MESSAGE_CHARS],
        "chinese, no spaces": chinese,
        "emoji": ("🚀🎉📈" * MAX_MESSAGE_CHARS)[:MAX_MESSAGE_CHARS],
    }


async def one_turn(text: str) -> tuple[float, int, float, str]:
    config = Settings(home=tempfile.mkdtemp(), embedder="hash", worker="external")
    model = scripted("ok")
    async with aopen_agent(config, chat_model_factory=lambda *a, **k: model) as agent:
        start = time.perf_counter()
        result = await arun_turn(agent, text, user_id="u", customer_id="acme", session="s")
        turn_s = time.perf_counter() - start
        assert agent.queue is not None
        worker = Worker.for_settings(config, queue=agent.queue, store=agent.store)
        start = time.perf_counter()
        report = await asyncio.to_thread(worker.drain)
        drain_s = time.perf_counter() - start
    return turn_s, result.prompt_tokens, drain_s, str(report.to_dict()["actions"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exact", action="store_true", help="also time the one-piece count")
    args = parser.parse_args()
    budget = Budget.from_window(8192, 512)
    print(f"prompt budget {budget.total} tokens (8192-token window, 512 for the reply)")
    for name, text in texts().items():
        start = time.perf_counter()
        tokens = count_tokens(text)
        count_s = time.perf_counter() - start
        line = f"{name:20} {len(text):6} chars {tokens:6} tokens, counted in {count_s:.2f} s"
        if args.exact:
            start = time.perf_counter()
            exact = len(encoding().encode_ordinary(text))
            line += f" (one piece: {exact} tokens in {time.perf_counter() - start:.1f} s)"
        print(line, flush=True)
        turn_s, sent, drain_s, writes = asyncio.run(one_turn(text))
        print(
            f"{'':20} turn {turn_s:.2f} s, prompt {sent} tokens; extraction {drain_s:.2f} s, "
            f"writes {writes}",
            flush=True,
        )


if __name__ == "__main__":
    main()
