"""The CLI, `mlperf-wh` (Typer): build the warehouse, ask it, hand it on. One module per group of
commands (build, query, ledger, runs, outputs), assembled in app.py; a command parses, calls one
package function and prints (console.py). Exit codes: warehouse/errors.py. Start-up stays light:
polars, DuckDB, Pandera and Prefect are imported inside the commands that use them."""
from __future__ import annotations

import os
import sys

# Prefect's anonymous telemetry would try the network (there may be none) on every run: the server's,
# and the client's, which also prints a three-line notice on a terminal the first time.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
# A brand-new ephemeral Prefect server (database migrations, installed Prefect collections
# imported) can take longer than Prefect's 20 s default on a busy 2-core machine.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def main(argv: list[str] | None = None) -> int:
    """Run one command line (default: this process's arguments) -> its exit code."""
    words = sys.argv[1:] if argv is None else [str(w) for w in argv]
    words = query_words_kept(words)
    from warehouse.cli.quick import plain_sql
    if (quick := plain_sql(words)) is not None:  # `sql QUERY` without Typer (quick.py says why)
        from warehouse.cli.failures import run_reporting_failures
        from warehouse.cli.quick import run
        return run_reporting_failures(lambda: run(quick))
    from warehouse.cli.global_options import verbose_requested
    from warehouse.cli.runs import quiet_prefect_console
    verbose = verbose_requested(words)
    with quiet_prefect_console(verbose):  # before any command imports (and configures) Prefect
        from warehouse.cli.app import run
        return run(words, verbose)


def query_words_kept(words: list[str]) -> list[str]:
    """`sql "-- a comment\nSELECT 1"`: a word after `sql` that starts with '-' and holds a space or a
    line break is a query, never an option (no option's name holds one); a space in front keeps the
    parser from reading it as one (the query means the same)."""
    if "sql" not in words:
        return words
    at = words.index("sql")
    return words[:at + 1] + [f" {w}" if w.startswith("-") and any(c.isspace() for c in w) else w
                             for w in words[at + 1:]]


def entry() -> None:
    """The `mlperf-wh` console script."""
    code = main()
    from warehouse.interrupt import exit_now_if_interrupted, exit_without_teardown
    exit_now_if_interrupted(code)
    exit_without_teardown(code)
