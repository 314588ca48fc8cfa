"""Opening a warehouse file in a test as any DuckDB client would, with the project's search path
(main, marts, intermediate, staging, base) so a test names a mart bare, as `mlperf-wh sql` lets it."""
from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.store.warehouse_file import use_warehouse_schemas


def connect_file(path: str | Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path), read_only=read_only)
    use_warehouse_schemas(con)
    return con
