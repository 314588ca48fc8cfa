"""Stopping cleanly: SIGINT/SIGTERM unwind the run (transactions roll back), and a Prefect server the
CLI starts (the temporary one of a run, or `serve`'s) never outlives it, however it ends (kill -9
included)."""
from __future__ import annotations

import atexit
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from warehouse import settings
from warehouse.errors import ExpectedFailure, Interrupted

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
PR_SET_PDEATHSIG = 1  # linux/prctl.h


_signalled: list[int] = []

# A notification a signal cut short: (targets that had received it, targets), said by the interrupted
# command's line. A run notifies after its loads committed, so its writer lock's "cut short" is no
# rolled-back load then.
_notifications_cut_short: list[tuple[int, int]] = []


def notification_cut_short(reached: int, targets: int) -> None:
    _notifications_cut_short.append((reached, targets))


def cut_short_notification() -> tuple[int, int] | None:
    """(targets reached, targets) of the notification a signal stopped in this process, or None."""
    return _notifications_cut_short[-1] if _notifications_cut_short else None


def _raise_interrupted(signum, _frame):
    _signalled.append(signum)
    raise Interrupted(signum)


def signalled() -> int | None:
    """The signal that stopped this command, if one did (since stop_on_signals began)."""
    return _signalled[-1] if _signalled else None


def note_if_signal(exc: BaseException) -> None:
    """Prefect's TerminationSignal (its SIGTERM bridge inside a flow run, before our handler gets
    the signal re-sent) stops this command as our own handler does: noted, so that no transaction
    commits after it (db.transaction) while it unwinds."""
    signum = getattr(exc, "signal", None)
    if type(exc).__name__ == "TerminationSignal" and signum in STOP_SIGNALS and signum not in _signalled:
        _signalled.append(signum)


def raise_if_signalled(exc: BaseException) -> None:
    """DuckDB stops a running statement on a signal and raises its own error ("Query
    interrupted"); after a signal, any error is the interrupt, and must not be taken for a bad
    round and the run go on."""
    if _signalled and not isinstance(exc, Interrupted):
        raise Interrupted(_signalled[-1]) from exc


def forget_signals() -> None:
    """A new command starts: the signal that stopped an earlier one in this process (the tests run
    many) stops nothing of this one (db.transaction writes nothing once a signal stopped its command)."""
    _signalled.clear()
    _notifications_cut_short.clear()


@contextmanager
def stop_on_signals():
    """SIGINT and SIGTERM raise Interrupted in the main thread for the duration of the block.

    Inside a flow run Prefect swaps in its own SIGTERM bridge; when its TerminationSignal leaves
    the outermost flow, Prefect restores this handler and re-sends the signal, so it lands here.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    forget_signals()
    previous = {s: signal.signal(s, _raise_interrupted) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def die_with_parent(parent_pid: int, signum: int = signal.SIGKILL):
    """preexec_fn: the child gets `signum` when the thread that started it dies (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signum)
        if os.getppid() != parent_pid:  # the parent died before prctl took effect
            os._exit(1)
    return preexec


_tied: list[subprocess.Popen] = []
_tied_server_started = False
_nothing_to_flush = False


def leave_at_once_if_interrupted() -> None:
    """For a run without Prefect (flows/local_runs.py): after an interrupt the console script leaves
    as soon as the warehouse is closed. No Prefect logs or events wait to be sent, and a task thread
    still fetching (up to its read timeout) must not hold the exit."""
    global _nothing_to_flush
    _nothing_to_flush = True


class _TiedSubprocess:
    """`subprocess` as Prefect's server module sees it: every process it starts is tied to us."""

    def __getattr__(self, name):
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args, **kwargs):  # noqa: N802 - stands in for subprocess.Popen
        # Its own session: a terminal's Ctrl-C reaches the CLI, which then stops the server itself
        # (Prefect's atexit), instead of the server dying first under a client still talking to it.
        process = subprocess.Popen(*args, preexec_fn=die_with_parent(os.getpid()), start_new_session=True,
                                   **kwargs)
        _tied.append(process)
        return process


def _kill_tied_processes_if_interrupted() -> None:
    """At exit after an interrupt, the temporary server is killed instead of stopped gracefully
    (uvicorn's graceful stop takes seconds; the server holds nothing of the warehouse's). Registered
    after the server starts, so it runs after Prefect's log and event workers have flushed to it
    and before Prefect's own graceful stop."""
    if not _signalled:
        return
    for process in _tied:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=5)


def exit_now_if_interrupted(code: int) -> None:
    """For the console script only: after an interrupt, with the temporary server ours (it dies
    with us) or no Prefect in the run, leave at once instead of flushing Prefect's logs and events to
    it at exit. The warehouse is already closed: every connection is a `with` block the interrupt
    unwound."""
    if not _signalled or not (_tied or _nothing_to_flush):
        return
    _kill_tied_processes_if_interrupted()
    _flush_standard_streams()
    os._exit(code)


def exit_without_teardown(code: int) -> None:
    """For the console script: end as sys.exit would, less the interpreter's teardown. Threads are
    joined and the exit handlers run (Prefect sends its last logs and events and stops its temporary
    server; logging flushes), the standard streams are flushed, and then the process ends without
    freeing one by one the objects its modules built (0.04 s of every command)."""
    join_threads = getattr(threading, "_shutdown", None)  # what the interpreter's exit does first
    if join_threads is None:
        sys.exit(code)
    join_threads()
    atexit._run_exitfuncs()
    _flush_standard_streams()
    os._exit(code)


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that left (`| head`), a closed stream: as at any exit
            pass


def uses_ephemeral_server() -> bool:
    from prefect.settings import get_current_settings
    settings = get_current_settings()
    return not settings.api.url and settings.server.ephemeral.enabled


def start_prefect_server_tied_to_this_process() -> None:
    """Start Prefect's temporary API server now, from the main thread (the thread whose death
    kills it), so it can never outlive this process. No-op with PREFECT_API_URL set."""
    global _tied_server_started
    if not sys.platform.startswith("linux") or not uses_ephemeral_server():
        return
    if threading.current_thread() is not threading.main_thread() or _tied_server_started:
        return
    from prefect.server.api import server as server_module
    server_module.subprocess = _TiedSubprocess()
    # A first start migrates a new Prefect database: on a busy machine that outlasts Prefect's
    # default 20 s. MLPERF_PREFECT_STARTUP_TIMEOUT (120 s) bounds it instead.
    timeout = int(settings.current().prefect_startup_timeout)
    try:
        server_module.SubprocessASGIServer().start(timeout=timeout)
    except RuntimeError as exc:
        raise ExpectedFailure(f"Prefect's temporary API server did not start within {timeout} s "
                              f"(MLPERF_PREFECT_STARTUP_TIMEOUT; or set PREFECT_API_URL): "
                              f"{str(exc).splitlines()[0]}") from exc
    atexit.register(_kill_tied_processes_if_interrupted)
    _tied_server_started = True


# `prefect server start` ends at once on SIGTERM (0.2 s measured), as `kill` stops it; its graceful
# stop on SIGINT took 2-4 s here, most of the 5 s a Ctrl-C of `serve` may take. Its database is
# SQLite: what it committed stays.
SERVER_STOP_SIGNAL, SERVER_STOP_GRACE = signal.SIGTERM, 3.0


@contextmanager
def prefect_server_on(port: int, log: Path):
    """`prefect server start` on 127.0.0.1:`port` (API and UI) for the block -> its API URL; its
    output goes to `log`. In a session of its own, so a terminal's Ctrl-C reaches only the CLI,
    which stops what uses the server first and the server last, when the block ends; killed with
    the CLI if the CLI is killed."""
    url = f"http://127.0.0.1:{port}"
    if not _port_free(port):
        raise ExpectedFailure(f"127.0.0.1:{port} is in use (a Prefect server already?): serve to it "
                              f"with PREFECT_API_URL={url}/api, or choose another --server-port")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent(os.getpid()), start_new_session=True)
    try:
        _wait_until_healthy(f"{url}/api", process, log)
        yield f"{url}/api"
    finally:
        stop_process_group(process, SERVER_STOP_SIGNAL, SERVER_STOP_GRACE)


def _port_free(port: int) -> bool:
    import socket
    with socket.socket() as sock:
        # As the server binds it: connections of an earlier server still closing do not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _wait_until_healthy(api_url: str, process: subprocess.Popen, log: Path) -> None:
    import requests
    timeout = settings.current().prefect_startup_timeout
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if process.poll() is not None:
            last = (log.read_text(errors="replace").strip().splitlines() or ["no output"])[-1]
            raise ExpectedFailure(f"the Prefect server exited with {process.returncode} while starting: "
                                  f"{last} (its log: {log})")
        try:
            if requests.get(f"{api_url}/health", timeout=2).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise ExpectedFailure(f"the Prefect server did not answer within {timeout:.0f} s "
                          f"(MLPERF_PREFECT_STARTUP_TIMEOUT; its log: {log})")


def stop_process_group(process: subprocess.Popen, signum: int, grace: float) -> None:
    """`signum` to the process's group, SIGKILL to the group after `grace` seconds."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signum)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)
