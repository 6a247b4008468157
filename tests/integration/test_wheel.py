"""The built wheel installs only ``memagent.*`` and imports from a fresh venv.

The deps come from the test environment's site-packages (added with a .pth
file, which does not activate the editable finder), so this checks the wheel's
own contents without downloading anything.
"""

from __future__ import annotations

import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        timeout=600,
    )
    (whl,) = out.glob("memagent-*.whl")
    return whl


def test_wheel_has_no_bare_top_level_packages(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"memagent"}, tops
    for sub in ("graph", "graph/service", "nodes", "stores", "prompts"):
        assert f"memagent/{sub}/__init__.py" in names


def test_wheel_imports_in_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=600,
    )
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Dependencies from the test environment, appended after the wheel's own site dir.
    Path(purelib, "_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    code = (
        "import memagent.graph, memagent.nodes, memagent.stores, memagent.prompts, sys;"
        "import memagent.graph.builder, memagent.graph.cli, memagent.graph.service.server;"
        "print(memagent.stores.__file__)"
    )
    res = subprocess.run(
        [str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().startswith(purelib), res.stdout
    for bare in ("nodes", "stores", "prompts", "graph"):
        assert not Path(purelib, bare).exists(), f"wheel installed a bare top-level {bare!r}"
