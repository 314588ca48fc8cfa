"""How any failure is said: one line and its exit code (the table of warehouse/errors.py). The CLI
prints the line (`error: ...`) and exits with the code; a run that fails (backfill, watch, their
Prefect deployments) opens its failure notification with the same line (warehouse.notify.run). In
the store layer: a DuckDB error about the file itself (corrupt, locked, disk full) is a failure of
the warehouse, not a bug."""
from __future__ import annotations

from dataclasses import dataclass

from warehouse.errors import EXIT_BUG, ExpectedFailure, one_line

BUG_HINT = " (a bug: run with -v for the traceback)"


@dataclass(frozen=True)
class Said:
    line: str           # without its `error: `
    exit_code: int
    details: tuple[str, ...] = ()   # one line each, below it (ExpectedFailure.details)

    @property
    def bug(self) -> bool:
        return self.exit_code == EXIT_BUG


def expected_failure(exc: BaseException) -> ExpectedFailure | None:
    """The expected failure this exception is, or None for a bug. Domain errors are expected failures
    where they are raised; what is left are the warehouse file's own troubles (DuckDB's errors while
    using it) and a file the operating system refused."""
    if isinstance(exc, ExpectedFailure):
        return exc
    from warehouse.store.warehouse_file import during_use  # DuckDB: only once a command failed
    if (file_failure := during_use(exc)) is not None:
        return file_failure
    if isinstance(exc, OSError) and exc.filename is not None:
        return ExpectedFailure(f"{exc.filename}: {exc.strerror or exc}")
    return None


def said(exc: BaseException, hint: str = BUG_HINT) -> Said:
    """The one line and the exit code of `exc`: an expected failure as it says itself, anything else
    a bug (`hint` after it: how to see its traceback)."""
    failure = expected_failure(exc)
    if failure is not None:
        return Said(one_line(failure), failure.exit_code, tuple(one_line(d) for d in getattr(failure, "details", ())))
    return Said(f"unexpected {type(exc).__name__}: {one_line(exc)}{hint}", EXIT_BUG)
