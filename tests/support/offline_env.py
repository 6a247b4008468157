"""The environment of a child process that runs the agent offline and cheaply: hash
embeddings, the rules extractor, rewriter and summariser, no per-home service, an external
worker, one OpenMP thread, and a model URL that is never called (the child brings its own
echo model). Shared by the crash tests and ``bench/scale_bench.py`` (which puts this folder
on its path)."""

from __future__ import annotations

import os
from pathlib import Path

OFFLINE = {
    "MEMAGENT_EMBEDDER": "hash",
    "MEMAGENT_SERVICE": "off",
    "MEMAGENT_WORKER": "external",
    "MEMAGENT_EXTRACTOR": "rules",
    "MEMAGENT_REWRITER": "rules",
    "MEMAGENT_SUMMARIZER": "rules",
    "MEMAGENT_BASE_URL": "http://127.0.0.1:9/v1",  # never called: echo model, rules
    "OMP_NUM_THREADS": "1",
}


def offline_env(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment without its ``MEMAGENT_*`` settings, with ``home`` as
    ``MEMAGENT_HOME``, the ``OFFLINE`` settings and ``extra`` (which win)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMAGENT_")}
    return {**env, "MEMAGENT_HOME": str(home), **OFFLINE, **extra}
