"""Who holds a lock file: the process behind a ``flock`` another opener ran into.

Linux lists every file lock in ``/proc/locks`` with the holder's pid, device and inode,
so the process holding a store directory's ``LOCK`` can be named (pid and command line)
in the error a second opener gets, without the holder writing anything. Elsewhere, or
when the holder cannot be seen (another pid namespace), ``holder_of`` returns None and
the error says only that another process holds it. Stdlib only: the CLI's service
client uses it before it starts a service.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Holder:
    """The process holding a lock: its pid and command line (arguments joined); or its
    parent's, when the parent is what the user started (``langgraph dev`` serves from a
    child process it restarts on reload: the one to stop is the parent)."""

    pid: int
    command: str

    @property
    def kind(self) -> str:
        """What it is, as a user knows it: ``studio``, ``service``, ``worker`` or ``other``."""
        return _kind(self.command)

    def describe(self) -> str:
        """``pid 123 (`langgraph dev --port 8123`)``, the command shortened to 60 chars."""
        command = self.command if len(self.command) <= 60 else self.command[:57] + "..."
        return f"pid {self.pid} (`{command}`)" if command else f"pid {self.pid}"


def _kind(command: str) -> str:
    words = command.split()
    names = {os.path.basename(w) for w in words}
    if "langgraph" in names or "langgraph_api" in command:
        return "studio"
    if "memagent.graph.service" in words or ("memagent" in names and "service" in words):
        return "service"
    if "memagent" in names and "worker" in words:
        return "worker"
    return "other"


def _parent(pid: int, proc: Path) -> int | None:
    try:
        stat = (proc / str(pid) / "stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[1])  # the command may hold spaces
    except (OSError, IndexError, ValueError):
        return None


def _command(pid: int, proc: Path) -> str:
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return ""
    return " ".join(a.decode(errors="replace") for a in raw.split(b"\0") if a)


def holder_of(path: Path, *, proc: Path = Path("/proc")) -> Holder | None:
    """The process holding a ``flock`` on ``path`` (None: unlocked, or not visible)."""
    try:
        st = path.stat()
        lines = (proc / "locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        # "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF" (a blocked waiter has "->")
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK" or "->" in fields:
            continue
        try:
            major, minor, inode = fields[5].split(":")
            pid = int(fields[4])
            same = (int(major, 16), int(minor, 16), int(inode)) == (
                os.major(st.st_dev),
                os.minor(st.st_dev),
                st.st_ino,
            )
        except ValueError:
            continue
        if same and pid != os.getpid():
            holder = Holder(pid, _command(pid, proc))
            ppid = _parent(pid, proc)
            if holder.kind == "other" and ppid:
                parent = Holder(ppid, _command(ppid, proc))
                return parent if parent.kind != "other" else holder
            return holder
    return None
