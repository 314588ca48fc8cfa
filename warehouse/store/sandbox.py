"""The analyst's SQL sandbox behind `mlperf-wh sql`: queries over the warehouse, and nothing else.

Two locks, each enough on its own for what it covers:
- DuckDB's own: the warehouse is opened read-only with `enable_external_access = false` (no file
  or URL is read or written: COPY, EXPORT, ATTACH, read_csv/read_parquet/read_json/read_text/
  read_blob/glob, INSTALL), extension autoloading and autoinstalling off, then
  `lock_configuration = true` (no SET/RESET/PRAGMA can undo any of it).
- Ours: every statement is parsed first, and only queries run (SELECT, WITH, FROM, VALUES,
  DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); ATTACH, DETACH, COPY, EXPORT, LOAD/INSTALL, SET/RESET,
  PRAGMA, CALL, CREATE (even TEMP) and every write are refused before anything runs, and so is
  any call of a function that reads files or acts on the database (read_*, *_scan, glob,
  parquet_*, checkpoint, query(...)), even of the warehouse's own file.
"""
from __future__ import annotations

import re

import duckdb
import polars as pl

from warehouse.errors import ExpectedFailure
from warehouse.store import db

SANDBOX_CONFIG = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "allow_persistent_secrets": False,
    "lock_configuration": True,  # last: the settings above can no longer be changed
}
ALLOWED_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
ALLOWED_WORDS = "SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN"
# Functions that read files (DuckDB still lets them read the warehouse's own file) or act on the
# database rather than query it. Matched anywhere in the text, string literals included, so
# query('...') cannot smuggle one in.
REFUSED_FUNCTIONS = re.compile(
    r"\b(read_\w+|\w+_scan|glob|sniff_csv|parquet_\w+|checkpoint|force_checkpoint|query|query_table|"
    r"json_execute_serialized_sql|truncate_duckdb_logs|enable_\w+|disable_\w+|\w*external_resource\w*|"
    r"\w+_grammar_extension)\s*\(", re.IGNORECASE)


class Refused(ExpectedFailure):
    """A statement the sandbox does not run; the message names it."""


def connect(path: str | None = None) -> duckdb.DuckDBPyConnection:
    return db.connect(path, read_only=True, config=SANDBOX_CONFIG)


def check_statements(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse the whole text unless every statement in it is a query."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise Refused(f"cannot parse the query: {exc}") from None
    if not statements:
        raise Refused("no statement to run")
    if function := REFUSED_FUNCTIONS.search(sql):
        raise Refused(f"`sql` reads only the warehouse's tables and views; refused "
                      f"{function.group(1)}(): it reads files or acts on the database")
    for statement in statements:
        if statement.type not in ALLOWED_STATEMENTS:
            kind = statement.type.name.replace("_STATEMENT", "")
            raise Refused(f"`sql` is read-only and runs queries only ({ALLOWED_WORDS}); refused {kind}: "
                          f"{_excerpt(statement.query)}")


def run_query(con: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    check_statements(con, sql)
    try:
        return db.query_frame(con, sql)
    except duckdb.PermissionException as exc:
        raise Refused(f"`sql` reads only the warehouse, no other file or URL: {exc}") from None
    except duckdb.Error as exc:
        hint = " (the warehouse is opened read-only: `sql` answers queries and changes nothing)" \
            if "read-only" in str(exc) else ""
        raise ExpectedFailure(f"{exc}{hint}") from None


def _excerpt(query: str, limit: int = 80) -> str:
    text = " ".join(query.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
