"""Commands that run on a schedule: `watch` (the watcher, once, here), `serve` (both deployments to a
Prefect server), `schedule` (the backfill alone on a cron); and keeping Prefect's console quiet."""
from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from warehouse import settings
from warehouse.cli.build import (RunFormat, Source, Strict, chosen_source, print_run, probe_source,
                                 run_failure_notified, start_temporary_server_if_needed)
from warehouse.cli.console import Format, note, say, warn
from warehouse.cli.global_options import command, current
from warehouse.cli.progress import step
from warehouse.errors import EXIT_OK, ExpectedFailure, UsageError

DEFAULT_CRON = settings.default("watch_cron")


QUIET_CONSOLE_LEVELS = tuple(f"PREFECT_LOGGING_HANDLERS_{handler}_LEVEL" for handler in ("CONSOLE", "CONSOLE_FLOW_RUNS"))


@contextmanager
def quiet_prefect_console(verbose: bool):
    """The screen gets the run report and our one-line errors; Prefect's per-task lines still reach
    the Prefect API (the UI's logs), and reach the screen with -v. Enter before Prefect is imported.
    On the way out the environment is as it was: a later command of this process, or a process
    started after it, is not quieted by this one (a -v after a quiet command shows its lines)."""
    before = {name: os.environ.get(name) for name in QUIET_CONSOLE_LEVELS}
    if not verbose:
        # Prefect's logging.yml: `console` (its own messages) and `console_flow_runs` (flow and task
        # runs' lines) are separate handlers.
        # A failed round is already one line of ours (and a Failed run in the API): Prefect's own
        # ERROR lines about it would repeat it on the screen.
        for name in QUIET_CONSOLE_LEVELS:
            os.environ.setdefault(name, "CRITICAL")
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def register(app: typer.Typer) -> None:
    command(app, "watch", "mlperf-wh watch", "mlperf-wh watch --source ../shared/mlcommons/mirror --strict")(watch)
    command(app, "serve", "mlperf-wh serve   (and a Prefect server of its own: UI at 127.0.0.1:4200)",
            "PREFECT_API_URL=http://127.0.0.1:4200/api mlperf-wh serve --cron \"0 6 * * 1\"")(serve)
    command(app, "schedule", "mlperf-wh schedule --cron \"0 6 * * *\"")(schedule)


def watch(strict: Strict = False, source: Source = None, fmt: RunFormat = Format.table) -> int:
    """Look for new or changed rounds once, as the scheduled watcher does, and load them."""
    from flows.look_first import unless_changed
    from warehouse.identity.round_table import rounds_to_watch
    from warehouse.store import db
    with run_failure_notified("watch"):
        source = chosen_source(source, probe=False)
        db_file = db.db_path(current().db)
        unchanged = unless_changed(rounds_to_watch, source, db_file, "watch", views_must_be_current=False)
        if unchanged is not None:
            return print_run(unchanged, source, strict, fmt)
        probe_source(source)
        from flows.watch import watch_once
        start_temporary_server_if_needed()
        with step("looking for new rounds and loading them"):
            report = watch_once(source, db_file)
    return print_run(report, source, strict, fmt)


def serve(
    cron: Annotated[str, typer.Option("--cron", envvar="MLPERF_WATCH_CRON", help=(
        "when the watcher looks for rounds (daily 06:00 UTC by default)"))] = DEFAULT_CRON,
    source: Source = None,
    server_port: Annotated[int, typer.Option("--server-port", min=1, max=65535, help=(
        "without PREFECT_API_URL: the port of the Prefect server serve starts on 127.0.0.1 "
        "(API and UI; stopped after the deployments)"))] = 4200,
) -> int:
    """Serve the watch-rounds (cron) and backfill deployments to the Prefect server PREFECT_API_URL
    names, or to one it starts (and stops after them)."""
    check_cron(cron)
    api_url = os.environ.get("PREFECT_API_URL")
    if api_url:
        check_prefect_api(api_url)
    from flows.watch import serve_deployments
    with prefect_api(api_url, server_port) as (api_url, started):
        ui = f" (a Prefect server it started; UI at {api_url.removesuffix('/api')})" if started else ""
        stopped = serve_deployments(cron, source, current().db, on_serving=lambda: serving_line(
            f"serving watch-rounds (cron {cron!r}) and backfill against {api_url}{ui}"))
    return report_stop(stopped, "the Prefect server it started is stopped" if started else "")


def schedule(
    cron: Annotated[str, typer.Option("--cron", help=(
        "when to look for new rounds (daily 06:00 UTC by default; rounds are published twice a year, and "
        "unchanged files are skipped cheaply)"))] = DEFAULT_CRON,
    source: Source = None,
) -> int:
    """Serve the backfill alone as a Prefect deployment on a cron schedule."""
    check_cron(cron)
    if os.environ.get("PREFECT_API_URL"):
        check_prefect_api(os.environ["PREFECT_API_URL"])
    from warehouse.interrupt import start_prefect_server_tied_to_this_process
    start_prefect_server_tied_to_this_process()

    from flows.ingest import serve_backfill
    return report_stop(serve_backfill(cron, source, current().db, on_serving=lambda: serving_line(
        f"serving the backfill on cron {cron!r}")))


def serving_line(what: str) -> None:
    """Said once the deployments are served: from then on Ctrl-C stops them gracefully."""
    say(f"{what}; stop with Ctrl-C")
    sys.stdout.flush()


@contextmanager
def prefect_api(api_url: str | None, port: int):
    """(the API URL, whether serve started its server) for the block: PREFECT_API_URL's server, or
    `prefect server start` on `port`, stopped when the block ends (after what used it)."""
    if api_url:
        yield api_url, False
        return
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    from warehouse.interrupt import prefect_server_on
    log = Path(get_current_settings().home) / f"serve-server-{port}.log"
    say(f"starting a Prefect server on 127.0.0.1:{port} (its log: {log})")
    sys.stdout.flush()
    with prefect_server_on(port, log) as started, temporary_settings({PREFECT_API_URL: started}):
        os.environ["PREFECT_API_URL"] = started  # the flow runs' processes read it there
        try:
            yield started, True
        finally:
            del os.environ["PREFECT_API_URL"]


def report_stop(stopped, server: str = "") -> int:
    """One line saying how serving stopped -> the exit code: 0, or 128 + the signal when runs in
    flight were cancelled (their work was cut short)."""
    if stopped.signum is None:
        raise ExpectedFailure("serving ended without being asked to stop")
    runs = (f"cancelled the runs in flight: {', '.join(stopped.cancelled)} (the rounds they loaded are kept, "
            "a load cut short is rolled back: rerun them to finish)" if stopped.cancelled else "no run was in flight")
    line = "; ".join([f"stopped by {signal.Signals(stopped.signum).name}", runs,
                      "the deployments it served are paused until it serves again", *([server] if server else [])])
    if stopped.cancelled:
        warn(line)
        return 128 + stopped.signum
    note(line)
    return EXIT_OK


def check_cron(cron: str) -> None:
    """A cron expression Prefect would refuse is a usage error now, not a traceback once serving."""
    from prefect.client.schemas.schedules import CronSchedule
    from pydantic import ValidationError
    try:
        CronSchedule(cron=cron)
    except ValidationError:
        raise UsageError(f"--cron {cron!r}: not a cron expression (five fields, e.g. \"0 6 * * 1\")") from None


def check_prefect_api(api_url: str, timeout: float = 5.0) -> None:
    """The Prefect API answers its health check, or one line saying it does not."""
    import requests
    try:
        requests.get(f"{api_url.rstrip('/')}/health", timeout=timeout).raise_for_status()
    except requests.RequestException as exc:
        raise ExpectedFailure(f"the Prefect API at {api_url} (PREFECT_API_URL) does not answer "
                              f"({type(exc).__name__}); start it with `prefect server start`") from None
