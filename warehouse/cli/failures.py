"""How a command ends: an expected failure is one line on stderr and its exit code (the table of
warehouse/errors.py); a signal rolls the load in flight back; a closed pipe is no failure; anything else
is a bug (exit 70, the traceback with -v or MLPERF_DEBUG=1)."""
from __future__ import annotations

import os
import sys
import traceback

from warehouse import interrupt, settings
from warehouse.errors import EXIT_INTERRUPTED, EXIT_OK, Interrupted
from warehouse.store.failures import BUG_HINT, said


def debug_requested(verbose: bool = False) -> bool:
    try:
        return verbose or settings.current().debug
    except settings.SettingsError:  # another variable is wrong: that is the error being reported
        return False


def run_reporting_failures(action, verbose: bool = False) -> int:
    """Run `action()` -> exit code; expected failures and bugs become one line on stderr."""
    _forget_earlier_writes()
    try:
        with interrupt.stop_on_signals():
            try:
                return action()
            except Exception as exc:
                interrupt.raise_if_signalled(exc)
                raise
    except Interrupted as exc:
        print(f"error: interrupted by {exc}{_what_interruption_left()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"error: interrupted{_what_interruption_left()}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader closed the pipe (`| head`): not a failure. Point stdout at /dev/null so the
        # interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the one place every failure is turned into a line
        if debug_requested(verbose):
            traceback.print_exc()
        for line in getattr(exc, "notification_warnings", ()):  # its failure notification, not delivered
            print(f"warning: {line}", file=sys.stderr)
        failure = said(exc, hint="" if debug_requested(verbose) else BUG_HINT)
        print(f"error: {failure.line}", file=sys.stderr)
        for line in failure.details:
            print(f"  {line}", file=sys.stderr)
        return failure.exit_code


def _forget_earlier_writes() -> None:
    """What an earlier command of this process wrote is not this one's to report (a test runs many)."""
    lock = sys.modules.get("warehouse.store.lock")  # not imported yet: nothing was written
    if lock is not None:
        lock.WRITES_BEGUN.clear()
        lock.WRITES_CUT_SHORT.clear()


def _what_interruption_left() -> str:
    from warehouse.store.lock import WRITES_BEGUN, WRITES_CUT_SHORT
    if (notification := interrupt.cut_short_notification()) is not None:
        return _notification_cut_short(*notification, wrote=bool(WRITES_BEGUN))
    if WRITES_CUT_SHORT:
        return (f": {WRITES_CUT_SHORT[-1]} in flight was rolled back (what was loaded before it is kept); "
                "rerun to finish")
    if WRITES_BEGUN:
        return ": no load was in flight (what was loaded is kept); rerun to finish"
    return ": the warehouse was not written"


def _notification_cut_short(reached: int, targets: int, wrote: bool) -> str:
    """A run notifies after its loads committed, before it refreshes the published copy."""
    kept = ("what the run loaded is kept, not yet in the published copy readers open (the next "
            "backfill refreshes it)" if wrote else "the warehouse was not written")
    return (f" while notifying: {kept}; the message reached {reached} of {targets} "
            f"target{'s' if targets != 1 else ''} (not recorded in deliveries)")
