"""Expected failures, their exit codes, and how the CLI reports them: the one table of exit codes.

| code | meaning |
| ---- | ------- |
| 0    | ok |
| 1    | a failure of the data, the source or the warehouse file (refused, rolled back, nothing lost) |
| 2    | a usage error (a bad argument, round name or flag) |
| 70   | a bug: one line, and the traceback with `-v` or MLPERF_DEBUG=1 |
| 130  | interrupted by SIGINT (Ctrl-C); 143 by SIGTERM: the load in flight was rolled back |

An expected failure prints one line, `error: ...`, on stderr. Everything else is a bug.
"""
from __future__ import annotations

import errno
import os
import re
import signal
import sys
import traceback

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_BUG = 70
EXIT_INTERRUPTED = 128 + signal.SIGINT


class ExpectedFailure(Exception):
    """A failure the user can act on; printed as one line, never a traceback."""
    exit_code = EXIT_FAILED


class UsageError(ExpectedFailure):
    exit_code = EXIT_USAGE


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


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escape_control(text: str) -> str:
    """Terminal escape codes and other control characters as visible escapes (newline and tab kept)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def one_line(text: str) -> str:
    return " ".join(escape_control(str(text)).split())


DISK_FULL_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
_DISK_FULL_TEXT = ("No space left on device", "File too large", "Disk quota exceeded")


def is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
        return True
    return any(text in str(exc) for text in _DISK_FULL_TEXT)


def expected_failure(exc: BaseException) -> ExpectedFailure | None:
    """The expected failure this exception is, or None for a bug."""
    if isinstance(exc, ExpectedFailure):
        return exc
    from warehouse.identity.rounds import InvalidRoundName
    from warehouse.ingest.fetch import FetchError
    from warehouse.ingest.guards import GuardRefused
    from warehouse.ingest.parse import MalformedFile
    from warehouse.ledger.claims import LedgerError
    from warehouse.ledger.prices import PriceError
    if isinstance(exc, InvalidRoundName):
        return UsageError(str(exc))
    if isinstance(exc, (LedgerError, PriceError, FetchError, MalformedFile, GuardRefused)):
        return ExpectedFailure(str(exc))
    from warehouse.store.warehouse_file import during_use
    if (file_failure := during_use(exc)) is not None:
        return file_failure
    if isinstance(exc, OSError) and exc.filename is not None:
        return ExpectedFailure(f"{exc.filename}: {exc.strerror or exc}")
    return None


def debug_requested(verbose: bool = False) -> bool:
    from warehouse import settings  # it builds on this module's UsageError
    try:
        return verbose or settings.current().debug
    except settings.SettingsError:  # another variable is wrong: that is the error being reported
        return False


def run_reporting_failures(action, verbose: bool = False) -> int:
    """Run `action()` -> exit code; expected failures and bugs become one line on stderr."""
    from warehouse import interrupt
    try:
        with interrupt.stop_on_signals():
            try:
                return action()
            except Exception as exc:
                interrupt.raise_if_signalled(exc)
                raise
    except Interrupted as exc:
        print(f"error: interrupted by {exc}: the load in flight was rolled back (rounds loaded "
              "before it are kept); rerun to finish", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("error: interrupted: the load in flight was rolled back; rerun to finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader closed the pipe (`| head`): not a failure. Point stdout at /dev/null so the
        # interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the one place every failure is turned into a line
        failure = expected_failure(exc)
        if debug_requested(verbose):
            traceback.print_exc()
        if failure is not None:
            print(f"error: {one_line(failure)}", file=sys.stderr)
            return failure.exit_code
        print(f"error: unexpected {type(exc).__name__}: {one_line(exc)}"
              f"{'' if debug_requested(verbose) else ' (a bug: run with -v for the traceback)'}",
              file=sys.stderr)
        return EXIT_BUG
