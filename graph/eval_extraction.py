"""``memagent eval extraction``: how well an extractor + the write path keep memories.

Each labelled dialog (``graph/data/extraction_dialogs.json``, shipped in the wheel) is replayed turn by
turn as the worker would see it (previous assistant message, user message,
reply), through the extractor and the real write path into a fresh in-memory
store. The active memories left at the end are compared with the gold ones.

- precision: active memories that match a gold memory / all active memories;
- recall: gold memories matched by an active memory / all gold memories;
- duplicate rate: extra active memories matching an already matched gold one
  / all active memories;
- contradiction accuracy: dialogs with a correction or contradiction whose end
  state holds the new value and none of the stale ones;
- trap leaks: stale strings (hypotheticals, jokes, assistant claims) found active.

No target is asserted anywhere; the figures are printed and reported.
"""

from __future__ import annotations

import asyncio
import json
import time
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from langgraph.store.memory import InMemoryStore

from memagent.nodes.extractors import Extractor, rules_extractor
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.jobs import Turn
from memagent.stores.namespaces import namespace
from memagent.stores.write_path import derived_id, write_memory

app = typer.Typer(no_args_is_help=True, help="Evaluations.")
DATA_NAME = "extraction_dialogs.json"


def default_data_path() -> Path:
    """The labelled set, shipped as package data next to this module."""
    path = Path(__file__).resolve().parent / "data" / DATA_NAME
    if not path.exists():
        raise FileNotFoundError(f"{DATA_NAME} is missing from memagent.graph's package data")
    return path


def load_dialogs(path: Path | None = None) -> list[dict[str, Any]]:
    data = json.loads((path or default_data_path()).read_text(encoding="utf-8"))
    dialogs = data["dialogs"] if isinstance(data, dict) else data
    if not isinstance(dialogs, list) or not dialogs:
        raise ValueError("the dialog file holds no dialogs")
    return dialogs


def norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().replace(" ", "").replace(",", "")


def jobs_of(dialog: dict[str, Any]) -> list[list[Turn]]:
    """The jobs the worker would get: one per user message, with its neighbours as context."""
    did = dialog["id"]
    turns = [Turn(t["role"], t["content"], f"{did}-{i}") for i, t in enumerate(dialog["turns"])]
    jobs = []
    for i, t in enumerate(turns):
        if t.role != "user":
            continue
        job = [turns[i - 1]] if i > 0 and turns[i - 1].role == "assistant" else []
        job.append(t)
        if i + 1 < len(turns) and turns[i + 1].role == "assistant":
            job.append(turns[i + 1])
        jobs.append(job)
    return jobs


async def replay(
    extractor: Extractor, dialog: dict[str, Any]
) -> tuple[list[dict[str, Any]], int, list[str]]:
    """Active memories after replaying one dialog, dropped items, and extractor errors.

    An extractor error (model timeout, malformed answer) loses that job's memories
    here and is reported, rather than ending the whole evaluation.
    """
    store = InMemoryStore(index={"dims": 64, "embed": hash_embeddings(64), "fields": ["content"]})
    user, customer = "eval", dialog["id"]
    dropped = 0
    errors: list[str] = []
    for n, job in enumerate(jobs_of(dialog)):
        try:
            res = await extractor(job)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")
            continue
        dropped += res.dropped
        for idx, cand in enumerate(res.candidates):
            write_memory(
                store, user, customer, cand, record_id=derived_id(customer, str(n), str(idx))
            )
    items = store.search(namespace(user, customer, "facts"), filter={"status": "active"}, limit=200)
    return [i.value for i in items], dropped, errors


def score_dialog(dialog: dict[str, Any], active: Sequence[dict[str, Any]]) -> dict[str, Any]:
    texts = [norm(f"{v.get('content', '')} {v.get('value') or ''}") for v in active]
    gold = [[norm(m) for m in g["match"]] for g in dialog.get("gold", [])]
    matched_records: set[int] = set()
    gold_hits = []
    for g in gold:
        hits = [i for i, t in enumerate(texts) if any(m in t for m in g)]
        gold_hits.append(hits)
        matched_records.update(hits)
    stale = [norm(s) for s in dialog.get("stale", [])]
    leaks = [s for s in stale if any(s in t for t in texts)]
    return {
        "id": dialog["id"],
        "active": len(texts),
        "true_positive": len(matched_records),
        "gold": len(gold),
        "gold_found": sum(1 for h in gold_hits if h),
        "duplicates": sum(max(0, len(h) - 1) for h in gold_hits),
        "leaks": leaks,
        "contradiction": bool(dialog.get("contradiction")),
        "contradiction_ok": all(gold_hits) and not leaks,
        "memories": [v.get("content") for v in active],
    }


async def arun_extraction_eval(
    extractor: Extractor, dialogs: Sequence[dict[str, Any]] | None = None
) -> dict[str, Any]:
    dialogs = list(dialogs) if dialogs is not None else load_dialogs()
    start = time.perf_counter()
    rows = []
    dropped = 0
    errors: list[str] = []
    for dialog in dialogs:
        active, d, errs = await replay(extractor, dialog)
        dropped += d
        errors += errs
        rows.append(score_dialog(dialog, active))
    active_n = sum(r["active"] for r in rows)
    gold_n = sum(r["gold"] for r in rows)
    contra = [r for r in rows if r["contradiction"]]

    def ratio(a: float, b: float) -> float | None:
        return round(a / b, 3) if b else None

    return {
        "extractor": getattr(extractor, "name", type(extractor).__name__),
        "dialogs": len(rows),
        "active_memories": active_n,
        "gold_memories": gold_n,
        "precision": ratio(sum(r["true_positive"] for r in rows), active_n),
        "recall": ratio(sum(r["gold_found"] for r in rows), gold_n),
        "duplicate_rate": ratio(sum(r["duplicates"] for r in rows), active_n),
        "contradiction_accuracy": ratio(sum(r["contradiction_ok"] for r in contra), len(contra)),
        "contradiction_dialogs": len(contra),
        "trap_leaks": sum(len(r["leaks"]) for r in rows),
        "dropped_items": dropped,
        "extractor_errors": len(errors),
        "error_samples": errors[:5],
        "seconds": round(time.perf_counter() - start, 2),
        "per_dialog": rows,
    }


def run_extraction_eval(
    extractor: Extractor | None = None, dialogs: Sequence[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Figures for one extractor (rules by default) on the labelled dialogs."""
    return asyncio.run(arun_extraction_eval(extractor or rules_extractor(), dialogs))


def _llm() -> Extractor:
    from memagent.graph.llm import chat_model
    from memagent.graph.settings import get_settings
    from memagent.nodes.extractors import llm_extractor

    return llm_extractor(chat_model(get_settings(), small=True, temperature=0.0))


def extraction_cmd(
    extractor: Annotated[str, typer.Option(help="rules, llm or both")] = "rules",
    data: Annotated[Path | None, typer.Option(help="Labelled dialogs JSON.")] = None,
    details: Annotated[bool, typer.Option(help="Include per-dialog rows.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Precision, recall, duplicate rate, contradiction handling of the extractor(s)."""
    if extractor not in ("rules", "llm", "both"):
        raise typer.BadParameter("expected rules, llm or both", param_hint="--extractor")
    dialogs = load_dialogs(data)
    kinds = ["rules", "llm"] if extractor == "both" else [extractor]
    results = []
    for kind in kinds:
        ex = rules_extractor() if kind == "rules" else _llm()
        res = run_extraction_eval(ex, dialogs)
        if not details:
            res.pop("per_dialog")
        results.append(res)
    if as_json:
        typer.echo(json.dumps(results if len(results) > 1 else results[0], ensure_ascii=False))
        return
    for r in results:
        typer.echo(
            f"{r['extractor']}: precision {r['precision']}  recall {r['recall']}  "
            f"duplicates {r['duplicate_rate']}  contradictions {r['contradiction_accuracy']} "
            f"({r['contradiction_dialogs']} dialogs)  trap leaks {r['trap_leaks']}  "
            f"dropped {r['dropped_items']}  [{r['dialogs']} dialogs, {r['seconds']} s]"
        )


app.command("extraction")(extraction_cmd)
