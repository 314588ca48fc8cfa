"""The analyst's SQL sandbox behind `mlperf-wh sql`: queries over the warehouse, and nothing else.

Two locks, each enough on its own for what it covers:
- DuckDB's own: the warehouse is opened read-only with `enable_external_access = false` (no file
  or URL is read or written: COPY, EXPORT, ATTACH, read_csv/read_parquet/read_json/read_text/
  read_blob/glob, INSTALL), extension autoloading and autoinstalling off, no spilling to disk, a
  memory limit, then `lock_configuration = true` (no SET/RESET/PRAGMA can undo any of it).
- Ours, decided by DuckDB's parser and never by the text: each statement's type comes from
  `extract_statements` and every function call from the parsed tree (`json_serialize_sql`), so a
  quoted name ("query"), a comment or a string cannot hide one. Only queries run: SELECT (WITH,
  FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE, PIVOT and UNPIVOT are SELECTs to DuckDB), EXPLAIN
  [ANALYZE] of one, and a PIVOT whose columns DuckDB has to find first. A table function runs only
  when it is on ALLOWED_TABLE_FUNCTIONS; any call of a function that reads files, the environment
  or acts on the database is refused wherever it stands.

A query that runs longer than MLPERF_SQL_TIMEOUT is interrupted, while it computes or while its rows
are read: a watchdog thread interrupts the connection, and a statement that does not stop when
interrupted (DuckDB checks for an interrupt between chunks of rows: one scalar call such as
`len(range(2000000000))` builds its list without looking) ends the process STUCK_SECONDS later, with
the same line (the sandbox is read-only: nothing is left half-written). One whose computation needs
more memory than MLPERF_SQL_MEMORY_LIMIT fails, in DuckDB's pool or in the process, which may grow by
the limit and PROCESS_ALLOWANCE while a query runs (within_memory_ceiling); each is one line naming
the limit and how to raise it.
The rows printed are fetched at most `--limit` (plus one: DuckDB counts the others), so `--limit`
bounds what this process holds. `--limit 0` as CSV or JSON streams: DuckDB hands the rows over as
it makes them and this process holds STREAM_ROWS rows at a time (`stream_query`; what DuckDB holds
meanwhile, a sort or an aggregate, is under MLPERF_SQL_MEMORY_LIMIT); as a table or Markdown, every
row is held to size the columns, so it prints at most ALL_ROWS_HELD rows and refuses more in one line.
"""
from __future__ import annotations

import json
import os
import re
import resource
import sys
import threading
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Callable

import duckdb

from warehouse import settings
from warehouse.errors import ExpectedFailure, one_line
from warehouse.store import db
from warehouse.store.rows import Rows, relation_rows

SANDBOX_CONFIG = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "allow_persistent_secrets": False,
    "python_enable_replacements": False,  # `FROM name` never scans a Python variable of ours
    # No spilling: a read-only sandbox writes no <warehouse>.tmp/ beside the file, and the memory
    # limit is a real ceiling instead of a point where the query starts filling the disk.
    "temp_directory": "",
}
ALLOWED_WORDS = "SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE, PIVOT, UNPIVOT, EXPLAIN"
# Table functions that compute rows or read the warehouse's own catalog; every other one (read_*,
# query, query_table, glob, sniff_csv, parquet_*, checkpoint, duckdb_logs, json_execute_serialized_sql
# and whatever a new DuckDB adds) is refused.
ALLOWED_TABLE_FUNCTIONS = frozenset({
    "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree",
    "histogram", "histogram_values", "pg_timezone_names", "icu_calendar_names",
    "duckdb_tables", "duckdb_views", "duckdb_columns", "duckdb_constraints", "duckdb_indexes",
    "duckdb_schemas", "duckdb_databases", "duckdb_types", "duckdb_functions", "duckdb_keywords",
    "duckdb_dependencies", "duckdb_sequences",
    "pragma_table_info", "pragma_show", "pragma_version",
})
# Scalar functions (and names of table functions called anywhere) that read files or the
# environment, run SQL of their own, write, sleep or change state.
REFUSED_FUNCTIONS = frozenset({
    "query", "query_table", "json_execute_serialized_sql", "checkpoint", "force_checkpoint", "glob",
    "sniff_csv", "getenv", "write_log", "truncate_duckdb_logs", "setseed", "nextval", "currval",
    "sleep_ms", "pg_sleep", "which_secret",
})
REFUSED_FUNCTION_NAMES = re.compile(
    r"read_\w+|\w+_scan|parquet_\w+|enable_\w+|disable_\w+|\w*external_resource\w*|\w+_grammar_extension")
# A table name DuckDB would turn into a file read (a replacement scan: FROM 'x.csv', FROM 'dir/*').
FILE_LIKE_NAME = re.compile(r"[./\\:*?]")
# Keywords that begin a statement other than a query: a PIVOT that DuckDB expands into several
# statements is a plain read only if none of these appears in it (CREATE TABLE t AS PIVOT ... is
# one such expansion).
NOT_A_QUERY = frozenset({
    "ALTER", "ANALYZE", "ATTACH", "CALL", "CHECKPOINT", "COPY", "CREATE", "DEALLOCATE", "DELETE",
    "DETACH", "DROP", "EXECUTE", "EXPORT", "IMPORT", "INSERT", "INSTALL", "LOAD", "MERGE", "PRAGMA",
    "PREPARE", "RESET", "SET", "TRUNCATE", "UPDATE", "USE", "VACUUM",
})
PIVOT_STARTS = frozenset({"PIVOT", "PIVOT_WIDER", "UNPIVOT", "PIVOT_LONGER", "SELECT", "WITH", "FROM", "("})


class Refused(ExpectedFailure):
    """A statement the sandbox does not run; the message names it."""


class LimitReached(ExpectedFailure):
    """A query stopped at the sandbox's time or memory limit; the message says how to raise it."""


def connect(path: str | None = None) -> duckdb.DuckDBPyConnection:
    path = db.db_path(path)
    config = {**SANDBOX_CONFIG, "memory_limit": f"{memory_limit_bytes()}B",
              "lock_configuration": True}  # last: the settings above can no longer be changed
    return db.connect(path, read_only=True, config=config)


# --- what may run ----------------------------------------------------------------------------------

def check_statements(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse the whole text unless every statement in it is a query calling only allowed functions."""
    statements = parsed(con, sql)
    if not statements:
        raise Refused("no statement to run: the query holds only comments or spaces" if sql.strip()
                      else "no statement to run: the query is empty")
    for statement in statements:
        check_statement(con, statement)


def check_statement(con: duckdb.DuckDBPyConnection, statement, explained: bool = False) -> None:
    kind = statement.type
    if is_explain(statement) and not explained:
        check_statement(con, explained_statement(con, statement), explained=True)
    elif kind is duckdb.StatementType.SELECT:
        check_calls(tree_calls(serialized(con, statement.query)))
    elif kind is duckdb.StatementType.MULTI and is_plain_pivot(statement.query):
        # A PIVOT that has to find its columns first is several statements to DuckDB, which it
        # does not serialize: its calls come from DuckDB's tokenizer instead.
        check_calls(token_calls(statement.query), table_functions(con))
    else:
        refuse_kind(statement, "EXPLAIN " if explained else "")


def parsed(con: duckdb.DuckDBPyConnection, sql: str) -> list:
    try:
        return con.extract_statements(sql)
    except duckdb.Error as exc:
        raise Refused(f"cannot parse the query: {without_setting_advice(str(exc))}") from None


# DuckDB's advice to raise a setting ("Use "SET max_expression_depth TO x" to increase ..."): `sql`
# refuses SET (lock_configuration), so the advice is replaced by what can be done.
SETTING_ADVICE = re.compile(r"""\s*Use\s+["']?SET\s+(\w+)[^.]*\.?""", re.IGNORECASE)


def without_setting_advice(text: str) -> str:
    found = SETTING_ADVICE.search(text)
    if not found:
        return text
    return (SETTING_ADVICE.sub("", text).rstrip() + f" (`sql` cannot change {found.group(1)}: its settings "
            "are locked; write the query with fewer nested levels, e.g. IN (...) or a CASE instead of a "
            "chain of ORs or nested calls)")


def refuse_kind(statement, prefix: str = "") -> None:
    if statement.type is duckdb.StatementType.MULTI:
        kind = first_word(statement.query) or "MULTI"
    else:
        kind = statement.type.name.replace("_STATEMENT", "")
    raise Refused(f"`sql` is read-only and runs queries only ({ALLOWED_WORDS}); refused {prefix}{kind}: "
                  f"{_excerpt(statement.query)}")


def is_explain(statement) -> bool:
    return statement.type is duckdb.StatementType.EXPLAIN or (
        statement.type is duckdb.StatementType.MULTI and first_word(statement.query) == "EXPLAIN")


def explained_statement(con: duckdb.DuckDBPyConnection, statement):
    """The statement after EXPLAIN [ANALYZE], parsed on its own."""
    words = tokens(statement.query)
    start = 2 if len(words) > 2 and words[1][1].upper() in ("ANALYZE", "ANALYSE") else 1
    inner = statement.query[words[start][0]:] if len(words) > start else ""
    try:
        statements = con.extract_statements(inner)
    except duckdb.Error:
        statements = []
    if len(statements) != 1:
        raise Refused(f"`sql` runs EXPLAIN [ANALYZE] of one query only; refused: {_excerpt(statement.query)}")
    return statements[0]


def is_plain_pivot(sql: str) -> bool:
    words = tokens(sql)
    upper = [text.upper() for _, text, kind in words if kind == duckdb.token_type.keyword]
    return (bool(words) and words[0][1].upper() in PIVOT_STARTS
            and any(word.startswith(("PIVOT", "UNPIVOT")) for word in upper)
            and not NOT_A_QUERY.intersection(upper))


# --- the calls a statement makes -------------------------------------------------------------------

def serialized(con: duckdb.DuckDBPyConnection, sql: str) -> dict:
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0][0])
    except RecursionError:
        raise Refused(f"the query is nested too deeply to check: {_excerpt(sql)}") from None
    if tree.get("error"):
        raise Refused(f"cannot check the query: {without_setting_advice(str(tree.get('error_message')))}: {_excerpt(sql)}")
    return tree


def tree_calls(tree) -> list[tuple[str, str]]:
    """(kind, name) of every function call and table reference in a serialized tree: kind is
    'table function', 'function' or 'table'; names lower-cased, as DuckDB matches them."""
    found, pending = [], [tree]
    while pending:  # a loop, not recursion: a deeply nested query is no RecursionError here
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            if node.get("type") == "TABLE_FUNCTION":
                found.append(("table function", str(node["function"].get("function_name", "?")).lower()))
            elif node.get("class") == "FUNCTION":
                found.append(("function", node["function_name"].lower()))
            elif node.get("type") in ("BASE_TABLE", "SHOW_REF") and node.get("table_name"):
                found.append(("table", node["table_name"]))
            pending.extend(node.values())
    return found


def token_calls(sql: str) -> list[tuple[str, str]]:
    """(kind, name) of every `name(` in the text as DuckDB's tokenizer splits it: strings and
    comments are tokens of their own, quoted names come unquoted."""
    words = tokens(sql)
    return [("function", unquoted(text).lower())
            for (_, text, kind), (_, following, _) in pairwise(words)
            if kind in (duckdb.token_type.identifier, duckdb.token_type.keyword) and following == "("]


def tokens(sql: str) -> list[tuple[int, str, object]]:
    """(position, text, token type) of each token but comments."""
    found = duckdb.tokenize(sql)
    ends = [start for start, _ in found[1:]] + [len(sql)]
    return [(start, sql[start:end].strip(), kind) for (start, kind), end in zip(found, ends)
            if kind != duckdb.token_type.comment]


def first_word(sql: str) -> str:
    words = tokens(sql)
    return words[0][1].upper() if words else ""


def unquoted(name: str) -> str:
    return name[1:-1].replace('""', '"') if name.startswith('"') and name.endswith('"') else name


def check_calls(calls: list[tuple[str, str]], table_functions: set[str] = frozenset()) -> None:
    """Refuse the first call that is not allowed; `table_functions`: DuckDB's, for calls whose
    place in the query (FROM or not) is unknown."""
    for kind, name in calls:
        if kind == "table":
            if FILE_LIKE_NAME.search(name):
                raise Refused(f"`sql` reads only the warehouse's tables and views, no other file or URL; "
                              f"refused FROM {name!r}")
        elif name in REFUSED_FUNCTIONS or REFUSED_FUNCTION_NAMES.fullmatch(name):
            raise Refused(f"`sql` reads only the warehouse's tables and views; refused {name}(): "
                          "it reads files or the environment, or acts on the database")
        elif name not in ALLOWED_TABLE_FUNCTIONS and (kind == "table function" or name in table_functions):
            raise Refused(f"`sql` reads only the warehouse's tables and views; refused {name}(): the table "
                          f"functions it runs are {', '.join(sorted(ALLOWED_TABLE_FUNCTIONS))}")


def table_functions(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {name.lower() for (name,) in con.execute(
        "SELECT DISTINCT function_name FROM duckdb_functions() "
        "WHERE function_type IN ('table', 'table_macro')").fetchall()}


# --- running it, within the limits -----------------------------------------------------------------

def run_query(con: duckdb.DuckDBPyConnection, sql: str, limit: int | None = None,
              as_rows: bool = False) -> tuple[pl.DataFrame | Rows, int]:
    """The rows of the last statement (at most `limit` fetched: the others are counted by DuckDB,
    never held here) and how many there are in all; with `as_rows` (a table to print) as Rows when
    every column can be read without polars (warehouse/store/rows.py), else as a polars frame."""
    check_statements(con, sql)
    with within_limits(con):
        relation = con.sql(sql)
        if relation is None:
            return (Rows([], [], []) if as_rows else _no_frame()), 0
        fetched = None if limit is None else limit + 1
        found = (as_rows and relation_rows(relation, fetched)) or db.relation_frame(relation, fetched)
        if limit is None or found.height <= limit:
            return found, found.height
        return found.head(limit), relation.aggregate("count(*)").fetchall()[0][0]


@contextmanager
def within_limits(con: duckdb.DuckDBPyConnection):
    """Run the block under MLPERF_SQL_TIMEOUT and the process's memory ceiling; DuckDB's errors (and
    polars' reading DuckDB's rows) become the one line naming the limit reached, or DuckDB's own message."""
    timeout = settings.current().sql_timeout
    with interrupted_after(con, timeout) as timed_out, within_memory_ceiling():
        try:
            yield
        except Exception as exc:
            if not isinstance(exc, (duckdb.Error, MemoryError)) and not _from_duckdb(exc, timed_out.is_set()):
                raise
            raise failure_of(exc, timed_out.is_set(), timeout) from None


STREAM_ROWS = 2048        # rows this process holds at a time while `--limit 0` streams CSV or JSON
ALL_ROWS_HELD = 100_000   # rows `--limit 0` prints as a table or Markdown (each is held to size the columns)


def stream_query(con: duckdb.DuckDBPyConnection, sql: str, emit: Callable[[pl.DataFrame, bool], None],
                 batch_rows: int = STREAM_ROWS) -> int:
    """Every row of the last statement, handed to `emit(frame, first)` STREAM_ROWS at a time (at
    least once: an empty first frame carries the header), under the time limit; how many rows."""
    check_statements(con, sql)
    with within_limits(con):
        relation = con.sql(sql)
        if relation is None:
            emit(_no_frame(), True)
            return 0
        names = db.unique_names(relation.columns)
        as_text = {name for name, kind in zip(names, relation.types) if db.needs_text(str(kind))}
        # HUGEINT as its text: a batch of Python ints cannot be a DECIMAL(38) past 38 digits, as Arrow's can
        as_text |= {name for name, kind in zip(names, relation.types) if str(kind) == "HUGEINT"}
        as_text |= _undrawable_dates(db.projected(relation, names, as_text, None), names, as_text)
        rows = db.projected(relation, names, as_text, None)
        schema = db.relation_frame(rows, 0).schema
        # execute + fetchmany: DuckDB streams the result (a relation's rows are read whole first)
        result, count, first = con.execute(rows.sql_query()), 0, True
        while (batch := result.fetchmany(batch_rows)) or first:
            emit(_batch_frame(batch, schema), first)
            count, first = count + len(batch), False
        return count


def _undrawable_dates(relation: duckdb.DuckDBPyRelation, names: list[str], as_text: set[str]) -> set[str]:
    """The DATE and TIMESTAMP columns holding a value polars cannot draw (infinity, a year outside
    1-9999): printed as DuckDB's text, as db.relation_frame does when it reads them whole. Asked of
    DuckDB first (the query runs twice when it has such columns): a batch cannot change its type."""
    dated = [name for name, kind in zip(names, relation.types)
             if name not in as_text and db.TYPED_AT_TOP.fullmatch(str(kind)) and str(kind).startswith(("DATE", "TIMESTAMP"))]
    if not dated:
        return set()
    quoted = ['"' + name.replace('"', '""') + '"' for name in dated]
    found = relation.aggregate(", ".join(
        f"coalesce(bool_or(CASE WHEN isfinite({q}) THEN year({q}) NOT BETWEEN 1 AND 9999 ELSE {q} IS NOT NULL END), false)"
        for q in quoted)).fetchall()[0]
    return {name for name, undrawable in zip(dated, found) if undrawable}


def _batch_frame(rows: list[tuple], schema) -> pl.DataFrame:
    """Rows as DuckDB hands them to Python -> a frame of the schema the whole result would have
    (relation_frame's): text columns take a value's text (a UUID), the rest their own values. A
    value no column of that type can hold is one line, naming it."""
    import polars as pl
    columns = list(zip(*rows)) if rows else [()] * len(schema)
    data = {name: [v if v is None or isinstance(v, str) else str(v) for v in values] if dtype == pl.String
            else list(values) for (name, dtype), values in zip(schema.items(), columns)}
    try:
        return pl.DataFrame(data, schema=schema)
    except (pl.exceptions.PolarsError, TypeError, ValueError, OverflowError) as exc:
        raise ExpectedFailure(f"--limit 0 streams rows as they come and cannot print these ({one_line(str(exc))[:200]}); "
                              "print them with --limit N, or cast the column to VARCHAR") from None


def _from_duckdb(exc: Exception, timed_out: bool) -> bool:
    """A polars error raised while it read DuckDB's rows is DuckDB's (an interrupt, memory)."""
    polars = sys.modules.get("polars")  # not imported when the rows were read without it
    return (polars is not None and isinstance(exc, polars.exceptions.PolarsError)
            and (timed_out or "external error" in str(exc)))


def _no_frame():
    import polars as pl
    return pl.DataFrame()


STUCK_SECONDS = 2.0  # after an interrupt, for the statement to stop before the process is ended


@contextmanager
def interrupted_after(con: duckdb.DuckDBPyConnection, seconds: float, on_stuck: Callable[[], None] | None = None):
    """Interrupt whatever `con` runs once `seconds` have passed; yields the event saying it did. A
    statement still running STUCK_SECONDS after the interrupt gets `on_stuck` (default: the time
    limit's line, and the process ends: `end_process`)."""
    fired, done = threading.Event(), threading.Event()

    def interrupt():
        fired.set()
        con.interrupt()
        if not done.wait(STUCK_SECONDS):
            (on_stuck or (lambda: end_process(failure_of(None, True, seconds))))()

    timer = threading.Timer(seconds, interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        done.set()
        timer.cancel()


def end_process(failure: ExpectedFailure) -> None:
    """The one `error:` line, then the process ends at once: a statement that ignores DuckDB's
    interrupt cannot be stopped otherwise (the thread running it is inside DuckDB)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    os.write(2, f"error: {one_line(str(failure))}\n".encode())
    os._exit(failure.exit_code)


# DuckDB's memory_limit bounds its buffer pool, not everything a query allocates: a list built by one
# scalar call (`len(range(20000000))` under a 300MB limit held 1.08 GB; `len(range(2000000000))` at
# the default limits grew to 24 GB and was killed by the kernel, which on a shared host may pick
# another process first). So the process itself is bounded while a query runs: its data segment
# (RLIMIT_DATA: every private allocation, malloc's and DuckDB's alike) may grow by the limit and
# PROCESS_ALLOWANCE more (the rows it fetches, DuckDB's structures outside the pool). An allocation
# past that fails at once, inside DuckDB as its own "Out of Memory Error", and the query ends with
# the memory line. The ceiling is set above what the process holds when the query starts (a test's
# in-process run keeps what it held) and lifted when the query ends.
PROCESS_ALLOWANCE = 256 * 1024 ** 2


@contextmanager
def within_memory_ceiling():
    """RLIMIT_DATA at this process's data size now plus the memory limit and PROCESS_ALLOWANCE for
    the block, then as it was. Where the data size cannot be read (no
    /proc: not Linux), DuckDB's own limit is the only one."""
    held = data_size()
    if held is None:
        yield
        return
    before = resource.getrlimit(resource.RLIMIT_DATA)
    ceiling = held + memory_limit_bytes() + PROCESS_ALLOWANCE
    if before[0] != resource.RLIM_INFINITY:
        ceiling = min(ceiling, before[0])
    resource.setrlimit(resource.RLIMIT_DATA, (ceiling, before[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, before)


def data_size() -> int | None:
    """This process's data segment in bytes (VmData of /proc/self/status: what RLIMIT_DATA counts), or None."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmData:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else None


def failure_of(exc: BaseException | None, timed_out: bool, timeout: float) -> ExpectedFailure:
    if timed_out:
        return LimitReached(f"the query ran past `sql`'s time limit of {timeout:g} s and was stopped; "
                            f"narrow it, or raise the limit: {settings.variable('sql_timeout')}=SECONDS")
    if isinstance(exc, (duckdb.OutOfMemoryException, MemoryError)) or "Out of Memory Error" in str(exc):
        return memory_failure()
    if isinstance(exc, duckdb.PermissionException):
        return Refused(f"`sql` reads only the warehouse, no other file or URL: {exc}")
    hint = " (the warehouse is opened read-only: `sql` answers queries and changes nothing)" \
        if "read-only" in str(exc) else ""
    return ExpectedFailure(f"{without_setting_advice(str(exc))}{hint}")


def memory_failure() -> LimitReached:
    limit = settings.current().sql_memory_limit
    if limit.endswith("%"):
        limit = f"{limit} of this machine's memory ({_size_text(memory_limit_bytes())})"
    return LimitReached(f"the query needed more memory than `sql`'s limit of {limit} and was stopped (DuckDB may "
                        f"use the limit, its process {_size_text(PROCESS_ALLOWANCE)} more); narrow it, or raise "
                        f"the limit: {settings.variable('sql_memory_limit')}=50% or =8GB")


def memory_limit_bytes() -> int:
    """MLPERF_SQL_MEMORY_LIMIT in bytes: a share of this machine's memory ("25%") or a size ("8GB")."""
    number, unit = settings.memory_size(settings.current().sql_memory_limit)
    if unit == "%":
        return int(total_memory() * number / 100)
    return int(number * settings.SIZE_UNITS[unit.lower()])


def total_memory() -> int:
    """Physical memory, or the container's (cgroup v2) limit when that is lower."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        cgroup = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return physical
    return min(physical, int(cgroup)) if cgroup.isdigit() else physical


def _size_text(size: int) -> str:
    return f"{size / 1024 ** 3:.1f} GiB" if size >= 1024 ** 3 else f"{size / 1024 ** 2:.0f} MiB"


def _excerpt(query: str, limit: int = 80) -> str:
    text = " ".join(query.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
