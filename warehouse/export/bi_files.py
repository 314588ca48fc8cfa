"""The BI export: the marts and dimension tables as files a BI tool can trust, Parquet (partitioned
by round), CSV (nested values as JSON text) or one Excel workbook (text cells made safe for
spreadsheets in both: cells.py), with a manifest.json describing every
file; written beside the target and swapped in whole (output_dirs)."""
from __future__ import annotations

import json
import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from warehouse.counts import Tally
from warehouse.errors import ExpectedFailure
from warehouse.export.cells import any_needs_care_sql, needs_care_sql, safe_sql, safe_text
from warehouse.export.output_dirs import (check_replaceable, make_staging_dir, remove_abandoned_partials,
                                          resolved_target, sha256_of, swap_in, warehouse_files, write_listing)
from warehouse.identity.rounds import round_sort_key
from warehouse.store import db
from warehouse.views import LAYERS, definitions
from warehouse.views.column_docs import relations_documentation

EXPORT_FORMATS = ("parquet", "csv", "xlsx")
KIND = "export"
MANIFEST = "manifest.json"
WORKBOOK = "mlperf.xlsx"
RAW_TABLES = ("results", "sources", "quarantine")
# The round a row belongs to, for partitioning and for the manifest's "rounds covered".
ROUND_COLUMNS = ("round", "round_to", "round_from")
EXCEL_MAX_ROWS = 1_048_575  # one row of the sheet is the header
EXCEL_MAX_SHEET_NAME = 31


class ExportError(ExpectedFailure):
    """The export cannot be made as asked; the target directory is left as it was."""


def default_views() -> list[str]:
    """Every mart, dimension marts included."""
    return [v.name for v in definitions() if v.layer == LAYERS[-1]]


def known_views() -> list[str]:
    return [v.name for v in definitions()] + list(RAW_TABLES)


def unknown_views_message(unknown: list[str]) -> str:
    """Each name that is no view, with the nearest mart (or loaded table) to it; when none is near,
    the marts (the internal models `views --all` lists are exportable too, never offered)."""
    from warehouse.nearest import nearest
    offered = default_views() + list(RAW_TABLES)
    said = []
    for name in unknown:
        near = nearest(name, offered, at_most=2)
        said.append(f"unknown view {name!r} (did you mean {' or '.join(map(repr, near))}?)" if near
                    else f"unknown view {name!r}")
    if all("did you mean" in line for line in said):
        return "; ".join(said)
    return "; ".join(said) + f"; the marts: {', '.join(sorted(default_views()))} (`mlperf-wh views`)"


@dataclass(frozen=True)
class Relation:
    """One view (or table) to export, with its documented columns."""
    name: str
    columns: list[dict]  # name, type, description

    @property
    def nested(self) -> list[str]:
        return [c["name"] for c in self.columns if _is_nested(c["type"])]

    @property
    def text_columns(self) -> list[str]:
        """The columns written as text in a CSV file or a sheet: VARCHAR, and nested values as JSON."""
        return [c["name"] for c in self.columns if c["type"] == "VARCHAR" or _is_nested(c["type"])]

    @property
    def round_columns(self) -> list[str]:
        names = [c["name"] for c in self.columns]
        return [r for r in ROUND_COLUMNS if r in names]

    @property
    def has_source_id(self) -> bool:
        return any(c["name"] == "source_id" for c in self.columns)


def _is_nested(duckdb_type: str) -> bool:
    return duckdb_type.endswith("]") or duckdb_type.startswith(("STRUCT", "MAP", "UNION"))


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _check_target(con, directory: Path, warehouse_file: str | None) -> Path:
    target = resolved_target(directory)
    check_replaceable(target, KIND, (warehouse_file, *warehouse_files(con)))
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


MANIFEST_READ_LIMIT = 16 * 1024 * 1024  # bytes: a manifest of every mart is well under 1 MiB


def exported_views(directory: Path) -> list[str]:
    """The views the export in `directory` holds, from its manifest; none when there is no export
    there, or its manifest is not one this tool wrote (too large, not JSON, no views)."""
    path = Path(directory) / MANIFEST
    try:
        if not path.is_file() or path.stat().st_size > MANIFEST_READ_LIMIT:
            return []
        views = json.loads(path.read_bytes()).get("views")
    except (OSError, ValueError, AttributeError, RecursionError):  # RecursionError: nested too deeply
        return []
    return [name for name in views if isinstance(name, str)] if isinstance(views, dict) else []


def export_views(con: duckdb.DuckDBPyConnection, directory: Path, fmt: str = "parquet",
                 views: list[str] | None = None, warehouse_file: str | None = None) -> dict:
    """Write the chosen views (default: every mart) into `directory`, replacing a previous export
    whole (output_dirs says which directories it may replace). Returns the manifest."""
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    chosen = list(dict.fromkeys(views or default_views()))
    known = set(known_views())
    unknown = [v for v in chosen if v not in known]
    if unknown:
        raise ExportError(unknown_views_message(unknown))
    target = _check_target(con, directory, warehouse_file)
    remove_abandoned_partials(target, KIND)
    documented = relations_documentation(con, chosen)
    relations = [Relation(name, documented[name]) for name in chosen]
    staging = make_staging_dir(target)
    try:
        writer = {"parquet": _write_parquet, "csv": _write_csv, "xlsx": _write_xlsx}[fmt]
        loads = _loads(con)
        files = writer(con, staging, relations, loads, Tally(len(relations), "views written"))
        manifest = _manifest(fmt, relations, files, staging, warehouse_file, loads)
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, default=str), encoding="utf-8")
        write_listing(staging, KIND)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    # Not under the clean-up above: once swapped, `staging` holds the previous output, which only
    # remove_previous may take apart (a file someone added to it is kept beside the target).
    swap_in(staging, target, KIND)
    return manifest


# --- the files ----------------------------------------------------------------------------------
#
# Each view is read once: its rows are kept in a temporary table for the length of its writing, and
# the files and the manifest's figures (rows, rounds, loads) come from that table. Reading a view is
# most of an export's cost (a mart joins what is below it); a file and its manifest entry read from
# the same rows also cannot disagree. The rows are kept sorted (by every column), so the same
# warehouse exported again gives the same bytes: DuckDB's threads otherwise decide the order.

ROWS = "temp.main.mlperf_export_rows"


@dataclass(frozen=True)
class FileStats:
    """What the manifest says of the rows in one file: how many, the rounds covered, the loads they came from."""
    rows: int
    rounds: list[str]
    loads: list[str]


@dataclass(frozen=True)
class WrittenFile:
    relation: Relation
    path: Path
    stats: FileStats
    partition: dict | None = None
    sheet: str | None = None


@contextmanager
def _rows_of(con, rel: Relation):
    """The view's rows, read once and sorted, as a temporary table (dropped after)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {ROWS} AS SELECT * FROM {_ident(rel.name)} ORDER BY ALL")
    try:
        yield ROWS
    finally:
        con.execute(f"DROP TABLE IF EXISTS {ROWS}")


@dataclass
class Loads:
    """The warehouse's loads (the sources table), for the manifest: every load, and those of some rounds."""
    rows: list[dict]
    ids: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.ids = [row["source_id"] for row in self.rows]

    def of_rounds(self, rounds: list[str]) -> list[str]:
        return [row["source_id"] for row in self.rows if row["round"] in rounds]


def _loads(con) -> Loads:
    cursor = con.execute("""
        SELECT source_id, round, origin, url, file_name, sha256, rows_loaded, loaded_at
        FROM sources ORDER BY round, source_id""")
    names = [column[0] for column in cursor.description]
    return Loads([dict(zip(names, row)) for row in cursor.fetchall()])


def _grouped_stats(con, rel: Relation, table: str, loads: Loads, by: str | None = None,
                   extra: tuple[str, ...] = ()) -> dict:
    """FileStats of the rows of `table`, per value of column `by` (as text, None for null), or of all
    of them (key None): one query. Rows that carry source_id name their load; otherwise the loads
    of the rounds covered; a view with no round column (the dimensions, decisions) is computed from
    the whole warehouse: every load. `extra` aggregates are computed in the same scan: each group's
    value is (FileStats, the extra aggregates' values)."""
    key = f"CAST({_ident(by)} AS VARCHAR)" if by else "NULL"
    rounds = [f"list(DISTINCT {_ident(c)}) FILTER (WHERE {_ident(c)} IS NOT NULL)" for c in rel.round_columns]
    source = "list(DISTINCT source_id) FILTER (WHERE source_id IS NOT NULL)" if rel.has_source_id else "NULL"
    aggregates = ", ".join([key, "count(*)", source, *rounds, *extra])
    found = {}
    for group, rows, sources, *rest in con.execute(f"SELECT {aggregates} FROM {table} GROUP BY ALL").fetchall():
        covered, extra_values = rest[:len(rounds)], tuple(rest[len(rounds):])
        in_rounds = sorted({r for values in covered for r in values or []}, key=round_sort_key)
        used = sorted(sources or []) if rel.has_source_id else (
            loads.of_rounds(in_rounds) if rel.round_columns else loads.ids)
        found[group] = (FileStats(rows, in_rounds, used), extra_values)
    return found


def _stats_of_all(con, rel: Relation, table: str, loads: Loads) -> FileStats:
    found = _grouped_stats(con, rel, table, loads).get(None)
    return found[0] if found else _grouped_stats_of_nothing(rel, loads)


@dataclass(frozen=True)
class TextFacts:
    """What a CSV file or a sheet needs to know of a view's rows besides FileStats, from the same scan:
    the text columns with a cell the spreadsheet rule (cells.py) may change (nearly always none: every
    other column is written as it is) and, for a sheet, each column's longest value as text."""
    stats: FileStats
    needs_care: frozenset[str]
    longest: tuple[int | None, ...] = ()


def _text_facts(con, rel: Relation, table: str, loads: Loads, widths: bool = False) -> TextFacts:
    """TextFacts of the rows of `table` in the stats' scan: whether any text cell may need care
    (one match per row, cells.any_needs_care_sql); only then which columns, in a second scan."""
    text = rel.text_columns
    lengths = tuple(f"max(length(CAST({_ident(c['name'])} AS VARCHAR)))" for c in rel.columns) if widths else ()
    check = f"coalesce(bool_or({any_needs_care_sql([_flat_text(rel, name) for name in text])}), false)"
    found = _grouped_stats(con, rel, table, loads, extra=(check, *lengths)).get(None)
    if found is None:
        return TextFacts(_grouped_stats_of_nothing(rel, loads), frozenset(), (None,) * len(lengths))
    stats, (any_care, *longest) = found
    return TextFacts(stats, _columns_needing_care(con, rel, table) if any_care else frozenset(), tuple(longest))


def _columns_needing_care(con, rel: Relation, table: str) -> frozenset[str]:
    text = rel.text_columns
    checks = ", ".join(f"coalesce(bool_or({needs_care_sql(_flat_text(rel, name))}), false)" for name in text)
    flags = db.first_row(con, f"SELECT {checks} FROM {table}")
    return frozenset(name for name, needs in zip(text, flags) if needs)


def _grouped_stats_of_nothing(rel: Relation, loads: Loads) -> FileStats:
    """An empty view's file: no rows, no round; the loads as a view with rows would name them."""
    return FileStats(0, [], [] if rel.round_columns or rel.has_source_id else loads.ids)


def _write_parquet(con, staging: Path, relations: list[Relation], loads: Loads, tally: Tally) -> list[WrittenFile]:
    def write(cursor, rel: Relation) -> list[WrittenFile]:
        metadata = _parquet_metadata(rel)
        partition_by = _partition_column(rel)
        with _rows_of(cursor, rel) as rows:
            if partition_by is None:
                path = staging / f"{rel.name}.parquet"
                cursor.execute(f"COPY {rows} TO {_literal(str(path))} (FORMAT parquet, {metadata})")
                return [WrittenFile(rel, path, _stats_of_all(cursor, rel, rows, loads))]
            return _write_partitioned(cursor, rows, staging / rel.name, rel, partition_by, metadata, loads)
    return [file for files in _two_at_a_time(con, relations, write, tally) for file in files]


def _two_at_a_time(con, relations: list[Relation], write, tally: Tally) -> list:
    """write(cursor, relation) for every relation, two at once, each thread on a cursor of its own
    (DuckDB runs a query without Python's lock): a mart's query is mostly one thread's work, and the
    machine has more than one core. The results in the order of `relations`. On any failure or
    interruption of this thread, the queries still running are interrupted before it goes on."""
    from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
    search_path = db.scalar(con, "SELECT current_setting('search_path')")
    cursors = [con.cursor() for _ in range(2)]
    free = list(cursors)
    lock = threading.Lock()

    def run(rel: Relation):
        with lock:
            cursor = free.pop()
        try:
            written = write(cursor, rel)
            tally.one_more()
            return written
        finally:
            with lock:
                free.append(cursor)

    for cursor in cursors:
        cursor.execute(f"SET search_path = {_literal(search_path)}")
    pool = ThreadPoolExecutor(max_workers=len(cursors), thread_name_prefix="export")
    futures = []
    try:
        futures = [pool.submit(run, rel) for rel in relations]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for failed in (f for f in done if f.exception() is not None):
            raise failed.exception()
        return [future.result() for future in futures]
    except BaseException:
        for future in futures:
            future.cancel()
        for cursor in cursors:
            cursor.interrupt()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for cursor in cursors:
            cursor.close()


# The folder of the rows of no round, as Hive, Spark, pyarrow, polars and DuckDB name a null partition
# value: each reads it back as null (and DuckDB's partitioned COPY writes it so).
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
EMPTY_PARTITION = "no_rows"


def _write_partitioned(con, rows: str, folder: Path, rel: Relation, column: str, metadata: str,
                       loads: Loads) -> list[WrittenFile]:
    """A fact view as a folder, whatever its rows: one Hive partition per round (the round lives in the
    folder names only, as datasets are read: written in the files too, readers see it twice); rows
    of no round in the null partition; an empty view's schema in a partition of no row (`no_rows`). A
    saved BI connection to the folder keeps working when the data changes."""
    key = _ident(column)
    files = con.execute(f"COPY {rows} TO {_literal(str(folder))} "
                        f"(FORMAT parquet, PARTITION_BY ({key}), RETURN_STATS true, {metadata})").fetchall()
    if not files:
        # An empty view's schema in a partition no row reads back from (pyarrow cannot type a partition
        # column whose only folder is the null one).
        path = folder / f"{column}={EMPTY_PARTITION}" / "data_0.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY (SELECT * EXCLUDE ({key}) FROM {rows}) TO {_literal(str(path))} (FORMAT parquet, {metadata})")
        return [WrittenFile(rel, path, _grouped_stats_of_nothing(rel, loads), {column: None})]
    stats = _grouped_stats(con, rel, rows, loads, by=column)
    written = []
    for filename, count, *_, partition_keys, _extra in sorted(files, key=_null_partition_last(column)):
        value = partition_keys[column]
        group, _ = stats[value]
        written.append(WrittenFile(rel, Path(filename), FileStats(count, group.rounds, group.loads), {column: value}))
    return written


def _null_partition_last(column: str):
    return lambda file: (file[-2][column] is None, file[0])


def _partition_column(rel: Relation) -> str | None:
    """The round column a fact view is split by (a folder per view, always); None for dimensions
    (a few rows each) and views without a round."""
    if rel.name.startswith("dim_") or not rel.round_columns:
        return None
    return rel.round_columns[0]


def _parquet_metadata(rel: Relation) -> str:
    """Parquet key-value metadata: the view's name and every column's description (JSON), so a file
    read without the manifest still says what its columns mean."""
    described = {c["name"]: c.get("description") for c in rel.columns}
    return (f"KV_METADATA {{view: {_literal(rel.name)}, "
            f"column_descriptions: {_literal(json.dumps(described, ensure_ascii=False))}}}")


def _flat_text(rel: Relation, name: str) -> str:
    """A column as a format without nesting holds it: a nested value (list, struct) as JSON text, a
    missing one as JSON's null, so every cell of such a column parses as JSON; others as they are."""
    if name in rel.nested:
        return f"coalesce(to_json({_ident(name)})::VARCHAR, 'null')"
    return _ident(name)


def _safe_select(rel: Relation, source: str, needs_care: frozenset[str]) -> str:
    """The view's rows (in `source`) flat (_flat_text), the text columns in `needs_care` made safe for
    spreadsheets (cells.py) in SQL, so COPY streams the rows without loading them into Python. The
    rule costs a CASE per cell; a column none of whose cells it would change is written as it is."""
    columns = []
    for c in rel.columns:
        flat = _flat_text(rel, c["name"])
        columns.append(f"{safe_sql(flat) if c['name'] in needs_care else flat} AS {_ident(c['name'])}")
    return f"SELECT {', '.join(columns)} FROM {source}"


def _write_csv(con, staging: Path, relations: list[Relation], loads: Loads, tally: Tally) -> list[WrittenFile]:
    def write(cursor, rel: Relation) -> WrittenFile:
        path = staging / f"{rel.name}.csv"
        with _rows_of(cursor, rel) as rows:
            facts = _text_facts(cursor, rel, rows, loads)
            cursor.execute(f"COPY ({_safe_select(rel, rows, facts.needs_care)}) TO {_literal(str(path))} "
                           "(FORMAT csv, HEADER true)")
        return WrittenFile(rel, path, facts.stats)
    return _two_at_a_time(con, relations, write, tally)


# Text stays text: never a formula, a number or a link, whatever it begins with.
WORKBOOK_OPTIONS = {"strings_to_formulas": False, "strings_to_numbers": False, "strings_to_urls": False,
                    "nan_inf_to_errors": True, "constant_memory": True}


def _write_xlsx(con, staging: Path, relations: list[Relation], loads: Loads, tally: Tally) -> list[WrittenFile]:
    import xlsxwriter
    path = staging / WORKBOOK
    for rel in relations:
        if len(rel.name) > EXCEL_MAX_SHEET_NAME:
            raise ExportError(f"{rel.name}: Excel sheet names hold at most {EXCEL_MAX_SHEET_NAME} characters; "
                              "export it as parquet or csv")
    written = []
    with xlsxwriter.Workbook(str(path), WORKBOOK_OPTIONS) as workbook:
        _date_as_the_last_load(workbook, loads)
        formats = {"DATE": workbook.add_format({"num_format": "yyyy-mm-dd"}),
                   "TIMESTAMP": workbook.add_format({"num_format": "yyyy-mm-dd hh:mm:ss"})}
        for rel in relations:
            with _rows_of(con, rel) as rows:
                facts = _text_facts(con, rel, rows, loads, widths=True)
                if facts.stats.rows > EXCEL_MAX_ROWS:
                    raise ExportError(f"{rel.name} has {facts.stats.rows} rows, more than an Excel sheet holds "
                                      f"({EXCEL_MAX_ROWS}); export it as parquet or csv")
                _write_sheet(con, workbook.add_worksheet(rel.name), rel, rows, facts, formats)
            written.append(WrittenFile(rel, path, facts.stats, sheet=rel.name))
            tally.one_more()
        _write_column_sheet(workbook.add_worksheet("columns"), relations)
    return written


def _date_as_the_last_load(workbook, loads: Loads) -> None:
    """The workbook's creation date (its one timestamp) is the last load's: the same warehouse
    exported again gives the same file, byte for byte."""
    last = max((row["loaded_at"] for row in loads.rows), default=None)
    if last is not None:
        workbook.set_properties({"created": last.astimezone(timezone.utc).replace(tzinfo=None)})


def _write_column_sheet(sheet, relations: list[Relation]) -> None:
    """Every exported column with its type and description, as an Excel table named `columns`."""
    headers = ["view", "column", "type", "description"]
    rows = [[safe_text(text) for text in (rel.name, c["name"], c["type"], c["description"] or "")]
            for rel in relations for c in rel.columns]
    _add_table(sheet, "columns", headers, max(len(rows), 1))
    for column, name in enumerate(headers):
        longest = max([len(name), *(len(row[column]) for row in rows)])
        sheet.set_column(column, column, min(longest * 1.1 + 2, 80))
    for row, values in enumerate(rows, start=1):
        for column, value in enumerate(values):
            if value:
                sheet.write_string(row, column, value)


def _write_sheet(con, sheet, rel: Relation, rows: str, facts: TextFacts, formats: dict) -> None:
    """The view's rows as an Excel table named after it, streamed from DuckDB: numbers, booleans and
    dates stay typed, text is made safe in SQL (cells.py), columns as wide as their longest value."""
    names = [c["name"] for c in rel.columns]
    _add_table(sheet, rel.name, names, max(facts.stats.rows, 1))
    sheet.freeze_panes(1, 0)
    for column, (name, longest) in enumerate(zip(names, facts.longest)):
        sheet.set_column(column, column, min(max(len(name), longest or 0) * 1.1 + 2, 80))
    cursor = con.execute(_excel_select(rel, rows, facts.needs_care))  # the last statement on `con` until every row is read
    kinds = [str(kind) for _, kind, *_ in cursor.description]
    unexpected = sorted({k for k in kinds if k not in SHEET_TYPES})
    if unexpected:
        raise ExportError(f"{rel.name}: no typed Excel cell for DuckDB type(s) {', '.join(unexpected)}")
    dated = [(column, formats[kind]) for column, kind in enumerate(kinds) if kind in formats]
    row = 1
    while batch := cursor.fetchmany(4096):
        for values in batch:
            _write_values(sheet, row, values, dated)
            row += 1


# What _excel_select leaves, each written as its cell: xlsxwriter's write_row picks the cell by the
# value's Python type (bool, int, float, str, date, datetime) as DuckDB returns it.
SHEET_TYPES = ("BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER",
               "FLOAT", "DOUBLE", "DATE", "TIMESTAMP", "VARCHAR")


def _write_values(sheet, row: int, values: tuple, dated: list) -> None:
    """One row of cells, typed: write_row for the row (a null is no cell), then what it cannot type
    alone: a date in its number format, and an empty text as text (write_row would leave no cell)."""
    if not dated and "" not in values:
        sheet.write_row(row, 0, values)
        return
    values = list(values)
    dates = [(column, values[column], cell_format) for column, cell_format in dated]
    empty = [column for column, value in enumerate(values) if value == ""]
    for column, *_ in dates:
        values[column] = None
    sheet.write_row(row, 0, values)
    for column, value, cell_format in dates:
        if value is not None:
            sheet.write_datetime(row, column, value, cell_format)
    for column in empty:
        sheet.write_string(row, column, "")


def _add_table(sheet, name: str, headers: list[str], last_row: int) -> None:
    """An Excel table over the sheet's rows, its header written now. xlsxwriter refuses tables in
    constant-memory mode only because a table given its data would write cells out of order: this
    one is given none, and its header is the first row, written before any other."""
    sheet.constant_memory = False
    try:
        sheet.add_table(0, 0, last_row, len(headers) - 1, {"name": name, "columns": [{"header": h} for h in headers]})
    finally:
        sheet.constant_memory = True
    sheet.write_row(0, 0, headers)  # again, as constant-memory mode stores text (in the row, not the shared table)


def _excel_select(rel: Relation, source: str, needs_care: frozenset[str]) -> str:
    """_safe_select as Excel holds it: no time zones (a timestamp as UTC wall-clock time), bytes as
    hex, and any other type Excel has no cell for as its text."""
    columns = []
    for c in rel.columns:
        name, kind = _ident(c["name"]), c["type"]
        if kind == "TIMESTAMP WITH TIME ZONE":
            columns.append(f"timezone('UTC', {name}) AS {name}")
        elif kind == "BLOB":
            columns.append(f"hex({name}) AS {name}")
        elif kind.startswith("DECIMAL") or kind in ("HUGEINT", "UBIGINT"):
            columns.append(f"CAST({name} AS DOUBLE) AS {name}")
        elif kind in SHEET_TYPES or c["name"] in rel.nested:
            columns.append(name)
        else:
            columns.append(f"CAST({name} AS VARCHAR) AS {name}")
    return f"SELECT {', '.join(columns)} FROM ({_safe_select(rel, source, needs_care)})"


# --- the manifest -----------------------------------------------------------------------------

def _manifest(fmt: str, relations: list[Relation], files: list[WrittenFile], staging: Path,
              warehouse_file: str | None, loads: Loads) -> dict:
    entries = [_file_entry(fmt, f, staging) for f in files]
    questions = {v.name: v.question for v in definitions()}
    return {
        "exported_at": datetime.now(timezone.utc).isoformat(),
        "exported_by": "mlperf-wh export",
        "format": fmt,
        "warehouse": str(Path(warehouse_file).absolute()) if warehouse_file else None,
        "loads": loads.rows,
        "views": {rel.name: _view_entry(rel, [e for e in entries if e["view"] == rel.name], questions)
                  for rel in relations},
        "files": entries,
    }


def _column_entry(column: dict, fmt: str, rel: Relation, partition: dict) -> dict:
    if column["name"] in partition:
        return {**column, "stored_in": "folder name (hive partition)"}
    if fmt != "parquet" and column["name"] in rel.nested:
        return {**column, "encoding": "json"}
    return column


def _file_entry(fmt: str, f: WrittenFile, staging: Path) -> dict:
    rel = f.relation
    entry = {"path": f.path.relative_to(staging).as_posix(), "view": rel.name, "format": fmt}
    if f.sheet:
        entry["sheet"] = f.sheet
    if f.partition:
        entry["partition"] = f.partition
    entry.update({
        "rows": f.stats.rows, "rounds": f.stats.rounds, "loads": f.stats.loads,
        "bytes": f.path.stat().st_size, "sha256": sha256_of(f.path),
        "columns": [_column_entry(c, fmt, rel, f.partition or {}) for c in rel.columns],
    })
    return entry


def _view_entry(rel: Relation, entries: list[dict], questions: dict[str, str]) -> dict:
    return {
        "question": questions.get(rel.name),
        "rows": sum(e["rows"] for e in entries),
        "rounds": sorted({r for e in entries for r in e["rounds"]}, key=round_sort_key),
        "files": [e["path"] + (f"#{e['sheet']}" if "sheet" in e else "") for e in entries],
        "columns": rel.columns,
    }
