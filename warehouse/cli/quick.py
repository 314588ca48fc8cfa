"""`mlperf-wh sql QUERY` without Typer, in its plainest forms, and what prints a query's rows.

Typer parses a command line by building a pydantic TypeAdapter for each parameter (pydantic: 0.065 s
of CPU to import) once it has assembled every command and imported itself (0.06 s more): more than
DuckDB takes for most queries. So `warehouse.cli.main` hands these forms here, everything else to Typer:

    mlperf-wh [GLOBAL...] sql QUERY [GLOBAL | --format F | --limit N | --raw ...]

GLOBAL is --db FILE, -q/--quiet, --writer-file or --wide; each option at most once; no word but QUERY and
the options' values, none of which starts with '-'. Help, -f, a query on stdin, -v, `--opt=value`, a
repeated or unknown option, a value Typer would refuse: all go to Typer, which words the usage
errors. tests/test_cli_quick.py runs each form both ways and compares what they print.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from warehouse.cli.console import Format, note, print_rows, say
from warehouse.cli.invocation import reading_file, reset
from warehouse.errors import EXIT_OK, ExpectedFailure

TABLE_LIMIT = 100
GLOBAL_VALUED, GLOBAL_FLAGS = ("--db",), {"-q": "quiet", "--quiet": "quiet", "--writer-file": "writer_file",
                                         "--wide": "wide"}
SQL_VALUED, SQL_FLAGS = ("--format", "--limit"), {"--raw": "raw"}


@dataclass(frozen=True)
class PlainSql:
    query: str
    fmt: Format = Format.table
    limit: int | None = None
    db: str | None = None
    quiet: bool = False
    writer_file: bool = False
    raw: bool = False
    wide: bool = False


def plain_sql(words: list[str]) -> PlainSql | None:
    """The `sql` command line in one of the forms above, or None (Typer's then)."""
    given: dict[str, object] = {}
    positional: list[str] = []
    words = list(words)
    while words:
        word = words.pop(0)
        if word in GLOBAL_VALUED or (word in SQL_VALUED and positional[:1] == ["sql"]):
            if not words or words[0].startswith("-") or word in given:
                return None
            given[word] = words.pop(0)
        elif word in GLOBAL_FLAGS and GLOBAL_FLAGS[word] not in given:
            given[GLOBAL_FLAGS[word]] = True
        elif word in SQL_FLAGS and positional[:1] == ["sql"] and SQL_FLAGS[word] not in given:
            given[SQL_FLAGS[word]] = True
        elif word.startswith("-"):
            return None
        else:
            positional.append(word)
    if len(positional) != 2 or positional[0] != "sql":
        return None
    if given.get("--format", "table") not in {f.value for f in Format}:
        return None
    if "--limit" in given and not re.fullmatch(r"[0-9]+", str(given["--limit"])):
        return None
    return PlainSql(positional[1], Format(given.get("--format", "table")),
                    int(given["--limit"]) if "--limit" in given else None, given.get("--db"),
                    bool(given.get("quiet")), bool(given.get("writer_file")), bool(given.get("raw")),
                    bool(given.get("wide")))


def run(call: PlainSql) -> int:
    from warehouse import collector
    collector.resume()
    reset(db=call.db, quiet=call.quiet, writer_file=call.writer_file, wide=call.wide)
    return print_query(call.query, call.fmt, call.limit, call.raw)


def print_query(text: str, fmt: Format, limit: int | None, raw: bool = False) -> int:
    """Run `text` in the read-only sandbox and print its rows (`mlperf-wh sql`, either way)."""
    from warehouse.store import sandbox
    if limit is None:
        limit = TABLE_LIMIT if fmt is Format.table else 0
    if limit == 0 and fmt in (Format.csv, Format.json):
        with sandbox.connect(reading_file()) as con:
            streamed = Streamed(fmt)
            sandbox.stream_query(con, text, streamed.emit)
            streamed.close()
        return EXIT_OK
    with sandbox.connect(reading_file()) as con:
        shown, total = sandbox.run_query(con, text, limit or sandbox.ALL_ROWS_HELD, as_rows=fmt is Format.table)
        hints = empty_hints(con, text) if total == 0 else []
    if not limit and shown.height < total:
        raise ExpectedFailure(f"--limit 0 prints at most {sandbox.ALL_ROWS_HELD:,} rows as a {fmt.value} (each row "
                              f"is held to size the columns) and the query has {total:,}: print them with --format csv "
                              "or json (streamed), or give --limit N")
    print_rows(shown, fmt, raw)
    for hint in hints:
        note(hint)
    if shown.height < total:
        cut = f"showing {shown.height:,} of {total:,} rows; --limit 0 for all"
        # A table read by a program or a file keeps the note with the rows (a reader that has gone,
        # `| head`, never sees it on stderr); csv and json keep stdout to the rows.
        if fmt is Format.table and not sys.stdout.isatty():
            say(cut)
        else:
            note(cut)
    return EXIT_OK


class Streamed:
    """CSV or JSON written a batch at a time, as `print_rows` writes a whole frame: one header, one
    JSON list."""

    def __init__(self, fmt: Format):
        self.fmt, self.opened = fmt, False

    def emit(self, frame, first: bool) -> None:
        if self.fmt is Format.csv:
            from warehouse.export.frame_cells import safe_frame
            sys.stdout.write(safe_frame(frame).write_csv(include_header=first))
            return
        from warehouse.cli.console import inert_json, json_ready
        inner = inert_json(json_ready(frame).write_json())[1:-1] if frame.height else ""
        sys.stdout.write(("[" if first else ("," if inner and self.opened else "")) + inner)
        self.opened = self.opened or bool(inner)

    def close(self) -> None:
        if self.fmt is Format.json:
            sys.stdout.write("]\n")
        sys.stdout.flush()


def empty_hints(con, text: str) -> list[str]:
    """Why a query may have returned nothing: a value the warehouse does not hold (views.empty_hints)."""
    from warehouse.views.empty_hints import empty_result_hints
    return empty_result_hints(con, text)
