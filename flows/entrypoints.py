"""Our deployable flows as Prefect loads them by entrypoint (prefect.yaml, the deployments
`mlperf-wh serve` and `schedule` register: flows/steps.py `FlowStep.to_deployment`): Prefect flows,
built from the declarations in flows/watch.py and flows/ingest.py, each under its function's name.
Prefect's loader runs this file; our own runs never import it."""
from __future__ import annotations

from flows.ingest import scheduled_backfill as _scheduled_backfill
from flows.watch import watch_rounds as _watch_rounds

watch_rounds = _watch_rounds.prefect
scheduled_backfill = _scheduled_backfill.prefect
