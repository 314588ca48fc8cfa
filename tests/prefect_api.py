"""The test session's Prefect API: what prefect_test_harness sets up, started from a migrated copy
of its database.

prefect_test_harness migrates an empty SQLite database at every start, about 10 of its 18 s on
these machines, and every pytest worker pays it. Here the first session keeps a snapshot of the
freshly migrated database (one per Prefect version, beside pytest's own temporary directories) and
later sessions start from a copy of it; Prefect's own start-up migration then finds nothing to do.
"""
from __future__ import annotations

import getpass
import os
import shutil
import sqlite3
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator


def template_dir() -> Path:
    """Where the migrated snapshots live: the per-user directory pytest keeps its runs in."""
    return Path(tempfile.gettempdir()) / f"pytest-of-{getpass.getuser()}" / "prefect-api"


@contextmanager
def prefect_api(startup_timeout: int = 120) -> Iterator[str]:
    """Start a Prefect API server on a private SQLite file and point this process at it; yields the
    API URL. Mirrors prefect.testing.utilities.prefect_test_harness (Prefect 3.x)."""
    import prefect
    import prefect.context
    import prefect.settings as ps
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.server.database.dependencies import temporary_database_interface

    workdir = Path(tempfile.mkdtemp(prefix="prefect-api-"))
    database = workdir / "prefect.db"
    template = template_dir() / f"prefect-{prefect.__version__}.db"
    if template.is_file():
        shutil.copyfile(template, database)
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, workdir, ignore_errors=True)
        stack.enter_context(temporary_database_interface())
        stack.enter_context(ps.temporary_settings(updates={
            ps.PREFECT_SERVER_DATABASE_CONNECTION_URL: f"sqlite+aiosqlite:///{database}",
            # Telemetry would look up a host this sandbox cannot resolve, at every start.
            ps.PREFECT_SERVER_ANALYTICS_ENABLED: False,
        }))
        server = SubprocessASGIServer(port=_free_port())
        # As the harness does: a flow that would start its own ephemeral server finds this one.
        prior_default = SubprocessASGIServer._instances.get(None)
        SubprocessASGIServer._instances[None] = server
        stack.callback(_restore_default, SubprocessASGIServer, prior_default)
        server.start(timeout=startup_timeout)
        stack.callback(server.stop)
        if not template.is_file():
            _keep_snapshot(database, template)
        stack.enter_context(ps.temporary_settings(updates={ps.PREFECT_API_URL: server.api_url}))
        # Threads Prefect starts later read the global settings context, not this thread's.
        stack.enter_context(prefect.context._temporary_global_settings_context(
            prefect.context.get_settings_context()))
        stack.callback(_drain_workers)
        yield server.api_url


def _drain_workers() -> None:
    """Send the logs and events still queued before the server stops (as the harness does)."""
    import inspect

    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def drain():
        try:
            result = APILogWorker.instance().drain()
            if inspect.isawaitable(result):
                await result
        except RuntimeError:  # never started
            pass
        result = EventsWorker.drain_all()
        if inspect.isawaitable(result):
            await result
    run_coro_as_sync(drain())


def _keep_snapshot(database: Path, template: Path) -> None:
    """A consistent copy of the running server's database (SQLite's backup API reads through its
    write-ahead log), renamed into place so a concurrent worker never reads half of it."""
    template.parent.mkdir(parents=True, exist_ok=True)
    partial = template.with_name(f"{template.name}.{os.getpid()}.partial")
    with sqlite3.connect(database) as source, sqlite3.connect(partial) as copy:
        source.backup(copy)
    os.replace(partial, template)


def _restore_default(server_class, prior) -> None:
    if prior is None:
        server_class._instances.pop(None, None)
    else:
        server_class._instances[None] = prior


def _free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
