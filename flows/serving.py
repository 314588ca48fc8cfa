"""Serving deployments from this process (`mlperf-wh serve`, `schedule`) until SIGINT or SIGTERM.

Prefect's own `serve()` stops gracefully on SIGTERM only. On Ctrl-C it let KeyboardInterrupt (here:
Interrupted) unwind through its event loop, whose teardown then paused the schedules and closed the
runner's services against an API that, under `make serve`, had received the same Ctrl-C and was
gone: each call retried for about a minute (65 s measured). Here SIGINT stops the runner exactly as
SIGTERM does: the runs in flight are cancelled, the schedules paused and the runner's services
closed while the API still answers; the caller stops the API after.
"""
from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass, field
from typing import Callable
from uuid import UUID

from prefect.runner import Runner

from warehouse.errors import Interrupted

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class Stopped:
    """How serving ended: the signal that stopped it, and the runs it cancelled (their names)."""
    signum: int | None = None
    cancelled: list[str] = field(default_factory=list)


class _Runner(Runner):
    """Prefect's Runner, stopping on SIGINT as it does on SIGTERM, and remembering what it stopped."""

    def __init__(self, **options):
        super().__init__(**options)
        self.stopped = Stopped()
        self.deployment_ids: list[UUID] = []
        self.on_serving: Callable[[], None] = lambda: None

    async def __aenter__(self):
        entered = await super().__aenter__()
        self.on_serving()  # from here a signal stops it gracefully
        return entered

    def handle_sigterm(self, signum: int = signal.SIGTERM, _frame=None) -> None:
        # Before serving, after, or a second signal while stopping: stop where it is.
        if not self.started or self.stopped.signum is not None:
            raise Interrupted(signum)
        self.stopped.signum = signum
        super().handle_sigterm()

    async def astop(self) -> None:
        self.stopped.cancelled = await _runs_in_flight(self.deployment_ids)
        await super().astop()


async def _runs_in_flight(deployment_ids: list[UUID]) -> list[str]:
    from prefect import get_client
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterId,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    async with get_client() as client:
        runs = await client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=deployment_ids)),
            flow_run_filter=FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(
                any_=[StateType.PENDING, StateType.RUNNING]))))
    return [run.name for run in runs]


def register(deployments: list) -> _Runner:
    """A runner holding `deployments`, each registered with the Prefect API (its id kept)."""
    runner = _Runner(pause_on_shutdown=True)
    runner.deployment_ids = [runner.add_deployment(d) for d in deployments]
    return runner


def serve_until_stopped(runner: _Runner, on_serving: Callable[[], None]) -> Stopped:
    """Run the runner's deployments until SIGINT or SIGTERM -> how it stopped; `on_serving()` once
    it serves. (The runner sets SIGTERM's handler itself when it starts.)"""
    runner.on_serving = on_serving
    previous = {s: signal.signal(s, runner.handle_sigterm) for s in STOP_SIGNALS}
    try:
        asyncio.run(runner.start())
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    _send_what_prefect_queued()
    return runner.stopped


def _send_what_prefect_queued(timeout: float = 2.0) -> None:
    """The logs and events Prefect still holds (the runner's lines about the runs it cancelled),
    sent while the API answers: at exit the server `serve` started is gone ("Error logging to API")."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    for worker in (APILogWorker, EventsWorker):
        worker.drain_all(timeout=timeout)
