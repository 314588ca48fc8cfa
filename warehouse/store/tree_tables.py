"""Column types of the submission-tree tables, from the parsers' own column lists, and their DDL.

tree_files   one row per file the tree ingest asked for: lineage (URL, sha256, bytes, validators,
             times, a directory file's size/mtime/inode) and its status: loaded | quarantined | missing | failed | unrecognized.
run_summaries one row per run folder (one per result row), columns of schemas.loadgen.SUMMARY_COLUMNS
             (LoadGen's) and schemas.endpoints.ENDPOINT_COLUMNS (the endpoint harness's).
systems      one row per system description.
tree_reads   one row per file the last rebuild of a round with no table read (rebuilding.Known): its
             identity and what its rows need of it, so a rerun opens only the files that changed;
             and one per folder it listed, so a rerun that finds every folder and file as they were
             need not list the tree again.
power_readings one measured power figure per power run of a round rebuilt from its tree, beside its
             performance row (schemas/power.py PowerReading; warehouse/trees/power.py computes it).
"""
from __future__ import annotations

from schemas.endpoints import ENDPOINT_COLUMNS
from schemas.loadgen import SUMMARY_COLUMNS, SYSTEM_COUNT_FIELDS, SYSTEM_TEXT_FIELDS

DUCKDB = {"text": "VARCHAR", "bool": "BOOLEAN", "int": "BIGINT", "float": "DOUBLE", "seed": "UBIGINT",
          "lines": "VARCHAR[]"}

SUMMARY_TYPES: dict[str, str] = {
    "round": "text", "run_path": "text", "sha256": "text",
    **{c: ("seed" if c.endswith("_rng_seed") else kind) for c, kind in SUMMARY_COLUMNS.items()},
    "unparsed_lines": "lines",
    **ENDPOINT_COLUMNS,
}
SYSTEM_TYPES: dict[str, str] = {
    "round": "text", "system_path": "text", "sha256": "text",
    **dict.fromkeys(SYSTEM_TEXT_FIELDS, "text"), **dict.fromkeys(SYSTEM_COUNT_FIELDS, "int"),
    "host_memory_gb": "float", "accelerator_memory_gb": "float", "untyped_fields": "lines",
    "raw_json": "text", "repeated_keys": "lines",
}


def polars_schema(types: dict[str, str]) -> dict[str, pl.DataType]:
    import polars as pl  # here: every connection reads this module's DDL; a query need not load polars
    kinds = {"text": pl.String, "bool": pl.Boolean, "int": pl.Int64, "float": pl.Float64,
             "seed": pl.UInt64, "lines": pl.List(pl.String)}
    return {c: kinds[t] for c, t in types.items() if t in kinds}


def _ddl(table: str, types: dict[str, str], key: str) -> str:
    columns = ",\n    ".join(f"{c} {DUCKDB[t]}" for c, t in types.items())
    return f"CREATE TABLE IF NOT EXISTS {table} (\n    {columns},\n    PRIMARY KEY ({key})\n);"


TABLES = "\n".join([
    """CREATE TABLE IF NOT EXISTS tree_files (
    round VARCHAR NOT NULL, path VARCHAR NOT NULL,  -- relative to the round repository
    kind VARCHAR NOT NULL,                          -- summary | system
    url VARCHAR NOT NULL,                           -- where the bytes came from (URL or local path)
    status VARCHAR NOT NULL,                        -- loaded | quarantined | missing | failed | unrecognized
    sha256 VARCHAR, bytes BIGINT, etag VARCHAR, last_modified VARCHAR,
    fetched_at TIMESTAMPTZ NOT NULL, loaded_at TIMESTAMPTZ NOT NULL,
    message VARCHAR,                                -- why it is not loaded
    run_path VARCHAR,                               -- the run folder a summary kind's file is of
    files_held VARCHAR[],                           -- unrecognized: what the run's folder holds
    file_identity VARCHAR,                          -- from a directory: 'size mtime_ns inode ctime_ns' when read (unchanged: not opened again)
    PRIMARY KEY (round, path)
);""",
    _ddl("run_summaries", SUMMARY_TYPES, "round, run_path"),
    _ddl("systems", SYSTEM_TYPES, "round, system_path"),
    """CREATE TABLE IF NOT EXISTS tree_reads (
    round VARCHAR NOT NULL, path VARCHAR NOT NULL,  -- relative to the round's tree root ('' the root)
    kind VARCHAR NOT NULL,                          -- file | folder
    file_identity VARCHAR NOT NULL,                 -- 'size mtime_ns inode ctime_ns' of a file when read, 'folder mtime_ns inode ctime_ns' of a folder
    sha256 VARCHAR,
    fields VARCHAR,                                 -- JSON: the parsed fields a result row reads (null: not parsed)
    reasons VARCHAR[],                              -- why it is quarantined
    text VARCHAR,                                   -- its text, when a quarantine record shows it
    PRIMARY KEY (round, path)
);""",
    """CREATE TABLE IF NOT EXISTS power_readings (
    round VARCHAR NOT NULL, source_id VARCHAR NOT NULL,
    run_path VARCHAR NOT NULL,                      -- results.location of the run's performance row
    division VARCHAR NOT NULL, submitter VARCHAR NOT NULL, platform VARCHAR NOT NULL, system VARCHAR,
    model VARCHAR NOT NULL, benchmark VARCHAR, scenario VARCHAR NOT NULL,
    value DOUBLE NOT NULL, unit VARCHAR NOT NULL,   -- Watts, or Joules / millijoules per query
    average_watts DOUBLE NOT NULL, samples BIGINT NOT NULL, samples_skipped BIGINT NOT NULL,
    power_begin TIMESTAMP NOT NULL, power_end TIMESTAMP NOT NULL, duration_s DOUBLE NOT NULL,
    query_count DOUBLE, effective_scenario VARCHAR, loadgen_version VARCHAR,
    rule VARCHAR NOT NULL, checker VARCHAR NOT NULL,
    spl_path VARCHAR NOT NULL, spl_sha256 VARCHAR NOT NULL, detail_path VARCHAR NOT NULL, detail_sha256 VARCHAR NOT NULL,
    PRIMARY KEY (round, run_path)
);""",
])


def added_tree_columns(present: set[tuple[str, str]]) -> list[str]:
    """ALTER statements for the columns a warehouse written by an earlier version lacks: the endpoint
    harness's columns of run_summaries (its rows so far are LoadGen's), and tree_files' run folder."""
    steps = [f"ALTER TABLE run_summaries ADD COLUMN {c} {DUCKDB[t]}" for c, t in SUMMARY_TYPES.items()
             if ("run_summaries", c) not in present]
    if steps and ("run_summaries", "harness") not in present:
        steps.append("UPDATE run_summaries SET harness = 'LoadGen', "
                     "summary_path = run_path || '/mlperf_log_summary.txt'")
    if ("tree_files", "run_path") not in present:
        steps += ["ALTER TABLE tree_files ADD COLUMN run_path VARCHAR",
                  "UPDATE tree_files SET run_path = regexp_replace(path, '/mlperf_log_summary.txt$', '') "
                  "WHERE kind = 'summary'"]
    if ("tree_files", "files_held") not in present:
        steps.append("ALTER TABLE tree_files ADD COLUMN files_held VARCHAR[]")
    if ("tree_files", "file_identity") not in present:
        steps.append("ALTER TABLE tree_files ADD COLUMN file_identity VARCHAR")
    if ("systems", "repeated_keys") not in present:
        steps.append("ALTER TABLE systems ADD COLUMN repeated_keys VARCHAR[]")
    return steps
