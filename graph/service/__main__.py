"""``python -m memagent.graph.service``: the detached service a client starts.

Its settings come from its environment (the client puts its own there); its output
goes to the home's ``service.log`` in the runtime dir.
"""

from __future__ import annotations

import logging
import sys

from memagent.core.log_redaction import memagent_logger
from memagent.graph.service.server import serve
from memagent.graph.settings import Settings


def main() -> int:
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    memagent_logger("memagent.service").setLevel(logging.INFO)
    try:
        settings = Settings()
    except Exception as exc:
        print(f"memagent service: invalid settings: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    from memagent.core.redact import REDACTION_KEY_FILE
    from memagent.graph.tracing import install_log_redaction

    install_log_redaction(settings.home / REDACTION_KEY_FILE)
    return serve(settings)


if __name__ == "__main__":
    sys.exit(main())
