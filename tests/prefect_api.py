"""The test session's Prefect API: the server prefect_test_harness starts, launched as soon as the
session knows it will need one and started from a migrated copy of its database.

- prefect_test_harness migrates an empty SQLite database at every start, about 10 of its 18 s on these
  machines, and every pytest worker pays it. Here the first session keeps a snapshot of the freshly
  migrated database (one per Prefect version, beside pytest's own temporary directories) and later
  sessions start from a copy of it; Prefect's own start-up migration then finds nothing to do.
- The server is the process Prefect's SubprocessASGIServer runs (uvicorn on create_app, the UI off),
  launched by this module without importing prefect.server here (2.4 s of a worker's CPU): the tests
  reach it over HTTP only, as a user's commands do. It is launched when collection ends
  (tests/conftest.py) and starts while the first tests run; the first test that needs it waits for
  its /health.
"""
from __future__ import annotations

import getpass
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator


def template_dir() -> Path:
    """Where the migrated snapshots live: the per-user directory pytest keeps its runs in."""
    return Path(tempfile.gettempdir()) / f"pytest-of-{getpass.getuser()}" / "prefect-api"


def _prefect_version() -> str:
    from importlib.metadata import version
    return version("prefect")


class LaunchedServer:
    """A Prefect API server process on a private SQLite file, launched and not yet waited for."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="prefect-api-"))
        self.database = self.workdir / "prefect.db"
        self.template = template_dir() / f"prefect-{_prefect_version()}.db"
        self.fresh = not self.template.is_file()
        if not self.fresh:
            shutil.copyfile(self.template, self.database)
        self.database_url = f"sqlite+aiosqlite:///{self.database}"
        self.process = self._launch()

    def _launch(self) -> subprocess.Popen:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/api"
        return subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "prefect.server.api.server:create_app",
             "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "error", "--lifespan", "on"],
            env={**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
                 "PREFECT__SERVER_FINAL": "1",
                 "PREFECT_SERVER_DATABASE_CONNECTION_URL": self.database_url,
                 # Telemetry would look up a host this sandbox cannot resolve, at every start.
                 "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})

    def wait_until_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() == 3:  # uvicorn: the port was taken since it was found free
                self.process = self._launch()
            elif self.process.poll() is not None:
                raise RuntimeError(f"the test session's Prefect API server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        else:  # prefect_api stops it
            raise RuntimeError(f"the test session's Prefect API server did not answer within {timeout} s")
        if self.fresh:
            _keep_snapshot(self.database, self.template)
            self.fresh = False

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextmanager
def prefect_api(server: LaunchedServer | None = None, startup_timeout: int = 120) -> Iterator[str]:
    """Point this process at a Prefect API server (`server`, or one launched now) for the block;
    yields the API URL. What prefect.testing.utilities.prefect_test_harness (Prefect 3.x) sets up,
    but its in-process database interface: nothing here reads Prefect's database but the server."""
    import prefect.context
    import prefect.settings as ps

    server = server or LaunchedServer()
    with ExitStack() as stack:
        stack.callback(server.stop)
        server.wait_until_healthy(startup_timeout)
        stack.enter_context(ps.temporary_settings(updates={
            ps.PREFECT_API_URL: server.url,
            ps.PREFECT_SERVER_DATABASE_CONNECTION_URL: server.database_url,  # where tests read what it stored
        }))
        # Threads Prefect starts later read the global settings context, not this thread's.
        stack.enter_context(prefect.context._temporary_global_settings_context(
            prefect.context.get_settings_context()))
        stack.callback(_drain_workers)
        yield server.url


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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
