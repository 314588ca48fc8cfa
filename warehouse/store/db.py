"""The DuckDB warehouse: connection, tables, and the one-transaction load of a source file."""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import duckdb

from warehouse import settings
from warehouse.errors import Interrupted

if TYPE_CHECKING:
    from warehouse.store.checked import CheckedWarehouse

DEFAULT_DB = settings.default("warehouse_db")

TABLES = """
CREATE TABLE IF NOT EXISTS sources (
    source_id        VARCHAR PRIMARY KEY,  -- official/{round} or unofficial/{round}/{file}
    round            VARCHAR NOT NULL,
    origin           VARCHAR NOT NULL,     -- official | unofficial
    url              VARCHAR NOT NULL,     -- where the bytes came from (URL or local path)
    file_name        VARCHAR NOT NULL,
    format           VARCHAR NOT NULL,     -- final | checker_json | checker_csv
    sha256           VARCHAR NOT NULL,
    bytes            BIGINT NOT NULL,
    etag             VARCHAR,
    last_modified    VARCHAR,
    fetched_at       TIMESTAMPTZ NOT NULL,
    loaded_at        TIMESTAMPTZ NOT NULL,
    rows_read        INTEGER NOT NULL,
    rows_loaded      INTEGER NOT NULL,
    rows_quarantined INTEGER NOT NULL,
    unknown_columns  VARCHAR[] NOT NULL,
    CHECK (rows_read = rows_loaded + rows_quarantined)
);
-- the load guards this load was told to skip (--allow), recorded as lineage (warehouse/guards.py)
ALTER TABLE sources ADD COLUMN IF NOT EXISTS overrides VARCHAR[];
-- Names as published; canonical accelerator and benchmark are resolved at view time (stg_results).
CREATE TABLE IF NOT EXISTS results (
    round VARCHAR NOT NULL, division VARCHAR, availability VARCHAR,
    suite VARCHAR, submitter VARCHAR NOT NULL, system VARCHAR, platform VARCHAR NOT NULL,
    result_id VARCHAR, entry_id VARCHAR NOT NULL,
    model VARCHAR NOT NULL, used_model VARCHAR,
    scenario VARCHAR NOT NULL, metric VARCHAR NOT NULL, value DOUBLE NOT NULL, units VARCHAR,
    higher_is_better BOOLEAN,
    accelerator_raw VARCHAR,
    accelerators_per_node BIGINT, nodes BIGINT, total_accelerators BIGINT,
    accelerator_count_disagrees BOOLEAN NOT NULL DEFAULT false,
    processor VARCHAR, software VARCHAR, weight_data_types VARCHAR, accuracy VARCHAR,
    tokens_per_sample DOUBLE, inferred BOOLEAN NOT NULL, verification VARCHAR NOT NULL,
    extra VARCHAR,                         -- JSON: the record's fields the parser does not map
    source_id VARCHAR NOT NULL, record_no BIGINT NOT NULL,
    location VARCHAR,                      -- the run folder as published (submission tree)
    processors_per_node BIGINT,            -- host processors per node (host_processors_per_node, p#)
    notes VARCHAR,                         -- Notes as published
    -- the last good value of a row the source's latest table published in a record that failed
    -- validation (kept, not withdrawn: replace_source); stale_reason: the checks that record failed
    stale BOOLEAN NOT NULL DEFAULT false, stale_reason VARCHAR
);
CREATE TABLE IF NOT EXISTS quarantine (
    round VARCHAR NOT NULL, source_id VARCHAR NOT NULL, record_no BIGINT NOT NULL,
    raw_record VARCHAR NOT NULL,           -- the record exactly as the file had it, as JSON
    reasons VARCHAR[] NOT NULL             -- every check it failed
);
CREATE TABLE IF NOT EXISTS claims (
    id VARCHAR PRIMARY KEY, claim_file VARCHAR NOT NULL, vendor VARCHAR NOT NULL, source VARCHAR NOT NULL,
    published_on DATE NOT NULL, statement VARCHAR NOT NULL, round VARCHAR NOT NULL,
    model VARCHAR NOT NULL, benchmark VARCHAR NOT NULL, scenario VARCHAR, kind VARCHAR NOT NULL,
    accelerator VARCHAR, baseline_accelerator VARCHAR, total_accelerators BIGINT,
    baseline_total_accelerators BIGINT, round_from VARCHAR, submitter VARCHAR, basis VARCHAR,
    multiplier DOUBLE, stage VARCHAR NOT NULL, cited_result_ids VARCHAR[],
    direction VARCHAR NOT NULL DEFAULT 'throughput'   -- throughput | latency
);
-- warehouses created before claims had a direction: every earlier claim was a throughput claim
ALTER TABLE claims ADD COLUMN IF NOT EXISTS direction VARCHAR DEFAULT 'throughput';
CREATE TABLE IF NOT EXISTS decisions (
    id VARCHAR PRIMARY KEY, decision_file VARCHAR NOT NULL, title VARCHAR NOT NULL,
    workload VARCHAR, metric VARCHAR, measured_by VARCHAR,
    claims_used VARCHAR[] NOT NULL, claims_excluded VARCHAR[] NOT NULL,
    decision VARCHAR NOT NULL, decided_on DATE NOT NULL,
    review_due VARCHAR NOT NULL,       -- as written: a round, 'next' or a date
    review_round VARCHAR,              -- the round whose publication makes the review due
    review_date DATE                   -- or the date that does
);
-- Your own serving measurements (mlperf-wh measurements load): schemas/measurements.py. Never MLPerf rows.
CREATE TABLE IF NOT EXISTS measurement_files (
    sha256 VARCHAR PRIMARY KEY, path VARCHAR NOT NULL, file_name VARCHAR NOT NULL, format VARCHAR NOT NULL,
    tool VARCHAR NOT NULL, bytes BIGINT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL,
    runs_read INTEGER NOT NULL, runs_loaded INTEGER NOT NULL, runs_quarantined INTEGER NOT NULL,
    options VARCHAR NOT NULL,          -- JSON: --accelerator, --accelerators, --system, --label as given
    CHECK (runs_read = runs_loaded + runs_quarantined)
);
CREATE TABLE IF NOT EXISTS own_measurements (
    run_id VARCHAR PRIMARY KEY, file_sha256 VARCHAR NOT NULL, run_no BIGINT NOT NULL, tool VARCHAR NOT NULL,
    tool_version VARCHAR, label VARCHAR, model_id VARCHAR NOT NULL, accelerator_raw VARCHAR NOT NULL,
    accelerators BIGINT NOT NULL, system VARCHAR, measured_at TIMESTAMP, backend VARCHAR,
    max_concurrency BIGINT, request_rate DOUBLE, completed BIGINT, failed BIGINT, duration_s DOUBLE,
    input_tokens BIGINT, output_tokens BIGINT, mean_input_tokens DOUBLE, mean_output_tokens DOUBLE,
    request_throughput DOUBLE, output_tokens_per_second DOUBLE NOT NULL, total_tokens_per_second DOUBLE,
    ttft_mean_ms DOUBLE, ttft_median_ms DOUBLE, ttft_p99_ms DOUBLE,
    tpot_mean_ms DOUBLE, tpot_median_ms DOUBLE, tpot_p99_ms DOUBLE,
    itl_mean_ms DOUBLE, itl_median_ms DOUBLE, itl_p99_ms DOUBLE,
    e2el_mean_ms DOUBLE, e2el_median_ms DOUBLE, e2el_p99_ms DOUBLE,
    tokens_per_second_per_user DOUBLE, verification VARCHAR NOT NULL, extra VARCHAR
);
CREATE TABLE IF NOT EXISTS own_measurement_requests (
    run_id VARCHAR NOT NULL, request_no BIGINT NOT NULL, input_tokens BIGINT, output_tokens BIGINT,
    ttft_ms DOUBLE, latency_ms DOUBLE, tpot_ms DOUBLE, error VARCHAR
);
CREATE TABLE IF NOT EXISTS own_measurement_quarantine (
    file_sha256 VARCHAR NOT NULL, run_no BIGINT NOT NULL,
    raw_run VARCHAR NOT NULL,          -- the run exactly as the file had it, as JSON
    reasons VARCHAR[] NOT NULL
);
-- measured_by may list own-measurement labels and run ids (decisions loaded earlier: null, the text alone)
ALTER TABLE decisions ADD COLUMN IF NOT EXISTS measured_by_items VARCHAR[];
-- The rounds the warehouse knows (registry and found by the watcher): schemas/rounds.py RoundRow.
CREATE TABLE IF NOT EXISTS rounds (
    round VARCHAR PRIMARY KEY, repository VARCHAR NOT NULL, branch VARCHAR NOT NULL,
    files VARCHAR[] NOT NULL, published_on DATE NOT NULL, found_by VARCHAR NOT NULL
);
-- Every load (and failed attempt) with what it changed: schemas/rounds.py LoadEvent.
CREATE TABLE IF NOT EXISTS load_events (
    loaded_at TIMESTAMPTZ NOT NULL, flow_run_id VARCHAR, run_kind VARCHAR NOT NULL, round VARCHAR NOT NULL,
    source_id VARCHAR, url VARCHAR, status VARCHAR NOT NULL, sha256 VARCHAR, previous_sha256 VARCHAR,
    rows_read BIGINT NOT NULL, rows_loaded BIGINT NOT NULL, rows_quarantined BIGINT NOT NULL,
    results_new BIGINT NOT NULL, results_changed BIGINT NOT NULL, results_removed BIGINT NOT NULL,
    change_summary VARCHAR NOT NULL
);
"""

RESULT_COLUMNS = [
    "round", "division", "availability", "suite", "submitter", "system", "platform", "result_id",
    "entry_id", "model", "used_model", "scenario", "metric", "value", "units",
    "higher_is_better", "accelerator_raw", "accelerators_per_node", "nodes",
    "total_accelerators", "accelerator_count_disagrees", "processor", "software", "weight_data_types",
    "accuracy", "tokens_per_sample", "inferred", "verification", "extra", "source_id", "record_no", "location",
    "processors_per_node", "notes",
]
# Not published: what the loader says of a row it kept from an earlier load (replace_source).
STALE_COLUMNS = ["stale", "stale_reason"]

# A warehouse written by an earlier version: identity columns were resolved at load time and the
# vocabulary columns were NOT NULL. Bring it to the current shape (identity now lives in the views).
MIGRATIONS = [
    ("results", "accelerator", "ALTER TABLE results DROP COLUMN accelerator"),
    ("results", "benchmark", "ALTER TABLE results DROP COLUMN benchmark"),
]
ADDED_COLUMNS = [
    ("results", "accelerator_count_disagrees",
     "ALTER TABLE results ADD COLUMN accelerator_count_disagrees BOOLEAN NOT NULL DEFAULT false"),
    ("results", "extra", "ALTER TABLE results ADD COLUMN extra VARCHAR"),
    ("results", "location", "ALTER TABLE results ADD COLUMN location VARCHAR"),
    # Earlier versions kept these fields in `extra`, as published: they move to columns of their own.
    ("results", "notes", "ALTER TABLE results ADD COLUMN notes VARCHAR; "
                         "UPDATE results SET notes = nullif(trim(extra->>'Notes'), '')"),
    ("results", "processors_per_node",
     "ALTER TABLE results ADD COLUMN processors_per_node BIGINT; "
     "UPDATE results SET processors_per_node = nullif(TRY_CAST(TRY_CAST(coalesce(extra->>'host_processors_per_node', "
     "extra->>'p#') AS DOUBLE) AS BIGINT), 0)"),
    ("results", "stale", "ALTER TABLE results ADD COLUMN stale BOOLEAN NOT NULL DEFAULT false"),
    ("results", "stale_reason", "ALTER TABLE results ADD COLUMN stale_reason VARCHAR"),
    # a quarantined row told from a withdrawn one (warehouse/ingest/changes.py)
    ("result_changes", "reason", "ALTER TABLE result_changes ADD COLUMN reason VARCHAR"),
    # a rebuilt round's listing as last rebuilt: a rerun that lists the same rebuilds nothing (tree_rebuild_load)
    ("sources", "tree_identity", "ALTER TABLE sources ADD COLUMN tree_identity VARCHAR"),
    # what became of a leader that lost its place (warehouse/notify/fates.py)
    ("answer_changes", "because", "ALTER TABLE answer_changes ADD COLUMN because VARCHAR"),
]
NOW_NULLABLE = [("results", c) for c in ("division", "availability", "suite", "units")]
MIGRATED_TABLES = sorted({t for t, _, _ in MIGRATIONS + ADDED_COLUMNS} | {t for t, _ in NOW_NULLABLE}
                         | {"run_summaries", "tree_files", "systems"})


class ReadOnlyViolation(RuntimeError):
    pass


def db_path(explicit: str | None = None) -> str:
    return explicit or settings.current().warehouse_db


def connect(path: str | CheckedWarehouse | None = None, read_only: bool = False,
            config: dict | None = None) -> duckdb.DuckDBPyConnection:
    """A connection; a file that cannot be opened (locked, corrupt, not DuckDB, disk full) raises
    WarehouseUnavailable, in one line naming the file. A path is checked first (warehouse.store.paths);
    a run's checked warehouse (warehouse.store.checked) was, and is opened as it is."""
    from warehouse.store.change_tables import TABLES as CHANGE_TABLES
    from warehouse.store.checked import CheckedWarehouse
    from warehouse.store.tree_tables import TABLES as TREE_TABLES
    from warehouse.store.warehouse_file import open_warehouse
    is_checked = isinstance(path, CheckedWarehouse)
    if is_checked:
        path.refuse_a_replaced_file()
    con = open_warehouse(path.path if is_checked else db_path(path), read_only, duckdb_config(config),
                         TABLES + TREE_TABLES + CHANGE_TABLES, checked=is_checked)
    if is_checked:
        try:
            path.refuse_a_replaced_file()  # swapped between the look and DuckDB's open
        except BaseException:
            con.close()
            raise
    if not read_only:
        migrate(con)
    return con


def duckdb_config(config: dict | None = None) -> dict:
    """`config` and the threads MLPERF_DUCKDB_THREADS allows (first: a config that locks itself must
    see it), for every connection to a file: DuckDB refuses a second connection, in one process, to a
    file already open there with another configuration."""
    threads = settings.current().duckdb_threads
    return {"threads": threads, **(config or {})} if threads else dict(config or {})


def migrate(con: duckdb.DuckDBPyConnection) -> None:
    columns = {(t, c): nullable for t, c, nullable in con.execute(
        "SELECT table_name, column_name, is_nullable FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = current_schema() "
        "AND table_name IN (SELECT unnest(?::VARCHAR[]))", [MIGRATED_TABLES]).fetchall()}
    steps = [sql for table, column, sql in MIGRATIONS if (table, column) in columns]
    steps += [sql for table, column, sql in ADDED_COLUMNS if (table, column) not in columns]
    steps += [f"ALTER TABLE {t} ALTER COLUMN {c} DROP NOT NULL" for t, c in NOW_NULLABLE
              if columns.get((t, c)) is False]
    from warehouse.store.tree_tables import added_tree_columns
    steps += added_tree_columns(set(columns))
    if steps:
        with transaction(con):
            for sql in steps:
                con.execute(sql)


@contextmanager
def one_thread(con: duckdb.DuckDBPyConnection):
    """DuckDB on one thread for the block, then as it was: for many small catalog changes (the
    column comments), which use no worker threads and cost 20% less without them to schedule."""
    threads = scalar(con, "SELECT current_setting('threads')")
    con.execute("SET threads = 1")
    try:
        yield con
    finally:
        con.execute(f"SET threads = {int(threads)}")


@contextmanager
def returning_freed_memory(con: duckdb.DuckDBPyConnection):
    """For the block, DuckDB's allocator hands memory back to the system whenever more than 1 MB is
    freed at once, rather than keeping it for reuse; then as it was. For a statement that frees much
    that no later one reuses (warehouse.views.materialize.BuildSnapshots). The setting is the
    database's, set and restored on a cursor of its own: `con`'s transaction may have failed in the
    block, and a failed transaction refuses every statement, a SET too, until it is rolled back."""
    setting = "allocator_bulk_deallocation_flush_threshold"
    with con.cursor() as own:
        before = scalar(own, f"SELECT current_setting('{setting}')")
        own.execute(f"SET {setting} = '1MB'")
        try:
            yield con
        finally:
            own.execute(f"SET {setting} = '{before}'")


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection, what: str = "the load"):
    """One transaction for the block. Once a signal has stopped the command, it never commits (a
    task thread's transaction included: the thread the signal stopped is another), and one rolled
    back by the interrupt is recorded as `what`, for the line the command ends with."""
    from warehouse import interrupt
    from warehouse.store import lock
    if (signum := interrupt.signalled()) is not None:  # a task thread the signal did not stop
        raise Interrupted(signum)
    if id(con) in _IN_TRANSACTION:  # inside another's block: its one transaction commits or rolls back all
        yield con
        return
    key = object()
    con.begin()
    _IN_TRANSACTION.add(id(con))
    lock.IN_FLIGHT[key] = (con, what)
    try:
        try:
            yield con
            if (signum := interrupt.signalled()) is not None:
                raise Interrupted(signum)
        except BaseException as exc:
            if interrupt.signalled() is not None or isinstance(exc, (Interrupted, KeyboardInterrupt)):
                lock.WRITES_CUT_SHORT.append(what)  # before the rollback, which the signal may interrupt too
            _roll_back(con)
            interrupt.raise_if_signalled(exc)
            raise
        con.commit()
    finally:
        lock.IN_FLIGHT.pop(key, None)
        _IN_TRANSACTION.discard(id(con))


def _roll_back(con: duckdb.DuckDBPyConnection, attempts: int = 100) -> None:
    """After a signal the thread holding the writer lock interrupts every open transaction until it
    ends (lock.stop_writes_in_flight): the rollback itself can be the statement it interrupts, which
    left the transaction open and the line saying no load was in flight."""
    for attempt in range(attempts):
        try:
            con.rollback()
            return
        except duckdb.InterruptException:
            if attempt == attempts - 1:
                raise


_IN_TRANSACTION: set[int] = set()   # the connections a transaction() block holds open


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, **frames: pl.DataFrame):
    """Make polars frames queryable by name for the duration of the block."""
    for name, frame in frames.items():
        con.register(name, _ArrowStream(frame))
    try:
        yield con
    finally:
        for name in frames:
            con.unregister(name)


class _ArrowStream:
    """A polars frame as DuckDB scans it through the Arrow PyCapsule interface: no pyarrow in
    between (handed a polars frame, DuckDB converts it with pyarrow, an import of its own)."""

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema=None):
        return self.frame.__arrow_c_stream__(requested_schema)


@dataclass(frozen=True)
class SourceRecord:
    source_id: str
    round: str
    origin: str
    url: str
    file_name: str
    format: str
    sha256: str
    bytes: int
    etag: str | None
    last_modified: str | None
    fetched_at: datetime
    rows_read: int
    rows_loaded: int
    rows_quarantined: int
    unknown_columns: list[str]
    overrides: list[str] = field(default_factory=list)
    tree_identity: str | None = None   # a round rebuilt from its tree: rebuilding.tree_identity


def replace_source(con: duckdb.DuckDBPyConnection, source: SourceRecord,
                   results: pl.DataFrame, quarantine: pl.DataFrame, also=None,
                   quarantined_rows: pl.DataFrame | None = None) -> None:
    """One transaction: this source's rows are replaced whole, or nothing changes. `also(con)`, when
    given, writes in the same transaction (what the load changed: warehouse.ingest.changes).
    `quarantined_rows` (validate.Validated.quarantined_rows): the keys of the rows the new table
    published in records that failed; the source's row of each such key keeps its value, marked
    stale with the record's reason and renumbered to the record's place in the new file."""
    import polars as pl
    results = results.select(RESULT_COLUMNS)
    quarantine = quarantine.select(
        pl.lit(source.round).alias("round"), pl.lit(source.source_id).alias("source_id"),
        "record_no", "raw_record", "reasons")
    stale = {"_incoming_stale": quarantined_rows} if quarantined_rows is not None and quarantined_rows.height else {}
    row = {**source.__dict__, "loaded_at": datetime.now(timezone.utc)}
    with registered(con, _incoming_results=results, _incoming_quarantine=quarantine, **stale), transaction(con):
        if also is not None:
            also(con)
        if stale:
            _keep_stale(con, source.source_id)
        else:
            con.execute("DELETE FROM results WHERE source_id = ?", [source.source_id])
        con.execute("DELETE FROM quarantine WHERE source_id = ?", [source.source_id])
        con.execute("DELETE FROM sources WHERE source_id = ?", [source.source_id])
        con.execute(f"INSERT INTO results ({', '.join(RESULT_COLUMNS)}) "
                    f"SELECT {', '.join(RESULT_COLUMNS)} FROM _incoming_results")
        con.execute("INSERT INTO quarantine SELECT * FROM _incoming_quarantine")
        columns = ", ".join(row)
        con.execute(f"INSERT INTO sources ({columns}) VALUES ({', '.join('?' * len(row))})",
                    list(row.values()))


def _keep_stale(con: duckdb.DuckDBPyConnection, source_id: str) -> None:
    """Delete the source's rows but those whose key a quarantined row of the new table holds
    (_incoming_stale); mark those stale."""
    from schemas.results import ROW_KEY
    same_key = " AND ".join(f"k.{c} IS NOT DISTINCT FROM results.{c}" for c in ROW_KEY)
    con.execute(f"DELETE FROM results WHERE source_id = ? AND NOT EXISTS "
                f"(SELECT 1 FROM _incoming_stale AS k WHERE {same_key})", [source_id])
    con.execute(f"UPDATE results SET stale = true, stale_reason = k.reason, record_no = k.record_no "
                f"FROM _incoming_stale AS k WHERE results.source_id = ? AND {same_key}", [source_id])


def first_row(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> tuple | None:
    """The first row of a statement's result (None when it has none), the result read to its end:
    DuckDB refuses every later query of the connection but `execute` while a result of `execute` is
    unfinished ("connection has an unfinished result"), and `fetchone` leaves it so. The project's
    one way to read a single row."""
    rows = con.execute(sql, params).fetchall() if params is not None else con.execute(sql).fetchall()
    return rows[0] if rows else None


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params=None):
    """The first column of first_row (None when there is no row)."""
    row = first_row(con, sql, params)
    return None if row is None else row[0]


def previous_source(con: duckdb.DuckDBPyConnection, source_id: str) -> dict | None:
    columns = ["sha256", "etag", "last_modified", "url", "rows_loaded"]
    found = con.execute(f"SELECT {', '.join(columns)} FROM sources WHERE source_id = ?", [source_id]).fetchall()
    return dict(zip(columns, found[0])) if found else None


def query_frame(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> pl.DataFrame:
    """Run one statement and return its whole result as a polars frame (empty for a statement
    that returns no rows)."""
    import polars as pl  # here: a command that only prints rows never imports it (0.12 s; warehouse.store.rows)
    relation = con.sql(sql, params=params) if params else con.sql(sql)
    if relation is None:
        return pl.DataFrame()
    return relation_frame(relation)


def relation_frame(relation: duckdb.DuckDBPyRelation, limit: int | None = None) -> pl.DataFrame:
    """A relation's rows (at most `limit`) as a polars frame that can be printed in every format:
    one conversion rule for every DuckDB type.

    - column names made unique (`round`, `round_2`): polars, and a CSV header, hold a name once;
    - types polars cannot hold, or holds wrongly, as the text DuckDB prints for them (AS_TEXT:
      INTERVAL and VARIANT, UNION, BIGNUM, UHUGEINT (read as a signed number), BIT, the
      second/milli/nanosecond timestamps (whose infinity DuckDB hands over as a wrong date), maps
      keyed by anything but text, and any date, time or bytes inside a list, struct or map);
    - a DATE or TIMESTAMP column holding a value polars cannot draw (infinity, a year past 9999)
      as its text (polars panics drawing one): the text of every such column is read beside it, in
      the same run of the query (running it again to read it cost a query its time twice)."""
    names = unique_names(relation.columns)
    as_text = {name for name, kind in zip(names, relation.types) if needs_text(str(kind))}
    texts = dated_texts(relation, names, as_text)
    frame = _fetch(relation, names, as_text, limit, texts)
    undrawable = [name for name in texts if _out_of_range(frame[name], frame.schema[name])]
    return frame.with_columns(frame[texts[name]].alias(name) for name in undrawable).select(names)


DATED = ("DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE")  # kept typed at the top level, their range unknown


def dated_texts(relation: duckdb.DuckDBPyRelation, names: list[str], as_text: set[str]) -> dict[str, str]:
    """name -> the name its text is read under, for each DATE or TIMESTAMP column read typed."""
    dated = [name for name, kind in zip(names, relation.types) if name not in as_text and str(kind) in DATED]
    taken, texts = set(names), {}
    for name in dated:
        alias = f"{name} (as text)"
        while alias in taken:
            alias += "_"
        taken.add(alias)
        texts[name] = alias
    return texts


def unique_names(columns: list[str]) -> list[str]:
    taken, names = set(), []
    for name in columns:
        unique, n = name, 1
        while unique in taken:
            n += 1
            unique = f"{name}_{n}"
        taken.add(unique)
        names.append(unique)
    return names


# Kept as their own types at the top level (polars reads and draws them; a date's range is checked).
TYPED_AT_TOP = re.compile(r"DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE|BLOB")
AS_TEXT = re.compile(r"\b(INTERVAL|VARIANT|UNION|BIGNUM|VARINT|UHUGEINT|BIT|BITSTRING|GEOMETRY|TIMESTAMP_(S|MS|NS)"
                     r"|TIME_NS|TIME WITH TIME ZONE|TIMETZ|DATE|TIME|TIMESTAMP|BLOB)\b|MAP\((?!VARCHAR,)")


def needs_text(kind: str) -> bool:
    return not TYPED_AT_TOP.fullmatch(kind) and bool(AS_TEXT.search(kind))


def _fetch(relation, names: list[str], as_text: set[str], limit: int | None,
           texts: dict[str, str] | None = None) -> pl.DataFrame:
    import polars as pl
    # through the Arrow PyCapsule interface, without pyarrow
    return pl.DataFrame(projected(relation, names, as_text, limit, texts))


def projected(relation: duckdb.DuckDBPyRelation, names: list[str], as_text: set[str],
              limit: int | None, texts: dict[str, str] | None = None) -> duckdb.DuckDBPyRelation:
    """The relation with its columns named `names` and those of `as_text` as text, at most `limit`
    rows; then, for each column of `texts`, its text too, under the name `texts` gives."""
    texts = texts or {}
    if as_text or texts or names != relation.columns:  # by position (#1): two columns may share a name
        position = {n: i for i, n in enumerate(names, start=1)}
        relation = relation.project(", ".join(
            [f"CAST(#{i} AS VARCHAR) AS {_quoted(n)}" if n in as_text else f"#{i} AS {_quoted(n)}"
             for n, i in position.items()]
            + [f"CAST(#{position[n]} AS VARCHAR) AS {_quoted(alias)}" for n, alias in texts.items()]))
    if limit is not None:
        relation = relation.limit(limit)
    return relation


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# What Python's date and datetime hold (years 1-9999): polars draws a value through them.
_DAYS = (-719_162, 2_932_896)
_MICROSECONDS = (_DAYS[0] * 86_400_000_000, (_DAYS[1] + 1) * 86_400_000_000 - 1)


def _out_of_range(column: pl.Series, dtype) -> bool:
    import polars as pl
    if dtype == pl.Date:
        low, high = _DAYS
    elif isinstance(dtype, pl.Datetime):
        scale = {"ms": 1 / 1000, "us": 1, "ns": 1000}[dtype.time_unit]
        low, high = (int(bound * scale) for bound in _MICROSECONDS)
    else:
        return False
    physical = column.to_physical().drop_nulls()
    return physical.len() > 0 and (physical.min() < low or physical.max() > high)
