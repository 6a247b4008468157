"""``memagent doctor``'s backend rows for a PostgreSQL server that does not answer."""

from __future__ import annotations

import socket
from pathlib import Path

from memagent.core.settings import Settings
from memagent.graph.doctor_backends import backend_rows, store_row


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_database_fails_each_part_without_showing_the_password(
    tmp_path: Path,
) -> None:
    url = f"postgresql://memagent:s3cret@127.0.0.1:{_closed_port()}/memagent"
    rows = backend_rows(Settings(home=tmp_path, database_url=url))
    assert [(name, status) for name, status, _ in rows] == [
        ("sessions", "fail"), ("job outbox", "fail"), ("crm", "fail"),
    ]  # fmt: skip
    for _, _, detail in rows:
        assert "unreachable" in detail and "memagent:***@127.0.0.1" in detail
        assert "s3cret" not in detail


def test_default_backends_are_sqlite_files_under_home_and_the_embedded_store(
    tmp_path: Path,
) -> None:
    rows = backend_rows(Settings(home=tmp_path))
    assert [(n, s, d.split(" at ")[0]) for n, s, d in rows] == [
        ("sessions", "ok", "SQLite"), ("job outbox", "ok", "SQLite"), ("crm", "ok", "SQLite"),
    ]  # fmt: skip
    assert not any(tmp_path.iterdir())  # doctor creates nothing
    assert "embedded Qdrant engine" in store_row(Settings(home=tmp_path))[2]


def test_a_database_url_that_is_not_postgresql_is_one_clear_error(tmp_path: Path) -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="must be a postgresql:// URL"):
        Settings(home=tmp_path, database_url="mysql://localhost/x")
    assert Settings(home=tmp_path, database_url="  ").database_dsn is None
