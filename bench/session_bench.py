"""Session memory benchmark (issue 4); the code lives in ``memagent.evals.eval_sessions``.

.venv/bin/python bench/session_bench.py [en|zh|both]
"""

from __future__ import annotations

import sys

from memagent.evals.eval_sessions import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
