"""Expected failures, their exit codes, and how the CLI reports them: the one table of exit codes.

| code | meaning |
| ---- | ------- |
| 0    | ok |
| 1    | a failure of the data, the source or the warehouse file (refused, rolled back, nothing lost); a `sql` query refused, or stopped at its time or memory limit |
| 2    | a usage error (a bad argument, round name, flag or MLPERF_* setting) |
| 70   | a bug: one line, and the traceback with `-v` or MLPERF_DEBUG=1 |
| 130  | interrupted by SIGINT (Ctrl-C); 143 by SIGTERM: the load in flight was rolled back (`serve`, `schedule`: runs in flight were cancelled; stopped with none, they exit 0) |

An expected failure prints one line, `error: ...`, on stderr. Everything else is a bug. Each domain
error derives from ExpectedFailure (or UsageError) where it is raised (a fetch, a parse, a guard, a
ledger file, a round name); warehouse.store.failures turns them into lines and exit codes. This module is
the ground floor: it imports nothing of the package.
"""
from __future__ import annotations

import errno
import re
import signal
from contextlib import contextmanager

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_BUG = 70
EXIT_INTERRUPTED = 128 + signal.SIGINT


class ExpectedFailure(Exception):
    """A failure the user can act on; printed as one line, never a traceback. `details`: a line for
    each of the several things it names (each unknown name of a file), printed indented below it."""
    exit_code = EXIT_FAILED

    def __init__(self, *args, details: list[str] | tuple[str, ...] = ()):
        super().__init__(*args)
        self.details = tuple(details)


class UsageError(ExpectedFailure):
    exit_code = EXIT_USAGE


class MissingExtra(ExpectedFailure):
    """An optional feature whose packages are not installed (pyproject.toml's optional dependencies)."""


@contextmanager
def needs_extra(extra: str, feature: str):
    """Inside the block, a missing module is one line naming the optional install that brings it."""
    try:
        yield
    except ModuleNotFoundError as exc:
        raise MissingExtra(f"{feature} needs {exc.name}, an optional install: "
                           f"pip install 'mlperf-warehouse[{extra}]' (or make install)") from exc


class WarehouseUnavailable(ExpectedFailure):
    """The warehouse file cannot be opened or written: locked, corrupt, not DuckDB, disk full."""


class SourceMissing(ExpectedFailure):
    """The source (a directory or file:// URL) does not exist: an error, never 'not published'."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM: unwinds like KeyboardInterrupt, so open transactions roll back."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


# Control characters, and the bidi embeddings, overrides and isolates that make text read reversed.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escape_control(text: str) -> str:
    """Terminal escape codes, other control characters and bidi overrides as visible escapes
    (newline and tab kept)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def one_line(text: str) -> str:
    return " ".join(escape_control(str(text)).split())


DISK_FULL_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
_DISK_FULL_TEXT = ("No space left on device", "File too large", "Disk quota exceeded")


def is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
        return True
    return any(text in str(exc) for text in _DISK_FULL_TEXT)
