"""``memagent jobs status|drain|retry``: look into and empty the extraction outbox.

The work runs where the queue and the worker are (``memagent.graph.service.ops``);
``status_report`` and ``retry_jobs`` are shared with it. ``retry`` takes a job id or any
unique prefix of one and fails on an id that names no dead-lettered job.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from memagent.graph.cli_backend import request
from memagent.graph.jobs import Job, Outbox
from memagent.memory.id_prefix import resolve_prefix

app = typer.Typer(no_args_is_help=True, help="Background extraction jobs.")
out = Console()
err = Console(stderr=True)
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _job(j: Job) -> dict[str, Any]:
    return {
        "id": j.id,
        "thread_id": j.thread_id,
        "user_id": j.user_id,
        "customer_id": j.customer_id,
        "status": j.status,
        "attempts": j.attempts,
        "trigger": j.trigger,
        "messages": len(j.turns),
        "last_error": j.last_error,
    }


class NotDeadError(ValueError):
    """``jobs retry`` of a job that is not dead-lettered."""


def retry_jobs(queue: Outbox, ref: str | None = None) -> dict[str, Any]:
    """Requeue every dead job, or the one ``ref`` (its id or a unique prefix) names.

    ``IdNotFoundError`` / ``AmbiguousIdError`` for a reference that names no job or
    several, ``NotDeadError`` for a job that is not dead-lettered."""
    if ref is None:
        return {"requeued": queue.retry_dead(None), "ids": None}
    jid = resolve_prefix(ref, queue.ids(), what="job")
    job = queue.get(jid)
    if job is None or job.status != "dead":
        status = job.status if job is not None else "gone"
        raise NotDeadError(f"job {jid} is {status}, not dead-lettered: nothing to retry")
    return {"requeued": queue.retry_dead(jid), "ids": [jid]}


def status_report(queue: Outbox, *, limit: int = 20) -> dict[str, Any]:
    """Counts per status, the oldest pending jobs and the dead letters."""
    return {
        "path": queue.where,
        "counts": queue.counts(),
        "next_due": queue.next_due(),
        "pending": [_job(j) for j in queue.jobs("pending", limit)],
        "dead_letters": [_job(j) for j in queue.dead_letters(limit)],
    }


@app.command("status")
def status(limit: Annotated[int, typer.Option(min=1)] = 20, as_json: JsonOpt = False) -> None:
    """Jobs per status and the dead-letter list."""
    rep = request("jobs.status", {"limit": limit})
    if as_json:
        typer.echo(json.dumps(rep, ensure_ascii=False))
        return
    out.print(" ".join(f"{k}={v}" for k, v in rep["counts"].items()))
    if rep["dead_letters"]:
        table = Table("dead job", "user", "customer", "attempts", "last error")
        for j in rep["dead_letters"]:
            table.add_row(
                j["id"],
                j["user_id"],
                j["customer_id"],
                str(j["attempts"]),
                str(j["last_error"])[:80],
            )
        out.print(table)


@app.command("drain")
def drain(as_json: JsonOpt = False) -> None:
    """Run every pending job now (debounced ones too) and report what was written."""
    rep = request("jobs.drain")
    if as_json:
        typer.echo(json.dumps(rep, ensure_ascii=False))
        return
    out.print(
        f"{rep['jobs']} job(s): {rep['done']} done, {rep['failed']} failed, "
        f"{rep['released']} waiting for the store/model; writes {rep['actions']}"
    )


@app.command("retry")
def retry(job_id: Annotated[str | None, typer.Argument()] = None, as_json: JsonOpt = False) -> None:
    """Put dead-lettered jobs (all, or the one JOB_ID names: an id or a unique prefix)
    back in line."""
    rep = request("jobs.retry", {"id": job_id})
    if as_json:
        typer.echo(json.dumps(rep))
    else:
        out.print(f"requeued {rep['requeued']} job(s)")
