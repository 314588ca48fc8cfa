"""Flow runs this process starts and waits for (`mlperf-wh backfill`, `ingest`, `watch`, `trees`):
whether they are Prefect flow runs, and the Prefect settings they run with, in one place.

- A Prefect flow run when a Prefect API is configured (PREFECT_API_URL, in the environment or the
  active Prefect profile): the server shows it. Without one, Prefect would start its temporary
  server for the run (about 4 s of CPU before the first task, more than a cold backfill's whole
  work), so the run is the same flow called plainly (flows/steps.py) and `mlperf-wh history` records
  it, with no flow run id. MLPERF_PREFECT_TEMPORARY_SERVER asks for the temporary server instead:
  the run is then a flow run, kept in Prefect's local database.
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

from flows.steps import call, plainly
from warehouse import settings
from warehouse.prefect_settings import api_configured

HEARTBEAT_ENV = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")


def orchestrated() -> bool:
    """Whether a run started here is a Prefect flow run (see the module's docstring)."""
    return api_configured() or settings.current().prefect_temporary_server


def temporary_server_needed() -> bool:
    """A run started here will be a flow run on Prefect's temporary server: no Prefect API is
    configured and MLPERF_PREFECT_TEMPORARY_SERVER asks for it."""
    from warehouse.interrupt import uses_ephemeral_server
    return settings.current().prefect_temporary_server and uses_ephemeral_server()


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
    """Call `flow` (a Prefect flow, or a function that runs one) here: as a Prefect flow run with the
    settings above, or plainly. The garbage collector, paused while the CLI's modules loaded,
    resumes for the run (warehouse/startup.py)."""
    from warehouse import collector
    collector.resume()
    if not orchestrated():
        from warehouse.interrupt import leave_at_once_if_interrupted
        leave_at_once_if_interrupted()
        with plainly():
            return call(flow, *args, **kwargs)
    # Prefect's logging (a flow run's lines on the console and sent to the API) is configured when
    # prefect.main is imported, which building our Prefect tasks and flows does not do.
    import prefect.main  # noqa: F401
    from warehouse.interrupt import start_prefect_server_tied_to_this_process
    start_prefect_server_tied_to_this_process()
    with local_settings():
        return flow(*args, **kwargs)
