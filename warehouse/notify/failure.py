"""The one failure path of every run that may run unattended: `backfill`, `watch` and `ingest` from
the command line, the backfill and watch-rounds flows, and so the deployments `serve`, `schedule`
and a work pool run. However such a run fails (a round refused, a source gone, the warehouse held
by another writer, a bug), the failure is said in one line (warehouse.store.failures: the line the
CLI prints, `error: ...`, with its exit code), and that line opens the failure notification every
target gets (warehouse.notify.run.after_failure), once: a failure told inside a flow is not told
again by the command that started it. A usage error (a bad flag) is the operator's, at the
terminal, and an interruption is no failure of the run: neither is notified.

Light on purpose: every command that runs enters it, and the notification's modules (Apprise,
polars) are imported only when a run has failed."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable

from warehouse.errors import UsageError

NOTIFIED = "notified"                     # set on an exception whose failure was told (or told by the rounds' report)
WARNINGS = "notification_warnings"        # what went wrong telling it: printed by the CLI with its error line


@contextmanager
def failure_notified(db_file: str, kind: str, log: Callable[[str], None] | None = None):
    """The block's failure (an Exception) told to every notification target, then raised on.
    `log(line)` hears what went wrong telling it (a flow's logger); the CLI prints it from the
    exception (WARNINGS)."""
    try:
        yield
    except UsageError:
        raise
    except Exception as exc:
        if not getattr(exc, NOTIFIED, False):
            _tell(db_file, kind, exc, log)
        raise


def _tell(db_file: str, kind: str, exc: Exception, log: Callable[[str], None] | None) -> None:
    from warehouse.notify.run import after_failure
    from warehouse.store.failures import said
    from warehouse.store.lock import WarehouseBusy
    from warehouse.errors import WarehouseUnavailable
    # A warehouse that cannot be opened or is held by another writer cannot record the delivery either.
    writable = not isinstance(exc, (WarehouseUnavailable, WarehouseBusy))
    warnings = after_failure(db_file, kind, said(exc).line, record_it=writable).warnings()
    try:
        setattr(exc, NOTIFIED, True)
        setattr(exc, WARNINGS, warnings)
    except AttributeError:  # an exception type without a __dict__: told, said by the log alone
        pass
    for line in warnings if log is not None else ():
        log(line)
