"""Stopping cleanly: SIGINT/SIGTERM unwind the run (transactions roll back), and Prefect's temporary
server never outlives the CLI, however the CLI ends (kill -9 included)."""
from __future__ import annotations

import atexit
import ctypes
import os
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager

from warehouse import settings
from warehouse.errors import ExpectedFailure, Interrupted

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
PR_SET_PDEATHSIG = 1  # linux/prctl.h


_signalled: list[int] = []


def _raise_interrupted(signum, _frame):
    _signalled.append(signum)
    raise Interrupted(signum)


def raise_if_signalled(exc: BaseException) -> None:
    """DuckDB stops a running statement on a signal and raises its own error ("Query
    interrupted"); after a signal, any error is the interrupt, and must not be taken for a bad
    round and the run go on."""
    if _signalled and not isinstance(exc, Interrupted):
        raise Interrupted(_signalled[-1]) from exc


@contextmanager
def stop_on_signals():
    """SIGINT and SIGTERM raise Interrupted in the main thread for the duration of the block.

    Inside a flow run Prefect swaps in its own SIGTERM bridge; when its TerminationSignal leaves
    the outermost flow, Prefect restores this handler and re-sends the signal, so it lands here.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _signalled.clear()
    previous = {s: signal.signal(s, _raise_interrupted) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _die_with(parent_pid: int):
    """preexec_fn: the child gets SIGKILL when the thread that started it dies (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent_pid:  # the parent died before prctl took effect
            os._exit(1)
    return preexec


_tied: list[subprocess.Popen] = []
_tied_server_started = False


class _TiedSubprocess:
    """`subprocess` as Prefect's server module sees it: every process it starts is tied to us."""

    def __getattr__(self, name):
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args, **kwargs):  # noqa: N802 - stands in for subprocess.Popen
        # Its own session: a terminal's Ctrl-C reaches the CLI, which then stops the server itself
        # (Prefect's atexit), instead of the server dying first under a client still talking to it.
        process = subprocess.Popen(*args, preexec_fn=_die_with(os.getpid()), start_new_session=True,
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
    with us), leave at once instead of flushing Prefect's logs and events to it at exit. The
    warehouse is already closed: every connection is a `with` block the interrupt unwound."""
    if not _signalled or not _tied:
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
