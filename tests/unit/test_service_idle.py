"""The service's idle stop: not while a request or an extraction job runs, then on time.

The watchdog of ``memagent.graph.service.server.Service`` driven directly, with a
stand-in for the resources whose job queue is busy or not (the multi-terminal
integration tests check the idle stop of a real service process).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from memagent.graph.service.paths import ServicePaths
from memagent.graph.service.server import Service
from memagent.graph.settings import Settings


class Jobs:
    def __init__(self) -> None:
        self.busy = True

    def jobs_busy(self) -> bool:
        return self.busy


def service(tmp_path: Path) -> tuple[Service, Jobs]:
    svc = Service(Settings(home=tmp_path, service_idle_s=0.2), ServicePaths(tmp_path))
    jobs = Jobs()
    svc._res = jobs  # type: ignore[assignment]
    svc._stopping = asyncio.Event()
    return svc, jobs


async def test_a_running_job_keeps_the_service_up(tmp_path: Path) -> None:
    svc, jobs = service(tmp_path)
    watchdog = asyncio.create_task(svc._watch_idle())
    await asyncio.sleep(0.8)  # four idle periods
    assert svc._stopping is not None and not svc._stopping.is_set()
    jobs.busy = False
    await asyncio.wait_for(svc._stopping.wait(), 10)
    await watchdog


async def test_a_request_in_flight_keeps_the_service_up(tmp_path: Path) -> None:
    svc, jobs = service(tmp_path)
    jobs.busy = False
    svc.active = 1  # a turn streaming its reply
    watchdog = asyncio.create_task(svc._watch_idle())
    await asyncio.sleep(0.8)
    assert svc._stopping is not None and not svc._stopping.is_set()
    svc.active = 0
    await asyncio.wait_for(svc._stopping.wait(), 10)
    await watchdog
