"""Size bounds of the house style: modules up to 450 lines, functions up to 60.

Prints every module over ``MAX_MODULE_LINES`` lines and every function (methods and
nested functions included, each counted from its first decorator or ``def`` to its last
line) over ``MAX_FUNCTION_LINES`` lines, then a one-line summary. Modules that are pure
data tables are exempt from the module bound only, each named in ``DATA_TABLES`` with
the reason; the report lists them so the exemption stays visible.

Usage: ``python tests/support/size_report.py [PATH ...]`` (folders or ``.py`` files,
relative to the repository root; default: every package folder). Exit status 0 when
everything is within bounds, 1 when something is over, 2 on a bad path.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "llm", "stores", "memory", "prompts", "nodes", "graph", "evals")
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60

DATA_TABLES: dict[str, str] = {
    "memory/poison_rules.py": (
        "the poisoning rule table: a tuple of weighted regex rules and the pattern "
        "fragments they share, with no logic; it grows when an attack is found"
    ),
}
"""Repository-relative paths exempt from the module bound, with the reason."""


@dataclass(frozen=True)
class Over:
    """One module or function over its bound."""

    path: str
    lines: int
    line: int = 0
    name: str = ""

    def __str__(self) -> str:
        if self.name:
            return f"function over {MAX_FUNCTION_LINES} lines: {self.path}:{self.line} {self.name} ({self.lines})"
        return f"module over {MAX_MODULE_LINES} lines: {self.path} ({self.lines})"


def python_files(paths: Iterable[Path]) -> Iterator[Path]:
    """The ``.py`` files under ``paths`` (sorted, ``__pycache__`` skipped)."""
    for path in paths:
        if path.is_file():
            yield path
            continue
        for found in sorted(path.rglob("*.py")):
            if "__pycache__" not in found.parts:
                yield found


def long_functions(source: str, path: str) -> list[Over]:
    """Every function in ``source`` longer than the bound, with its qualified name."""
    found: list[Over] = []

    def walk(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{scope}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                lines = (child.end_lineno or child.lineno) - first + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append(Over(path, lines, child.lineno, name))
                walk(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{scope}{child.name}.")
            else:
                walk(child, scope)

    walk(ast.parse(source, filename=path), "")
    return found


def report(paths: Iterable[Path], root: Path = ROOT) -> tuple[list[Over], list[str]]:
    """What is over the bounds under ``paths``, and the data tables met (exempt)."""
    over: list[Over] = []
    exempt: list[str] = []
    for file in python_files(paths):
        rel = file.resolve().relative_to(root.resolve()).as_posix()
        source = file.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            if rel in DATA_TABLES:
                exempt.append(f"data table, exempt: {rel} ({lines}): {DATA_TABLES[rel]}")
            else:
                over.append(Over(rel, lines))
        over.extend(long_functions(source, rel))
    return over, exempt


def main(argv: list[str], root: Path = ROOT) -> int:
    names = argv or list(PACKAGES)
    paths = [root / name for name in names]
    missing = [name for name, path in zip(names, paths, strict=True) if not path.exists()]
    if missing:
        print(f"size_report: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    over, exempt = report(paths, root)
    for line in [*map(str, over), *exempt]:
        print(line)
    modules = sum(1 for o in over if not o.name)
    print(
        f"{modules} modules over {MAX_MODULE_LINES} lines, {len(over) - modules} functions over {MAX_FUNCTION_LINES} lines"
    )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
