"""Opening a warehouse file in a test as any DuckDB client would, with the project's search path
(main, marts, intermediate, staging, base) so a test names a mart bare, as `mlperf-wh sql` lets it."""
from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.settings import SettingsError
from warehouse.store.db import duckdb_config
from warehouse.store.warehouse_file import use_warehouse_schemas


def connect_file(path: str | Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path), read_only=read_only, config=_config())
    use_warehouse_schemas(con)
    return con


def _config() -> dict:
    """The configuration the tool's own connections have (DuckDB refuses a second connection to a
    file open in this process with another); none while a test sets a hostile MLPERF_* variable:
    the command it runs refuses before it opens any file."""
    try:
        return duckdb_config()
    except SettingsError:
        return {}
