"""Real ``memagent`` processes for the multi-terminal tests: one-shot commands and an
interactive chat driven through its stdin, as a user's terminals would run them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

MEMAGENT = str(Path(sys.executable).with_name("memagent"))


def run(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MEMAGENT, *args], capture_output=True, text=True, timeout=timeout, env=env
    )


class ChatTerminal:
    """``memagent chat`` in its own process; ``send`` types a line, ``wait_for`` reads."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen(
            [MEMAGENT, "chat", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
        )
        self._out = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while chunk := os.read(fd, 4096):
            with self._lock:
                self._out += chunk

    @property
    def output(self) -> str:
        with self._lock:
            return self._out.decode(errors="replace")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def wait_for(self, text: str, *, after: int = 0, timeout: float = 60) -> int:
        """Wait until ``text`` appears past offset ``after``; returns the offset after it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.output.find(text, after)
            if found >= 0:
                return found + len(text)
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not seen (exit {self.proc.poll()}):\n{self.output}")

    def interrupt(self) -> None:
        self.proc.send_signal(signal.SIGINT)

    def close(self, timeout: float = 30) -> int:
        if self.proc.poll() is None and self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
