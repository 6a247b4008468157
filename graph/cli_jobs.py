"""``memagent jobs status|drain|retry``: look into and empty the extraction outbox.

``status`` only reads (it opens the outbox read-only, so it works on a read-only home);
``retry`` takes a job id or any unique prefix of it and fails on an id that names no
dead-lettered job. Logic: ``status_report`` and ``retry_jobs`` over a given queue.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from memagent.graph.cli_errors import fail, one_line_errors
from memagent.graph.settings import get_settings
from memagent.stores.id_prefix import AmbiguousIdError, IdNotFoundError, resolve_prefix
from memagent.stores.jobs import Job, JobQueue

app = typer.Typer(no_args_is_help=True, help="Background extraction jobs.")
out = Console()
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _queue(*, read_only: bool = False) -> JobQueue:
    return JobQueue.for_settings(get_settings(), read_only=read_only)


class NotDeadError(ValueError):
    """``jobs retry`` of a job that is not dead-lettered."""


def retry_jobs(queue: JobQueue, ref: str | None = None) -> dict[str, Any]:
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


def status_report(queue: JobQueue, *, limit: int = 20) -> dict[str, Any]:
    """Counts per status, the oldest pending jobs and the dead letters."""
    return {
        "path": str(queue.path),
        "counts": queue.counts(),
        "next_due": queue.next_due(),
        "pending": [_job(j) for j in queue.jobs("pending", limit)],
        "dead_letters": [_job(j) for j in queue.dead_letters(limit)],
    }


@app.command("status")
def status(limit: Annotated[int, typer.Option(min=1)] = 20, as_json: JsonOpt = False) -> None:
    """Jobs per status and the dead-letter list."""
    with one_line_errors():
        rep = status_report(_queue(read_only=True), limit=limit)
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
    from memagent.graph.worker import Worker

    with one_line_errors():
        settings = get_settings()
        queue = JobQueue.for_settings(settings)
        worker = Worker.for_settings(settings, queue=queue)
        try:
            rep = worker.drain().to_dict()
        finally:
            worker.close()
        rep["counts"] = queue.counts()
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
    with one_line_errors():
        queue = _queue()
        try:
            rep = retry_jobs(queue, job_id)
        except (IdNotFoundError, AmbiguousIdError, NotDeadError) as exc:
            fail(str(exc.args[0]), 2)
    if as_json:
        typer.echo(json.dumps(rep))
    else:
        out.print(f"requeued {rep['requeued']} job(s)")
