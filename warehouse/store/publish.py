"""The published read-only copy of the warehouse, for analysts and BI tools.

DuckDB lets one process write a file, and a reader holding the file open blocks that writer. So
readers (DBeaver, the duckdb CLI, notebooks) open `<warehouse>.read.duckdb` beside the warehouse
(by default warehouse/mlperf.read.duckdb): after every successful load it is replaced atomically
(copy to a temporary file, then rename), and a reader holding the old copy open keeps reading it
until it reconnects.
"""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import duckdb


def published_path(db_file: str) -> Path:
    path = Path(db_file)
    return path.with_name(f"{path.stem}.read{path.suffix or '.duckdb'}")


def publish(db_file: str) -> Path:
    """Checkpoint the warehouse and replace the published copy with it. Call it holding the writer
    lock, with no write in progress (an idle connection of this process may stay open: the
    checkpoint leaves the whole database in the file)."""
    with duckdb.connect(db_file) as con:
        con.execute("CHECKPOINT")
    target = published_path(db_file)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        shutil.copyfile(db_file, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


@contextmanager
def writing(db_file: str, what: str):
    """Hold the writer lock for the block, then publish the copy readers open."""
    from warehouse.store.lock import writer
    with writer(db_file, what):
        yield
        publish(db_file)
