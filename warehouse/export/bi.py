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


def connection_url(warehouse_file: str | Path, writer_file: bool = False) -> str:
    """The SQLAlchemy URL that opens, read-only, the warehouse's published copy (paste it into
    Superset): a BI session open for hours never blocks a load, and each load replaces the copy
    atomically (a session reconnecting sees the new rows). With `writer_file`, the warehouse itself."""
    from warehouse.store.publish import published_path
    path = Path(warehouse_file) if writer_file else published_path(str(warehouse_file))
    return f"duckdb:///{path.absolute().as_posix()}?access_mode=read_only"


def read_only_engine(warehouse_file: str | Path, writer_file: bool = False) -> Engine:
    """A SQLAlchemy engine on the published copy (made first when missing or stale and no load is
    running: warehouse.store.publish.reader_path); any statement that writes fails."""
    if not Path(warehouse_file).exists():
        raise FileNotFoundError(f"no warehouse at {warehouse_file}: run `mlperf-wh backfill` first")
    if not writer_file:
        from warehouse.store.publish import reader_path
        reader_path(str(warehouse_file))
    return create_engine(connection_url(warehouse_file, writer_file))
