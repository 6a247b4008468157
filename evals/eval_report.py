"""Text report of ``memagent eval extraction`` (the ``--json`` output is the result itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _f(v: float | None) -> str:
    return "  -  " if v is None else f"{v:.3f}"


def figures_line(f: Mapping[str, Any], *, stale: bool = True) -> str:
    """One row: precision, recall, duplicates, pending handling (and stale leaks)."""
    line = (
        f"precision {_f(f['precision'])} ({f['true_memories']}/{f['memories']})  "
        f"recall {_f(f['recall'])} ({f['gold_found']}/{f['gold']})  "
        f"duplicates {f['duplicates']} ({_f(f['duplicate_rate']).strip()})"
    )
    if f["pending"]:
        line += (
            f"  pending {f['pending']}: kept {f['pending_kept']}, "
            f"confirmed {f['pending_confirmed']}, lost {f['pending_lost']}"
        )
    if stale and f["stale"]:
        line += f"  stale leaks {f['stale_leaks']}/{f['stale']}"
    return line


def report_lines(r: Mapping[str, Any], *, misses: bool = False) -> list[str]:
    """The figures of one extractor's run, then its misses when asked."""
    head = (
        f"{r['extractor']}: v{r['version']} set, split {r['split']}, {r['dialogs']} dialogs, "
        f"{r['seconds']} s; dropped {r['dropped_items']}, extractor errors "
        f"{r['extractor_errors']}"
    )
    if (a := r.get("model_answers")) is not None:
        head += f"; model answers: {a['fresh']} fresh, {a['recorded']} recorded"
    lines = [head, f"  overall   {figures_line(r['overall'])}"]
    if r["contradiction_dialogs"]:
        lines.append(
            f"  contradictions {_f(r['contradiction_accuracy'])} "
            f"({r['contradiction_dialogs']} dialogs)"
        )
    for title, key, stale in (
        ("split", "by_split", True),
        ("language", "by_lang", True),
        ("category", "by_category", False),
    ):
        rows = r[key]
        if len(rows) < 2 and key != "by_category":
            continue
        lines.append(f"  by {title}")
        width = max(len(k) for k in rows)
        lines += [f"    {k:<{width}}  {figures_line(v, stale=stale)}" for k, v in rows.items()]
    for sample in r["error_samples"]:
        lines.append(f"  error: {sample}")
    if misses:
        lines += miss_lines(r)
    return lines


def miss_lines(r: Mapping[str, Any]) -> list[str]:
    lines = [f"  misses ({len(r['misses'])} dialogs with something wrong)"]
    labels = (
        ("missed", "missed"),
        ("extra", "matches no gold item"),
        ("duplicates", "duplicate"),
        ("pending_confirmed", "pending but confirmed"),
        ("pending_lost", "pending, lost"),
        ("stale_leaks", "stale value kept"),
    )
    for m in r["misses"]:
        lines.append(f"    {m['id']} ({m['lang']}{', ' + m['split'] if m['split'] else ''})")
        for key, label in labels:
            lines += [f"      {label}: {x}" for x in m[key]]
    if r["withheld_holdout"]:
        lines.append(
            f"  holdout misses withheld ({r['withheld_holdout']} dialogs): "
            "pass --show-holdout only if you do not build or tune the extractors"
        )
    return lines
