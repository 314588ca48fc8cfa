"""Scheduled runs named before they start.

A flow's `flow_run_name` is applied when a run starts. Prefect 3 (3.9) has nothing that names the
runs its scheduler creates: `_generate_scheduled_flow_runs` (prefect/server/models/deployments.py)
builds them without a name, so each gets a random slug (`glorious-eagle`), and neither a deployment
nor a schedule has a name field. Only whoever creates a run can name it (`prefect deployment run
--flow-run-name`, `run_deployment(flow_run_name=...)`). So the scheduled runs are named right after
they are created: this asks the API to create a deployment's upcoming runs now (the scheduler's own
call, idempotent: the same runs it would create, never twice) and gives each the name it will start
with. `serve` does it as it starts; every watch-rounds run does it for its deployment: Prefect keeps
3 runs ahead (PREFECT_API_SERVICES_SCHEDULER_MIN_RUNS), so the run that replaces the one just begun
is created, and named, by the run itself, days before it starts.
"""
from __future__ import annotations

import datetime as dt
from typing import Callable
from uuid import UUID

from flows.steps import in_plain_run


def name_scheduled_runs(deployment_id: UUID, name_for: Callable[[dt.datetime], str]) -> int:
    """Create the deployment's upcoming runs now and name each `name_for(its start time)`;
    how many were renamed."""
    from prefect import get_client
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterId,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    with get_client(sync_client=True) as client:
        client.request("POST", "/deployments/{id}/schedule", path_params={"id": deployment_id},
                       json={}).raise_for_status()
        runs = client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])),
            flow_run_filter=FlowRunFilter(state=FlowRunFilterState(
                type=FlowRunFilterStateType(any_=[StateType.SCHEDULED]))))
        renamed = 0
        for run in runs:
            name = name_for(run.expected_start_time)
            if run.name != name:
                client.update_flow_run(run.id, name=name)
                renamed += 1
    return renamed


def name_this_deployments_runs(name_for: Callable[[dt.datetime], str]) -> None:
    """Inside a flow run: name the upcoming runs of its deployment (none when it runs without one,
    as `mlperf-wh watch` does). A failure is a warning: the run's own work is done either way."""
    if in_plain_run():
        return
    from prefect import get_run_logger
    from prefect.runtime import deployment
    try:
        if deployment.id:
            name_scheduled_runs(UUID(str(deployment.id)), name_for)
    except Exception as exc:  # noqa: BLE001 - naming is a courtesy; the run must not fail for it
        get_run_logger().warning("could not name the upcoming runs: %s", exc)
