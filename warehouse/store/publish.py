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
import tempfile
from contextlib import contextmanager
from pathlib import Path

import duckdb

from warehouse import settings
from warehouse.errors import WarehouseUnavailable
from warehouse.store import db
from warehouse.store.checked import CheckedWarehouse, checked
from warehouse.store.paths import check_warehouse, published_copy_problem, published_path


def publish(db_file: str | CheckedWarehouse) -> Path:
    """Checkpoint the warehouse and replace the published copy with it. Call it holding the writer
    lock, with no write in progress (an idle connection of this process may stay open: the
    checkpoint leaves the whole database in the file). The copy is made in a private directory
    beside the target (mkdtemp: no name there can be planted) and renamed into place; the target
    is only ever replaced when it is a copy (paths.check_publishable: a path is checked now, a run's
    handle was, and its copy is checked again only if it changed since)."""
    warehouse = checked(db_file)
    warehouse.refuse_a_replaced_file()
    with _this_process_instance(warehouse.path) as con:
        con.execute("CHECKPOINT")
    target = published_path(warehouse.path)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    partial = staging / target.name
    storage = settings.current().published_storage
    try:
        if storage:
            warehouse.refuse_a_replaced_file()
            copy_in_storage_version(warehouse.path, partial, storage)
        else:
            copy_checked_file(warehouse, partial)
        partial.chmod(0o644)
        warehouse.refuse_a_changed_published_copy()
        os.replace(partial, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # mkdtemp's own: nothing in it but what this wrote
    return target


def copy_checked_file(warehouse: CheckedWarehouse, target: Path) -> None:
    """The warehouse file's bytes into `target`, read through a descriptor that is the file the run
    checked (a file swapped in since is refused, never published)."""
    with open(warehouse.path, "rb") as source:
        if not warehouse.same_file(source.fileno()):
            warehouse.refuse_a_replaced_file()
            raise WarehouseUnavailable(f"{warehouse.path}: the warehouse file changed while it was published")
        with open(target, "wb") as copy:
            shutil.copyfileobj(source, copy, 1024 * 1024)


def copy_in_storage_version(db_file: str, target: Path, storage: str) -> None:
    """Every table, view and macro of `db_file` into a new file of DuckDB storage version `storage`.
    Through this process's own database instance of the file (DuckDB attaches a file once per
    process, and a run publishes while its connection is open)."""
    with _this_process_instance(db_file) as con:
        source = db.scalar(con, "SELECT current_database()").replace('"', '""')
        con.execute(f"ATTACH ? AS published_copy (STORAGE_VERSION '{storage}')", [str(target)])
        try:
            con.execute(f'COPY FROM DATABASE "{source}" TO published_copy')
        finally:
            con.execute("DETACH published_copy")


def _this_process_instance(db_file: str) -> duckdb.DuckDBPyConnection:
    """A connection to the database instance of `db_file` this process may already hold open (a run
    publishes while its connection is open): plain DuckDB, with the configuration of every other."""
    return duckdb.connect(db_file, config=db.duckdb_config())


@contextmanager
def writing(db_file: str | CheckedWarehouse, what: str):
    """Hold the writer lock for the block, then publish the copy readers open; yields the warehouse
    checked (lock.Held.warehouse), for the block's connections."""
    from warehouse.store.lock import writer
    with writer(db_file, what) as held:
        yield held.warehouse
        publish(held.warehouse)


def reader_path(db_file: str) -> Path:
    """The file a reader (sql, status, export, report, BI) opens: the published copy, so a reader
    never holds the file a load must write. Made, or refreshed when the warehouse changed since it
    was made, first - unless a writer is at work (a reader never waits for one: the copy it has is
    the last consistent state) or the copy cannot be written here (then the warehouse itself)."""
    from warehouse.errors import ExpectedFailure
    from warehouse.store.lock import writer
    check_warehouse(db_file)
    path, copy = Path(db_file), published_path(db_file)
    if published_copy_problem(copy) is not None:
        return path  # not a copy the warehouse wrote: never read, nor replaced by a reader
    if not path.exists() or (copy.exists() and not changed_since(path, copy)):
        return copy if copy.exists() else path
    try:
        with writer(db_file, "a reader refreshing the published copy", timeout=0 if copy.exists() else None,
                    on_wait=lambda _: None) as held:
            publish(held.warehouse)
    except (ExpectedFailure, OSError, duckdb.Error):
        return copy if copy.exists() else path
    return copy


def changed_since(db_file: Path, copy: Path) -> bool:
    """The warehouse (or its write-ahead log) was written after the copy was made."""
    copied = copy.stat().st_mtime_ns
    wal = db_file.with_name(db_file.name + ".wal")
    return any(p.exists() and p.stat().st_mtime_ns > copied for p in (db_file, wal))
