"""``memagent eval extraction``: how well an extractor + the write path keep memories.

Each labelled dialog is replayed through the worker's own path (``eval_replay``)
and the memories left are scored (``eval_metrics``): precision, recall,
duplicates, pending handling and stale leaks, overall and by category, language
and split. The file is the shipped version 1 set by default, or any version 1 or
2 file given with ``--data`` (``eval_dataset`` describes both).

The holdout split of a version 2 file must stay unseen by whoever builds or tunes
the extractors: its figures are printed, but its per-dialog misses and details
only with ``--show-holdout``. No target is asserted anywhere; figures are reported.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from memagent.evals.answer_cache import RecordedAnswers
from memagent.evals.eval_dataset import Dataset, DatasetError, Dialog, GoldItem, load_dataset
from memagent.evals.eval_metrics import DialogScore, aggregate, norm
from memagent.evals.eval_metrics import score_dialog as score_memories
from memagent.evals.eval_replay import Replayer, jobs_of
from memagent.evals.eval_report import report_lines
from memagent.memory.extractors import Extractor, rules_extractor
from memagent.memory.write_path import WriteConfig

__all__ = ["jobs_of", "norm", "load_dialogs", "run_extraction_eval", "score_dialog"]

app = typer.Typer(no_args_is_help=True, help="Evaluations.")
DATA_NAME = "extraction_dialogs.json"
HOLDOUT_WHY = (
    "the holdout split must stay unseen by whoever builds or tunes the extractors; "
    "reading its misses turns it into training data and its figures into wishful ones"
)


def default_data_path() -> Path:
    """The labelled set, shipped as package data next to this module."""
    path = Path(__file__).resolve().parent / "data" / DATA_NAME
    if not path.exists():
        raise FileNotFoundError(f"{DATA_NAME} is missing from memagent.graph's package data")
    return path


def load_dialogs(path: Path | None = None) -> list[dict[str, Any]]:
    """The raw dialogs of a labelled file (checked first)."""
    path = path or default_data_path()
    load_dataset(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    return list(data["dialogs"] if isinstance(data, dict) else data)


def score_dialog(dialog: Mapping[str, Any], active: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Version 1 row of one dialog (``gold[].match``) over its active memory values."""
    d = Dialog(
        id=str(dialog["id"]),
        turns=(),
        gold=tuple(GoldItem((tuple(g["match"]),)) for g in dialog.get("gold", [])),
        stale=tuple(dialog.get("stale", [])),
        contradiction=bool(dialog.get("contradiction")),
    )
    return _v1_row(d, score_memories(d, active))


def _v1_row(dialog: Dialog, s: DialogScore) -> dict[str, Any]:
    return {
        "id": s.id,
        "lang": s.lang,
        "split": s.split,
        "active": s.total.memories,
        "true_positive": s.total.true_memories,
        "gold": s.total.gold,
        "gold_found": s.total.gold_found,
        "duplicates": s.total.duplicates,
        "leaks": [norm(x) for x in s.leaks],
        "contradiction": dialog.contradiction,
        "contradiction_ok": not s.missed and not s.leaks,
        "memories": s.memories,
    }


def _misses(s: DialogScore) -> dict[str, Any] | None:
    row = {
        "missed": [g.describe() for g in s.missed],
        "extra": s.extra,
        "duplicates": s.duplicates,
        "pending_confirmed": [g.describe() for g in s.pending_confirmed],
        "pending_lost": [g.describe() for g in s.pending_lost],
        "stale_leaks": s.leaks,
    }
    if not any(row.values()):
        return None
    return {"id": s.id, "lang": s.lang, "split": s.split, **row}


@dataclass(frozen=True)
class Selection:
    """Which dialogs are scored, and which of them may be shown one by one."""

    split: str = "all"
    show_holdout: bool = False

    def dialogs(self, data: Dataset) -> list[Dialog]:
        if self.split == "all":
            return list(data.dialogs)
        if data.version == 1:
            raise DatasetError(f"--split {self.split}: a version 1 file has no splits")
        picked = [d for d in data.dialogs if d.split == self.split]
        if not picked:
            raise DatasetError(f"the file has no {self.split} dialogs (--split dev|holdout|all)")
        return picked

    def visible(self, s: DialogScore) -> bool:
        return s.split != "holdout" or self.show_holdout


def run_extraction_eval(
    extractor: Extractor | None = None,
    dialogs: Sequence[Dialog] | None = None,
    *,
    selection: Selection = Selection(),
    version: int = 1,
    write_config: WriteConfig | None = None,
) -> dict[str, Any]:
    """Figures for one extractor (rules by default) on the labelled dialogs, written with
    ``write_config`` (the worker's defaults unless given).

    Synchronous, like the worker; called under a running event loop (a notebook) it
    runs on one thread of its own, so the worker still keeps one loop for the run.
    """
    extractor = extractor or rules_extractor()
    if dialogs is None:
        dialogs = load_dataset(default_data_path()).dialogs
    args = (extractor, dialogs, selection, version, write_config)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run(*args)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_run, *args).result()


def _run(
    extractor: Extractor,
    dialogs: Sequence[Dialog],
    selection: Selection,
    version: int,
    write_config: WriteConfig | None,
) -> dict[str, Any]:
    start = time.perf_counter()
    scores: list[DialogScore] = []
    rows: list[dict[str, Any]] = []
    misses: list[dict[str, Any]] = []
    dropped, errors, samples = 0, 0, []
    with Replayer(extractor, write_config=write_config) as replayer:
        for dialog in dialogs:
            out = replayer.replay(dialog)
            dropped += out.dropped
            errors += len(out.errors)
            s = score_memories(dialog, out.confirmed, out.pending)
            scores.append(s)
            if selection.visible(s):  # an error message may quote the dialog
                samples += out.errors
                rows.append({**_v1_row(dialog, s), "pending_memories": len(out.pending)})
                if (m := _misses(s)) is not None:
                    misses.append(m)
    figures = aggregate(scores)
    overall = figures["overall"]
    contra = [s for d, s in zip(dialogs, scores, strict=True) if d.contradiction]
    return {
        "extractor": getattr(extractor, "name", type(extractor).__name__),
        "version": version,
        "split": selection.split,
        "dialogs": len(scores),
        "active_memories": overall["memories"],
        "gold_memories": overall["gold"],
        "precision": overall["precision"],
        "recall": overall["recall"],
        "duplicates": overall["duplicates"],
        "duplicate_rate": overall["duplicate_rate"],
        "pending": {
            "total": overall["pending"],
            **{k: overall[f"pending_{k}"] for k in ("kept", "confirmed", "lost")},
        },
        "stale_leaks": overall["stale_leaks"],
        "trap_leaks": overall["stale_leaks"],
        "contradiction_accuracy": (
            round(sum(not s.missed and not s.leaks for s in contra) / len(contra), 3)
            if contra
            else None
        ),
        "contradiction_dialogs": len(contra),
        "dropped_items": dropped,
        "extractor_errors": errors,
        "error_samples": samples[:5],
        "seconds": round(time.perf_counter() - start, 2),
        **{k: figures[k] for k in ("overall", "by_category", "by_lang", "by_split")},
        "withheld_holdout": sum(1 for s in scores if not selection.visible(s)),
        "per_dialog": rows,
        "misses": misses,
    }


def _llm(settings: Any, answers: RecordedAnswers | None = None) -> Extractor:
    from memagent.llm.adapter import chat_model
    from memagent.memory.extractors import llm_extractor

    model = chat_model(settings, small=True, temperature=0.0)
    if answers is not None:
        answers.inner = model
    return llm_extractor(
        cast(Any, answers) if answers is not None else model,
        hybrid=settings.llm_extraction == "hybrid",
    )


def _subset(dialogs: list[Dialog], ids: str | None, limit: int | None) -> list[Dialog]:
    """The dialogs named by ``--ids`` (comma-separated, in the file's order), then the
    first ``--limit`` of them; an unknown id exits with a one-line error."""
    if ids:
        wanted = [i.strip() for i in ids.split(",") if i.strip()]
        known = {d.id for d in dialogs}
        if unknown := [i for i in wanted if i not in known]:
            typer.echo(
                f"error: --ids: no dialog {', '.join(unknown)} in the chosen split", err=True
            )
            raise typer.Exit(2)
        dialogs = [d for d in dialogs if d.id in set(wanted)]
    return dialogs[:limit] if limit else dialogs


def _select(
    data: Path | None, split: str | None, show_holdout: bool
) -> tuple[Dataset, Selection, list[Dialog]]:
    """The dataset, the chosen split and its dialogs; a bad split or file exits with a
    one-line error."""
    if split not in (None, "dev", "holdout", "all"):
        raise typer.BadParameter("expected dev, holdout or all", param_hint="--split")
    try:
        dataset = load_dataset(data or default_data_path())
        chosen = split or ("dev" if dataset.version == 2 else "all")
        selection = Selection(chosen, show_holdout)
        return dataset, selection, selection.dialogs(dataset)
    except DatasetError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _run_extractors(
    settings: Any,
    kinds: list[str],
    dialogs: Any,
    *,
    selection: Selection,
    version: int,
    answers: Path | None = None,
) -> list[dict[str, Any]]:
    """``run_extraction_eval`` of each extractor kind, with the worker's thresholds; the
    LLM's answers recorded in (and replayed from) ``answers`` when given."""
    write_config = WriteConfig.for_settings(settings)
    results = []
    for kind in kinds:
        try:
            recorded = RecordedAnswers(None, answers) if answers and kind == "llm" else None
        except ValueError as exc:
            typer.echo(f"error: --answers: {exc}", err=True)
            raise typer.Exit(2) from None
        ex = rules_extractor() if kind == "rules" else _llm(settings, recorded)
        try:
            res = run_extraction_eval(
                ex, dialogs, selection=selection, version=version, write_config=write_config
            )
        finally:
            if recorded is not None:
                recorded.save()
        if recorded is not None:
            res["model_answers"] = {"recorded": recorded.recorded, "fresh": recorded.fresh}
        results.append(res)
    return results


_Ids = Annotated[
    str | None, typer.Option(help="Only these dialogs of the chosen split (comma-separated ids).")
]
_Limit = Annotated[int | None, typer.Option(min=1, help="Only the first N dialogs (after --ids).")]
_Answers = Annotated[
    Path | None,
    typer.Option(
        help="Record the LLM's answers in this JSON file and reuse those recorded "
        "for the same prompt; the run prints how many answers were fresh."
    ),
]


def extraction_cmd(
    ctx: typer.Context,
    extractor: Annotated[str, typer.Option(help="rules, llm or both")] = "rules",
    data: Annotated[
        Path | None,
        typer.Option(help="Labelled dialogs JSON, version 1 or 2 (default: the shipped v1 set)."),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(
            help="dev, holdout or all (version 2 files; default dev). Figures of every "
            "chosen split are printed; see --show-holdout for its misses."
        ),
    ] = None,
    misses: Annotated[
        bool,
        typer.Option(
            help="Print each dialog's misses: gold items not kept, memories matching "
            "nothing, duplicates, pending items confirmed or lost, stale values kept. "
            "Dev dialogs only unless --show-holdout."
        ),
    ] = False,
    show_holdout: Annotated[
        bool,
        typer.Option(
            help="Also show misses and details of holdout dialogs. Off by default because "
            + HOLDOUT_WHY
            + "."
        ),
    ] = False,
    details: Annotated[
        bool, typer.Option(help="Include per-dialog rows in --json (same holdout rule).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per run.")] = False,
    ids: _Ids = None,
    limit: _Limit = None,
    answers: _Answers = None,
) -> None:
    """Precision, recall, duplicates, pending handling and stale leaks of the extractor(s),
    overall and by category, language and split."""
    if extractor not in ("rules", "llm", "both"):
        raise typer.BadParameter("expected rules, llm or both", param_hint="--extractor")
    dataset, selection, dialogs = _select(data, split, show_holdout)
    dialogs = _subset(dialogs, ids, limit)
    from memagent.evals.evaluation import command_settings

    results = _run_extractors(
        command_settings(ctx),
        ["rules", "llm"] if extractor == "both" else [extractor],
        dialogs,
        selection=selection,
        version=dataset.version,
        answers=answers,
    )
    _print(results, details=details, misses=misses, as_json=as_json)


def _print(results: list[dict[str, Any]], *, details: bool, misses: bool, as_json: bool) -> None:
    """The runs' figures, as JSON or as report lines, with per-dialog rows and misses
    only when asked."""
    for res in results:
        if not details:
            res.pop("per_dialog")
        if not misses:
            res.pop("misses")
    if as_json:
        typer.echo(json.dumps(results if len(results) > 1 else results[0], ensure_ascii=False))
        return
    for r in results:
        typer.echo("\n".join(report_lines(r, misses=misses)))


app.command("extraction")(extraction_cmd)
