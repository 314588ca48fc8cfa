"""Commands that ask the warehouse: `sql` (the read-only sandbox), `status`, `drift`, `loads` (the load log;
`history`, its old name, until the next release)."""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from warehouse.cli.console import Format, note, print_json, print_rows, print_wrapped
from warehouse.cli.global_options import command, current, reading_file
from warehouse.cli.quick import TABLE_LIMIT, print_query
from warehouse.errors import EXIT_OK, UsageError

Fmt = Annotated[Format, typer.Option("--format", help="table (sized to the terminal), csv, json or markdown")]
Raw = Annotated[bool, typer.Option("--raw", help=(
    "tables and markdown: every digit (35420.7999999999), not figures for people (35,421; 2.93)"))]


def register(app: typer.Typer) -> None:
    command(app, "sql", "mlperf-wh sql \"SELECT * FROM software_gain_summary ORDER BY gain DESC\"",
            "mlperf-wh sql \"SELECT * FROM results\" --format csv > results.csv",
            "mlperf-wh sql \"DESCRIBE claim_audit\" --limit 0",
            "mlperf-wh sql -f audit.sql --format json",
            "mlperf-wh sql < audit.sql")(sql)
    command(app, "status", "mlperf-wh status", "mlperf-wh status --list", "mlperf-wh status --section drift --format csv",
            "mlperf-wh status --format json")(status)
    command(app, "drift", "mlperf-wh drift", "mlperf-wh drift --format json")(drift)
    command(app, "loads", "mlperf-wh loads --round v6.1", "mlperf-wh loads --format csv")(loads)
    command(app, "history", "mlperf-wh loads --round v6.1", hidden=True)(history)
    command(app, "config", "mlperf-wh config", "MLPERF_SOURCE=../shared/mlcommons/mirror mlperf-wh config --format json")(config)


def sql(
    query: Annotated[Optional[str], typer.Argument(metavar="QUERY", help=(
        "SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE, PIVOT, UNPIVOT or EXPLAIN statements "
        "(several, separated by ;, print the last); - or none with a piped stdin: read it from stdin"),
        show_default=False)] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="read the query from this file",
                                                 exists=True, dir_okay=False, show_default=False)] = None,
    fmt: Fmt = Format.table,
    limit: Annotated[Optional[int], typer.Option("--limit", min=0, help=(
        f"print at most this many rows; 0: all (default {TABLE_LIMIT} for a table, all for csv and json); "
        "a note on stderr says when rows were cut"))] = None,
    raw: Raw = False,
) -> int:
    """Run a read-only SQL query over the warehouse's tables and views (MLPERF_SQL_TIMEOUT and
    MLPERF_SQL_MEMORY_LIMIT bound it)."""
    return print_query(query_text(query, file), fmt, limit, raw)


def query_text(query: str | None, file: Path | None) -> str:
    """The query from the argument, -f FILE, or stdin (`-`, or no argument and a pipe or file on stdin)."""
    if query is not None and file is not None:
        raise UsageError("give the query as QUERY or with -f FILE, not both")
    from warehouse.inputs import SIZE_BOUNDS, bounded, complete_text, read_bounded, text_of
    if file is not None:
        return complete_text(read_bounded(file, "sql"), str(file))
    if query == "-" or (query is None and stdin_is_piped()):
        stream = getattr(sys.stdin, "buffer", None)
        raw = stream.read(SIZE_BOUNDS["sql"] + 1) if stream else sys.stdin.read(SIZE_BOUNDS["sql"] + 1).encode()
        query = text_of(bounded(raw, SIZE_BOUNDS["sql"], "stdin", "sql"), "stdin") or None
    if query is None:
        raise UsageError("Missing argument 'QUERY': give it, or -f FILE, or pipe it on stdin")
    return query


def stdin_is_piped() -> bool:
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):  # no real stdin (closed, or replaced by a test harness)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def status(
    section: Annotated[Optional[list[str]], typer.Option("--section", help=(
        "only this section (repeatable): sources, results, drift, run-summaries, tree-files, fidelity, "
        "claims, decisions-due"))] = None,
    fmt: Annotated[Format, typer.Option("--format", help=(
        "table; json: an object of sections, each a list of rows; csv: one --section"))] = Format.table,
    every_row: Annotated[bool, typer.Option("--list", help=(
        "a table: every row of each section (default: a line per section; --section lists its rows)"))] = False,
) -> int:
    """What is loaded, quarantined and unmatched; tree files; claims and decisions due: a line per
    section, or its rows."""
    from warehouse.store import db
    from warehouse.views.status import SECTION_KEYS, sections
    unknown = [key for key in section or [] if key not in SECTION_KEYS]
    if unknown:
        raise UsageError(f"--section {unknown[0]}: no such section (one of {', '.join(SECTION_KEYS)})")
    if fmt is Format.csv and len(section or []) != 1:
        raise UsageError("--format csv prints one section: add --section NAME "
                         f"(one of {', '.join(SECTION_KEYS)})")
    with db.connect(reading_file(), read_only=True) as con:
        found = sections(con, section)
    if fmt is Format.json:
        print_json({s.key: frame.to_dicts() for s, frame in found})
        return EXIT_OK
    if fmt is Format.csv:
        for _, frame in found:
            print_rows(frame, fmt)
        return EXIT_OK
    if not (every_row or section):
        print_status_summary(found)
        return EXIT_OK
    for s, frame in found:
        print_wrapped(f"\n## {s.title}")
        if frame.height:
            print_rows(frame)
        else:
            print("(none)")
    return EXIT_OK


def print_status_summary(found) -> None:
    """A line per section; where its rows are (`--list`, `--section NAME`)."""
    import polars as pl

    from warehouse.views.status import summary
    print_rows(pl.DataFrame({"section": [s.key for s, _ in found],
                             "summary": [summary(s, frame) for s, frame in found]}, orient="col"))
    print_wrapped("every row: mlperf-wh status --list; one section: mlperf-wh status --section NAME")


def drift(fmt: Fmt = Format.table) -> int:
    """What the loaded files say that the warehouse does not know yet, per round and file."""
    from warehouse.store import db
    from warehouse.views.drift import drift_rows
    with db.connect(reading_file(), read_only=True) as con:
        frame = drift_rows(con)
    if fmt is Format.table and frame.height == 0:
        print("no drift: every loaded word and name is known")
        return EXIT_OK
    print_rows(frame, fmt)
    return EXIT_OK


RENAMED = ("`mlperf-wh history` is now `mlperf-wh loads` (the load log); the history of figures across rounds "
           "is the accelerator_history mart. `history` goes in the next release.")


def history(
    round: Annotated[Optional[str], typer.Option("--round", help="only this round, e.g. v6.1")] = None,
    fmt: Fmt = Format.table,
) -> int:
    """The old name of `loads` (kept for one release)."""
    note(RENAMED)
    return loads(round, fmt)


def loads(
    round: Annotated[Optional[str], typer.Option("--round", help="only this round, e.g. v6.1")] = None,
    fmt: Fmt = Format.table,
) -> int:
    """The load log: every load and failed attempt: run, round, checksum, counts, changes (load_events)."""
    from warehouse.identity.rounds import validate_round_name
    from warehouse.ingest.history import events, for_screen
    from warehouse.store import db
    if round is not None:
        validate_round_name(round)  # `--round ../x` is a usage error, not "no loads yet"
    with db.connect(reading_file(), read_only=True) as con:
        frame = events(con, round_name=round)
    if fmt is Format.table:
        if frame.height == 0:
            print("no loads yet")
            return EXIT_OK
        frame = for_screen(frame)
    print_rows(frame, fmt)
    return EXIT_OK


def config(fmt: Fmt = Format.table) -> int:
    """Every MLPERF_* variable the tool reads: its value here, where it came from, default and meaning."""
    import polars as pl

    from warehouse.settings import settings_rows
    print_rows(pl.DataFrame(settings_rows()), fmt)
    return EXIT_OK
