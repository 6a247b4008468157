"""``memagent doctor``'s backend rows: where sessions, jobs and the CRM live, and whether
that place can be reached (a PostgreSQL server answering, or SQLite files that can be
written). Never creates anything."""

from __future__ import annotations

from pathlib import Path

from memagent.core.settings import Settings

Row = tuple[str, str, str]
PARTS = (
    ("sessions", "checkpointer", "checkpoint_path"),
    ("job outbox", "jobs", "jobs_path"),
    ("crm", "CRM tables", "crm_path"),
)


def backend_rows(settings: Settings) -> list[Row]:
    """One row per part: its backend and whether it is reachable."""
    dsn = settings.database_dsn
    if dsn:
        from memagent.stores.pg import DatabaseError, check, redact_url

        try:
            status, detail = "ok", check(dsn)
        except DatabaseError as exc:
            status, detail = "fail", f"unreachable: {exc}"
        where = redact_url(dsn)
        kinds = {"sessions": "AsyncPostgresSaver", "job outbox": "memagent_jobs",
                 "crm": "customers, commitments"}  # fmt: skip
        return [
            (name, status, f"PostgreSQL {detail} ({kinds[name]}) at {where}")
            if status == "ok"
            else (name, status, detail)
            for name, _, _ in PARTS
        ]
    from memagent.stores.file_access import unwritable_reason

    rows: list[Row] = []
    for name, _, attr in PARTS:
        path: Path = getattr(settings, attr)
        reason = unwritable_reason(path)
        state = "" if path.exists() else " (created on first use)"
        if reason is None:
            rows.append((name, "ok", f"SQLite at {path}{state}"))
        else:
            rows.append((name, "warn", f"SQLite at {path}: {reason} (read-only)"))
    return rows


def store_row(settings: Settings) -> Row:
    """Which store engine the settings name (the store check says if it answers)."""
    if settings.qdrant_url:
        return ("store backend", "ok", f"Qdrant server at {settings.qdrant_url}")
    return (
        "store backend",
        "ok",
        f"embedded Qdrant engine in {settings.resolved_store_location()}",
    )
