"""A direct, read-only SQLAlchemy connection to the warehouse, the way BI tools (Superset) connect.

Column reflection through duckdb-engine (0.17, its latest release) fails under SQLAlchemy 2.0.45 and
later: SQLAlchemy's PostgreSQL catalog query, which duckdb-engine reuses, reads
pg_catalog.pg_collation, which DuckDB emulates only in part (Mause/duckdb_engine#1379, #1391; the
fix, Mause/duckdb_engine#1393, is not released). pyproject.toml therefore pins SQLAlchemy below
2.0.45, the combination duckdb-engine supports; lift the pin once a duckdb-engine release carries
the fix (tests/test_bi_connection.py says whether reflection works).
"""
from __future__ import annotations

from pathlib import Path

from warehouse.errors import needs_extra

with needs_extra("bi", "the BI connection helper"):
    from sqlalchemy import create_engine
    from sqlalchemy.engine import Engine


def connection_url(warehouse_file: str | Path) -> str:
    """The SQLAlchemy URL that opens the warehouse file read-only (paste it into Superset)."""
    return f"duckdb:///{Path(warehouse_file).absolute().as_posix()}?access_mode=read_only"


def read_only_engine(warehouse_file: str | Path) -> Engine:
    """A SQLAlchemy engine on the warehouse file; any statement that writes fails."""
    if not Path(warehouse_file).exists():
        raise FileNotFoundError(f"no warehouse at {warehouse_file}: run `mlperf-wh backfill` first")
    return create_engine(connection_url(warehouse_file))
