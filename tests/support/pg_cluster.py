"""A throwaway PostgreSQL cluster for tests and benches: initdb + pg_ctl in a temp dir.

Binds to 127.0.0.1 on a free port and to a unix socket inside the temp dir; trust auth
for the local test role only (the cluster lives as long as the test session). initdb
refuses to run as root, so as root the cluster is created and run as the ``postgres``
system user. ``MEMAGENT_TEST_DATABASE_URL`` points the tests at a server of your own
instead (a database they may create and drop databases on).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class PgUnavailable(RuntimeError):
    """No PostgreSQL server binaries on this machine, or the cluster did not start."""


def pg_bindir() -> Path:
    """Where initdb and pg_ctl are: ``PG_BINDIR``, the newest /usr/lib/postgresql/N/bin,
    or PATH."""
    env = os.environ.get("PG_BINDIR")
    if env:
        if not (Path(env) / "initdb").is_file():
            raise PgUnavailable(f"PG_BINDIR={env} has no initdb")
        return Path(env)
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4])
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise PgUnavailable("no PostgreSQL server binaries (initdb) found; install postgresql")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_user() -> tuple[list[str], str | None]:
    """The command prefix to run the server as a non-root user, and that user's name."""
    if os.geteuid() != 0:
        return [], None
    try:
        pwd.getpwnam("postgres")
    except KeyError as exc:
        raise PgUnavailable("running as root and there is no 'postgres' user") from exc
    runuser = shutil.which("runuser")
    if runuser is None:
        raise PgUnavailable("running as root and there is no runuser to drop to 'postgres'")
    return [runuser, "-u", "postgres", "--"], "postgres"


def _run(prefix: list[str], cmd: list[str]) -> None:
    proc = subprocess.run(prefix + cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise PgUnavailable(f"{cmd[0]} failed: {(proc.stderr or proc.stdout).strip()[-800:]}")


@contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a cluster, yield its admin URL (database ``postgres``), stop and delete it."""
    external = os.environ.get("MEMAGENT_TEST_DATABASE_URL")
    if external:
        yield external
        return
    bindir = pg_bindir()
    prefix, user = _as_user()
    root = Path(tempfile.mkdtemp(prefix="memagent-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if user is not None:
        entry = pwd.getpwnam(user)
        for p in (root, sock):
            os.chown(p, entry.pw_uid, entry.pw_gid)
    port = _free_port()
    started = False
    try:
        _run(
            prefix,
            [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
             "-E", "UTF8", "--locale=C", "--no-sync"],
        )  # fmt: skip
        opts = (
            f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={sock} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200 -c shared_buffers=64MB"
        )
        _run(
            prefix,
            [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w",
             "-t", "60", "-o", opts, "start"],
        )  # fmt: skip
        started = True
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    except PgUnavailable as exc:
        log = root / "log"
        tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
        raise PgUnavailable(f"{exc}\n{tail}".strip()) from None
    finally:
        if started:
            subprocess.run(
                prefix + [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(root, ignore_errors=True)


def with_database(admin_url: str, name: str) -> str:
    """``admin_url`` with its database replaced by ``name``."""
    base, _, _ = admin_url.rpartition("/")
    return f"{base}/{name}"


def create_database(admin_url: str, prefix: str = "t") -> str:
    """A fresh, empty database on the cluster; returns its URL."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(admin_url, name)
