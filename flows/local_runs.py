"""Flow runs this process starts and waits for (`mlperf-wh backfill`, `ingest`, `watch`, `trees`):
the Prefect settings they run with, in one place.

- No flow-run heartbeats (PREFECT_FLOWS_HEARTBEAT_FREQUENCY: Prefect sends one every 180 s by default).
  Heartbeats let a server mark a run Crashed when the process running it dies unseen; here the run
  is this process and its exit code says how it ended. They cost every run up to a second: the
  heartbeat thread sleeps in one-second steps and the run joins it before it ends
  (prefect/flow_engine.py `_send_heartbeats`). Runs of the served deployments (`mlperf-wh serve`)
  keep them; so does a CLI run when PREFECT_FLOWS_HEARTBEAT_FREQUENCY is set.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

HEARTBEAT_ENV = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")


@contextmanager
def local_settings():
    if any(name in os.environ for name in HEARTBEAT_ENV):
        yield
        return
    from prefect.context import SettingsContext, get_settings_context
    context = get_settings_context()
    # A copy with the one field changed: temporary_settings() would rebuild and validate every
    # setting from the environment and files again (40 ms a run here).
    settings = context.settings.model_copy(update={"flows": context.settings.flows.model_copy(
        update={"heartbeat_frequency": None})})
    with SettingsContext(profile=context.profile, settings=settings):
        yield


def run_here(flow, *args, **kwargs):
    """Call `flow` (a Prefect flow, or a function that runs one) here, with the settings above; the
    garbage collector, paused while the CLI's modules loaded, resumes for the run (warehouse/startup.py)."""
    from warehouse import collector
    collector.resume()
    with local_settings():
        return flow(*args, **kwargs)
