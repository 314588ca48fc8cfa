"""Fault suite, git on the network (`trees --git`, issue 61): a server that takes a connection and
never answers, an ssh port that never sends its banner, an address that never takes a connection:
each ends the run within its documented budget (MLPERF_GIT_CONNECT_TIMEOUT, MLPERF_GIT_LOW_SPEED_TIME,
MLPERF_GIT_DEADLINE) in one line, and the clone runs before the writer lock is taken, so a backfill
beside it loads meanwhile. Real git and ssh against real sockets on 127.0.0.1; small budgets."""
from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import MIRROR
from tests.faults import one_error_line
from tests.test_faults_git import COMMAND, REPOSITORY, home  # noqa: F401 - home: a fixture
from warehouse.identity.rounds import load_registry
from warehouse.trees.cloning import CloneFailed, clone_round

BUDGET = 4  # seconds: the connect and low-speed limits the tests give git
SLACK = 6   # seconds on top: git's and the CLI's start, a busy machine


class Silent:
    """A listener on 127.0.0.1 that takes every connection and never says a word."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.heard = threading.Event()  # a client connected and said something (an HTTP request, ssh's banner)
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(connection)
            threading.Thread(target=self._listen, args=(connection,), daemon=True).start()

    def _listen(self, connection: socket.socket) -> None:
        try:
            while connection.recv(4096):
                self.heard.set()
        except OSError:
            pass

    def close(self) -> None:
        self.socket.close()
        for connection in self.held:
            connection.close()


@contextmanager
def silent():
    listener = Silent()
    try:
        yield listener
    finally:
        listener.close()


@contextmanager
def never_connecting():
    """A port whose queue of connections is full: a connect to it waits (its SYN is dropped), as to
    an address that does not answer."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    queued = []
    for _ in range(4):
        client = socket.socket()
        client.setblocking(False)
        client.connect_ex(("127.0.0.1", port))
        queued.append(client)
    time.sleep(0.3)
    try:
        yield port
    finally:
        for client in queued:
            client.close()
        server.close()


def budget_env(tmp_path: Path, **more: str) -> dict:
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "MLPERF_PREFECT_TEMPORARY_SERVER": "0",
           "MLPERF_GIT_CONNECT_TIMEOUT": str(BUDGET), "MLPERF_GIT_LOW_SPEED_TIME": str(BUDGET), **more}
    env.pop("PREFECT_API_URL", None)
    return env


def silent_url(scheme: str, server: Silent) -> str:
    return f"http://127.0.0.1:{server.port}" if scheme == "http" else f"ssh://git@127.0.0.1:{server.port}/org"


class TreesRun:
    """`mlperf-wh trees --git URL` in a process of its own, waited for in a thread: when it ended."""

    def __init__(self, url: str, db_file: Path, env: dict) -> None:
        self.process = subprocess.Popen([str(COMMAND), "trees", "--rounds", "v0.5", "--git", url, "--db", str(db_file)],
                                        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.ended: float | None = None
        self.said = ""
        self.waiter = threading.Thread(target=self._wait, daemon=True)
        self.waiter.start()

    def _wait(self) -> None:
        _, self.said = self.process.communicate()
        self.ended = time.monotonic()

    def finish(self, seconds: float) -> None:
        self.waiter.join(seconds)
        if self.process.poll() is None:
            self.process.kill()
            self.waiter.join(5)


@contextmanager
def trees_against_silent(scheme: str, tmp_path: Path):
    """A silent server, and a trees run cloning from it that has connected and is waiting on it:
    (url, run, when it connected)."""
    with silent() as server:
        url = silent_url(scheme, server)
        run = TreesRun(url, tmp_path / "w.duckdb", budget_env(tmp_path))
        try:
            assert server.heard.wait(60), run.said
            connected = time.monotonic()
            assert run.process.poll() is None  # git is waiting on the server
            yield url, run, connected
        finally:
            run.finish(60)


def ended_in_one_line(url: str, run: TreesRun, connected: float) -> None:
    line = one_error_line(run.said)
    assert run.process.returncode == 1 and url in line and "MLPERF_GIT_" in line, run.said
    assert run.ended is not None and run.ended - connected < BUDGET + SLACK, run.ended - connected


@pytest.mark.slow
@pytest.mark.timeout(90)
@pytest.mark.parametrize("scheme", ["http", "ssh"])
def test_a_silent_server_ends_the_run_within_its_budget_in_one_line(scheme, tmp_path, home):
    with trees_against_silent(scheme, tmp_path) as (url, run, connected):
        run.finish(60)
    ended_in_one_line(url, run, connected)


@pytest.mark.slow  # a backfill of v6.0 beside it: 10-20 s
@pytest.mark.timeout(120)
@pytest.mark.parametrize("scheme", ["http", "ssh"])
def test_a_backfill_takes_the_lock_while_a_clone_waits_on_a_silent_server(scheme, tmp_path, home, plain_cli,
                                                                          monkeypatch):
    monkeypatch.setenv("MLPERF_WRITER_WAIT", "0")  # refused at once if the trees run held the lock
    with trees_against_silent(scheme, tmp_path) as (url, run, connected):
        started = time.monotonic()
        code, out, err = plain_cli("backfill", "--rounds", "v6.0", "--source", MIRROR, "--db", tmp_path / "w.duckdb")
        run.finish(60)
    assert code == 0 and "loaded" in out, (out, err)
    assert run.ended is not None and started < run.ended  # the backfill began while git waited
    ended_in_one_line(url, run, connected)


@pytest.mark.timeout(60)
@pytest.mark.slow
def test_a_server_that_never_takes_the_connection_ends_the_clone_in_the_connect_timeout(tmp_path, home, monkeypatch):
    """git (libcurl) would wait 300 s for a connection, per request; the run asks first."""
    monkeypatch.setenv("MLPERF_GIT_CONNECT_TIMEOUT", "2")
    with never_connecting() as port:
        started = time.monotonic()
        with pytest.raises(CloneFailed, match="MLPERF_GIT_CONNECT_TIMEOUT") as failed:
            clone_round(f"http://127.0.0.1:{port}", load_registry()["v0.5"], tmp_path / "trees")
        took = time.monotonic() - started
    assert took < 2 + SLACK and f"127.0.0.1:{port}" in str(failed.value)
    assert [p.name for p in (tmp_path / "trees").iterdir()] == [f".{REPOSITORY}.lock"]


@pytest.mark.timeout(60)
@pytest.mark.slow
def test_the_ssh_options_are_numbers_the_run_gives_never_a_users_command(tmp_path, home, monkeypatch):
    """GIT_SSH_COMMAND is run by a shell: only numbers of the run's own reach it; a GIT_SSH_COMMAND,
    GIT_SSH or core.sshCommand of the user's environment is not what runs."""
    marker = tmp_path / "marker"
    monkeypatch.setenv("GIT_SSH_COMMAND", f"touch {marker}; ssh")
    monkeypatch.setenv("GIT_SSH", str(tmp_path / "evil-ssh"))
    monkeypatch.setenv("MLPERF_GIT_CONNECT_TIMEOUT", "2")
    (home / ".gitconfig").write_text(f"[core]\n\tsshCommand = touch {marker}; ssh\n")
    with silent() as server:
        with pytest.raises(CloneFailed, match="MLPERF_GIT_CONNECT_TIMEOUT"):
            clone_round(f"ssh://git@127.0.0.1:{server.port}/org", load_registry()["v0.5"], tmp_path / "trees")
    assert not marker.exists()


@pytest.mark.unit
def test_a_setting_that_is_not_a_number_never_reaches_the_ssh_command(monkeypatch):
    from warehouse.settings import SettingsError, current
    monkeypatch.setenv("MLPERF_GIT_CONNECT_TIMEOUT", "5; touch /tmp/x")
    with pytest.raises(SettingsError, match="MLPERF_GIT_CONNECT_TIMEOUT"):
        current()
