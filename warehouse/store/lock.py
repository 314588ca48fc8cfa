"""One writer at a time: a run that finds the warehouse being written waits, bounded, then fails
with a message naming the run that holds it.

DuckDB itself lets one process write a database file; a second writer fails at once. The lock
file beside the warehouse (`<db>.lock`, an flock, released by the kernel even if its holder is
killed) turns that into a bounded wait, and says who holds it.

Not py-filelock: its Unix lock opens the file with O_TRUNC on every attempt, so each waiter would
erase the holder's name that this lock keeps in the file.
"""
from __future__ import annotations

import fcntl
import os
import socket
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from warehouse import settings
from warehouse.errors import ExpectedFailure
from warehouse.store.checked import CheckedWarehouse, checked
from warehouse.store.paths import HOLDER_MAX, open_lock

POLL_SECONDS = 0.1


class WarehouseBusy(ExpectedFailure):
    """Another run held the warehouse for longer than this one would wait."""


def wait_seconds() -> float:
    return settings.current().writer_wait


def lock_path(db_file: str) -> Path:
    return Path(f"{db_file}.lock")


@dataclass
class Held:
    waited_seconds: float
    waited_for: str | None      # the holder this run waited for, if any
    warehouse: CheckedWarehouse  # the path as checked: what the steps under the lock open


def _describe_self(what: str) -> str:
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"pid {os.getpid()} on {socket.gethostname()} ({what}, since {started})"


def holder_of(fd: int) -> str:
    """The holder's line, read through the lock's own descriptor (never the path again)."""
    try:
        return os.pread(fd, HOLDER_MAX, 0).decode("utf-8", errors="replace").strip() or "another process"
    except OSError:
        return "another process"


# What this process has held the writer lock for, and the transactions an interrupt rolled back
# (db.transaction): an interrupted command says which of the two happened, if any.
WRITES_BEGUN: list[str] = []
WRITES_CUT_SHORT: list[str] = []
# The transactions open in this process, in any thread (db.transaction): a round's load runs in a
# task thread while the thread holding the lock is the one a signal stops.
IN_FLIGHT: dict[object, tuple] = {}  # -> (its DuckDB connection, what it writes)
STOP_WAIT_SECONDS = 5.0


@contextmanager
def writer(db_file: str | CheckedWarehouse, what: str, timeout: float | None = None,
           on_wait: Callable[[str], None] | None = None):
    """Hold the warehouse's writer lock for the block; yields how long it waited, for whom, and the
    warehouse checked (warehouse.store.checked): a path is checked before the lock file is made, a
    handle is not checked again, unless the run waited for another writer (it wrote what was checked)."""
    timeout = wait_seconds() if timeout is None else timeout
    warehouse = checked(db_file)
    fd = open_lock(lock_path(warehouse.path))
    started, waited_for = time.monotonic(), None
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if waited_for is None:
                    waited_for = holder_of(fd)
                    (on_wait or _to_stderr)(f"waiting up to {timeout:.0f} s for the warehouse {db_file}: "
                                            f"it is being written by {waited_for}")
                if time.monotonic() - started >= timeout:
                    raise WarehouseBusy(
                        f"the warehouse {db_file} is being written by {holder_of(fd)}; gave up "
                        f"after waiting {timeout:.0f} s (MLPERF_WRITER_WAIT sets the wait)") from None
                time.sleep(POLL_SECONDS)
        if waited_for is not None:  # the run it waited for wrote the files the first check saw
            warehouse = CheckedWarehouse(warehouse.path)
        os.ftruncate(fd, 0)
        os.pwrite(fd, _describe_self(what).encode(), 0)
        WRITES_BEGUN.append(what)
        try:
            yield Held(time.monotonic() - started if waited_for else 0.0, waited_for, warehouse)
        except BaseException as exc:
            stop_writes_in_flight(exc)
            raise
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def stop_writes_in_flight(exc: BaseException) -> None:
    """After a signal, before the lock is let go: the transactions still open in other threads (a
    round's load in a task thread) are interrupted and waited for, at most STOP_WAIT_SECONDS; none
    commits after the signal (db.transaction), so each rolls back and the line says so. Without a
    signal (an error), nothing is stopped: the other threads' own errors say what happened."""
    from warehouse.interrupt import note_if_signal, signalled
    note_if_signal(exc)
    if signalled() is None:
        return
    give_up = time.monotonic() + STOP_WAIT_SECONDS
    while IN_FLIGHT and time.monotonic() < give_up:
        for con, _ in list(IN_FLIGHT.values()):
            con.interrupt()
        time.sleep(0.01)
    # Still open (a thread busy outside DuckDB): it cannot commit any more, so it is rolled back.
    WRITES_CUT_SHORT.extend(what for _, what in list(IN_FLIGHT.values()))


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
