"""A small CRM: customers, their contacts, stages and deals, and commitments.

SQLite under home by default; ``PgCrm`` (``memagent.memory.crm_pg``) keeps the same
tables in PostgreSQL when ``MEMAGENT_DATABASE_URL`` is set (``open_crm`` picks).

Seeded with demo accounts on first open so the assistant has something to work with
offline; ``memagent customers add`` adds real ones. The CRM is not a gate: any valid
customer id can be talked about (a new prospect has no record yet), and the tools say
"not in the CRM" for an account without one. Every query is scoped by the ids the
caller passes; tools take them from the run context, never from model output.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from memagent.memory.namespaces import check_customer_id, namespace
from memagent.stores.file_access import require_writable

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
MAX_FIELD = 200
MAX_NOTES = 2_000
MAX_DEAL_SIZE = 10**15
DEFAULT_STAGE = "prospect"
DEFAULT_CURRENCY = "USD"


class UnknownScopeError(LookupError):
    """A customer id that the CRM has no record of."""


class InvalidCustomerError(ValueError):
    """A customer record that cannot be added (bad field, or the id exists)."""


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


def open_crm(location: Path | str) -> Crm:
    """The CRM at ``location``: a ``postgresql://`` URL or an SQLite file path."""
    if isinstance(location, str) and location.startswith(("postgresql://", "postgres://")):
        from memagent.memory.crm_pg import PgCrm

        return PgCrm(location)
    return Crm(location)


class Crm:
    """The CRM database at ``path`` (created and seeded on first use).

    SQL is written once with ``?`` placeholders; a backend with another paramstyle
    rewrites them in ``_q``."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._ready = False

    @property
    def where(self) -> str:
        """Where the CRM lives, for messages."""
        return str(self.path)

    def _q(self, sql: str) -> str:
        return sql

    def close(self) -> None:
        """Nothing held between calls (each call opens and closes its connection)."""

    def _is_duplicate(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)

    def _setup(self) -> None:
        """Create and seed the database on first use (not at import or construction)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:
                db.executescript(SCHEMA)
                if db.execute("SELECT COUNT(*) FROM customers").fetchone()[0] == 0:
                    db.executemany(  # OR IGNORE: another process may be seeding it too
                        "INSERT OR IGNORE INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        DEMO_CUSTOMERS,
                    )
        finally:
            db.close()
        self._ready = True

    @contextmanager
    def _conn(self) -> Iterator[Any]:
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
            return [
                Customer(*r) for r in db.execute(self._q("SELECT * FROM customers ORDER BY id"))
            ]

    def find(self, customer_id: str) -> Customer | None:
        """The CRM record of ``customer_id``, or None when the account has none."""
        with self._conn() as db:
            row = db.execute(
                self._q("SELECT * FROM customers WHERE id = ?"), (customer_id,)
            ).fetchone()
        return None if row is None else Customer(*row)

    def customer(self, customer_id: str) -> Customer:
        """The CRM record of ``customer_id``; raises ``UnknownScopeError`` without one."""
        found = self.find(customer_id)
        if found is None:
            raise UnknownScopeError(f"customer {customer_id!r} is not in the CRM")
        return found

    def check_scope(self, user_id: str, customer_id: str) -> Customer | None:
        """The customer's record (None for an account not in the CRM yet), after checking
        both ids can scope memory and the customer id keeps ``CUSTOMER_ID_RULE`` (raises
        ``InvalidScopeError``). Neither users nor customers need to be registered: any
        valid id works."""
        check_customer_id(customer_id)
        namespace(user_id, customer_id)
        return self.find(customer_id)

    def add(self, customer: Customer) -> Customer:
        """Add an account (fields checked by ``new_customer``); refuses an existing id.
        A CRM that cannot be written is a ``StorageError`` naming the file and why."""
        self._require_writable()
        try:
            with self._conn() as db:
                db.execute(
                    self._q("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                    astuple(customer),
                )
        except Exception as exc:
            if not self._is_duplicate(exc):
                raise
            raise InvalidCustomerError(f"customer {customer.id!r} is already in the CRM") from exc
        return customer

    def _require_writable(self) -> None:
        require_writable(self.path)

    def open_commitments(self, user_id: str, customer_id: str) -> list[Commitment]:
        with self._conn() as db:
            rows = db.execute(
                self._q(
                    "SELECT * FROM commitments WHERE user_id = ? AND customer_id = ? "
                    "AND status = 'open' ORDER BY due_date, id"
                ),
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
        namespace(user_id, customer_id)  # any valid account, in the CRM or not
        now = datetime.now(UTC).isoformat()
        with self._conn() as db:
            row = db.execute(
                self._q(
                    "INSERT INTO commitments (user_id, customer_id, description, due_date, "
                    "status, created_at) VALUES (?, ?, ?, ?, 'open', ?) RETURNING id"
                ),
                (user_id, customer_id, description, due, now),
            ).fetchone()
            new_id = int(row[0])
        return Commitment(new_id, user_id, customer_id, description, due, "open", now)


def _text(
    name: str, value: str, limit: int = MAX_FIELD, *, required: bool = False, lines: bool = False
) -> str:
    """A field as stored: whitespace runs folded (kept as typed where ``lines``), checked."""
    value = value.strip() if lines else " ".join(value.split())
    if required and not value:
        raise InvalidCustomerError(f"{name} must not be empty")
    if len(value) > limit:
        raise InvalidCustomerError(f"{name} is longer than {limit} characters")
    controls = (c for c in value if c not in "\n\t" and (ord(c) < 32 or 0xD800 <= ord(c) < 0xE000))
    if next(controls, None) is not None:
        raise InvalidCustomerError(f"{name} must be plain text (no control characters)")
    return value


def new_customer(
    customer_id: str,
    *,
    name: str,
    contact: str = "",
    email: str = "",
    stage: str = DEFAULT_STAGE,
    deal_size: int = 0,
    currency: str = DEFAULT_CURRENCY,
    notes: str = "",
) -> Customer:
    """A checked record for ``Crm.add``: the id must be a valid customer id (the one
    memory is scoped by), the name non-empty, the e-mail one address, the currency a
    three-letter code; raises ``InvalidCustomerError`` or ``InvalidScopeError``."""
    email = _text("email", email)
    local, _, domain = email.partition("@")
    if email and (not local or not domain or "@" in domain or " " in email):
        raise InvalidCustomerError(f"email {email!r} is not one address")
    currency = _text("currency", currency, required=True).upper()
    if not (len(currency) == 3 and currency.isascii() and currency.isalpha()):
        raise InvalidCustomerError(f"currency must be a 3-letter code like USD, got {currency!r}")
    if not 0 <= deal_size <= MAX_DEAL_SIZE:
        raise InvalidCustomerError(f"deal size must be between 0 and {MAX_DEAL_SIZE:,}")
    return Customer(
        id=check_customer_id(customer_id),
        name=_text("name", name, required=True),
        contact=_text("contact", contact),
        email=email,
        stage=_text("stage", stage, 40, required=True),
        deal_size=int(deal_size),
        currency=currency,
        notes=_text("notes", notes, MAX_NOTES, lines=True),
    )
