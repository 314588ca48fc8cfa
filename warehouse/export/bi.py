"""A direct, read-only SQLAlchemy connection to the warehouse, the way BI tools (Superset) connect.

The `bi` extra pins SQLAlchemy below 2.0.55: column reflection through duckdb-engine 0.17 (its
latest release) was measured to work on 2.0.44 to 2.0.54 and to fail from 2.0.55 (REGCLASS) and on
2.1.9 (pg_catalog.pg_collation, which DuckDB emulates only in part; Mause/duckdb_engine#1379,
#1391). tests/test_bi_connection.py says whether reflection works on what is installed.

The marts live in the `marts` schema, the models that build them in base, staging and
intermediate, the loaded and reference tables in main (sql/layers.toml): an inspector lists the
marts with schema="marts". The engine sets DuckDB's search path on each connection, so a bare name
(`SELECT * FROM leaderboard`) finds a mart as it does in `mlperf-wh sql`.
"""
from __future__ import annotations

from pathlib import Path

from warehouse.errors import needs_extra

with needs_extra("bi", "the BI connection helper"):
    from sqlalchemy import create_engine, event
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
        from warehouse.store.warehouse_file import missing_warehouse
        raise missing_warehouse(str(warehouse_file))
    if not writer_file:
        from warehouse.store.publish import reader_path
        reader_path(str(warehouse_file))
    engine = create_engine(connection_url(warehouse_file, writer_file))
    event.listen(engine, "connect", _search_marts_first)
    return engine


def _search_marts_first(dbapi_connection, _record) -> None:
    from warehouse.store.warehouse_file import use_warehouse_schemas
    from warehouse.views.catalog import MARTS_SCHEMA
    use_warehouse_schemas(dbapi_connection, first=MARTS_SCHEMA)
