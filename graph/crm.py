"""A small local CRM (SQLite): customers, their contacts, stages and deals, and commitments.

Seeded with demo accounts on first open so the assistant has something to work with
offline. Every query is scoped by the ids the caller passes; tools take them from the
run context, never from model output.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from memagent.stores.namespaces import namespace

SCHEMA = """
CREATE TABLE IF NOT EXISTS customers (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, contact TEXT NOT NULL, email TEXT NOT NULL,
    stage TEXT NOT NULL, deal_size INTEGER NOT NULL, currency TEXT NOT NULL, notes TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS commitments (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, customer_id TEXT NOT NULL,
    description TEXT NOT NULL, due_date TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open',
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS commitments_scope ON commitments (user_id, customer_id, status);
"""

DEMO_CUSTOMERS = [
    (
        "acme",
        "Acme Corp",
        "Dana Whitfield (VP Operations)",
        "dana@acme.example",
        "negotiation",
        120_000,
        "USD",
        "Evaluating a 3-year license; procurement is strict.",
    ),
    (
        "globex",
        "Globex Ltd",
        "Marco Rossi (CTO)",
        "marco@globex.example",
        "discovery",
        45_000,
        "EUR",
        "Pilot with the data team; wants SSO.",
    ),
    (
        "initech",
        "Initech",
        "Priya Nair (Head of IT)",
        "priya@initech.example",
        "proposal",
        80_000,
        "USD",
        "Renewal due in Q3; price sensitive.",
    ),
    (
        "lanhai",
        "蓝海科技",
        "王磊 (采购总监)",
        "wanglei@lanhai.example",
        "qualification",
        600_000,
        "CNY",
        "关注本地部署和数据合规。",
    ),
]
MAX_DESCRIPTION = 300


class UnknownScopeError(LookupError):
    """A customer id that the CRM does not know."""


@dataclass(frozen=True)
class Customer:
    id: str
    name: str
    contact: str
    email: str
    stage: str
    deal_size: int
    currency: str
    notes: str


@dataclass(frozen=True)
class Commitment:
    id: int
    user_id: str
    customer_id: str
    description: str
    due_date: str
    status: str
    created_at: str


class Crm:
    """The CRM database at ``path`` (created and seeded on first use)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._ready = False

    def _setup(self) -> None:
        """Create and seed the database on first use (not at import or construction)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:
                db.executescript(SCHEMA)
                if db.execute("SELECT COUNT(*) FROM customers").fetchone()[0] == 0:
                    db.executemany(
                        "INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?)", DEMO_CUSTOMERS
                    )
        finally:
            db.close()
        self._ready = True

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        if not self._ready:
            self._setup()
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:
                yield db
        finally:
            db.close()

    def customers(self) -> list[Customer]:
        with self._conn() as db:
            return [Customer(*r) for r in db.execute("SELECT * FROM customers ORDER BY id")]

    def customer(self, customer_id: str) -> Customer:
        with self._conn() as db:
            row = db.execute("SELECT * FROM customers WHERE id = ?", (customer_id,)).fetchone()
        if row is None:
            known = ", ".join(c.id for c in self.customers())
            raise UnknownScopeError(f"unknown customer {customer_id!r} (known: {known})")
        return Customer(*row)

    def require(self, user_id: str, customer_id: str) -> Customer:
        """The customer, after checking both ids can scope memory.

        Users are not registered (any valid id is a salesperson); customers must exist.
        Raises ``InvalidScopeError`` or ``UnknownScopeError``.
        """
        namespace(user_id, customer_id)
        return self.customer(customer_id)

    def open_commitments(self, user_id: str, customer_id: str) -> list[Commitment]:
        with self._conn() as db:
            rows = db.execute(
                "SELECT * FROM commitments WHERE user_id = ? AND customer_id = ? "
                "AND status = 'open' ORDER BY due_date, id",
                (user_id, customer_id),
            ).fetchall()
        return [Commitment(*r) for r in rows]

    def log_commitment(
        self, user_id: str, customer_id: str, description: str, due_date: str
    ) -> Commitment:
        """Record a commitment; rejects an empty description or a malformed date."""
        description = " ".join(description.split())
        if not description:
            raise ValueError("a commitment needs a description")
        if len(description) > MAX_DESCRIPTION:
            raise ValueError(f"description longer than {MAX_DESCRIPTION} characters")
        try:
            due = date.fromisoformat(due_date).isoformat()
        except ValueError as exc:
            raise ValueError(f"due_date must be YYYY-MM-DD, got {due_date!r}") from exc
        self.customer(customer_id)
        now = datetime.now(UTC).isoformat()
        with self._conn() as db:
            cur = db.execute(
                "INSERT INTO commitments (user_id, customer_id, description, due_date, "
                "status, created_at) VALUES (?, ?, ?, ?, 'open', ?)",
                (user_id, customer_id, description, due, now),
            )
            new_id = int(cur.lastrowid or 0)
        return Commitment(new_id, user_id, customer_id, description, due, "open", now)
