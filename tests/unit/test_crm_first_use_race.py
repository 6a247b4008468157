"""Two processes using a fresh CRM file at once both seed it with the demo accounts.

The one that counted no customers while the other's seed was not yet committed inserted
the same rows after it and failed with ``UNIQUE constraint failed: customers.id``. Here
the other process is a connection seeding the fresh file and committing shortly after.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import astuple
from pathlib import Path

from memagent.memory.crm import DEMO_CUSTOMERS, SCHEMA, Crm


def test_a_crm_seeded_by_another_process_meanwhile_is_used_as_is(tmp_path: Path) -> None:
    path = tmp_path / "crm.sqlite"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.executescript(SCHEMA)
    other.execute("BEGIN IMMEDIATE")  # mid-seed: rows written, not yet committed
    other.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?)", DEMO_CUSTOMERS)
    timer = threading.Timer(0.3, other.execute, ("COMMIT",))
    timer.start()
    try:
        customers = Crm(path).customers()
    finally:
        timer.join()
        other.close()
    assert sorted(astuple(c) for c in customers) == sorted(DEMO_CUSTOMERS)
