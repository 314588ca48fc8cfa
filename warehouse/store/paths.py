"""Every path the warehouse reads or writes beside its file, checked before it is opened.

A warehouse `W` is the file itself and what sits beside it: `W.wal` (DuckDB's write-ahead log),
`W.tmp/` (DuckDB's spill directory), `W.lock` (the writer lock) and the published copy
(`W.read.duckdb`, warehouse.store.publish). None of them is ever written through a symlink, and none is
replaced unless it is what the warehouse itself would have left there:

- the warehouse file is a DuckDB file by its content (DuckDB's header), whatever its name: DuckDB
  opens a CSV, Parquet or JSON file as an in-memory database, so a load into one would print
  "loaded" and keep nothing;
- the WAL, the spill directory and the lock are never symlinks (DuckDB replays and truncates the
  WAL; the lock is truncated on every run); the lock is a regular file with one name holding
  nothing but a holder's line;
- the published copy, when it exists, is a regular DuckDB file: a directory, a symlink or a file of
  anything else there is refused before the load starts, not after it committed.

Each refusal is one line naming the path (WarehouseUnavailable, exit 1), and nothing was written.
A run checks them once, at its start, and passes the result on (warehouse.store.checked).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from warehouse import settings
from warehouse.errors import WarehouseUnavailable
from warehouse.settings import SettingsError

DUCKDB_MAGIC = b"DUCK"
MAGIC_OFFSET = 8  # DuckDB's main header: an 8-byte checksum, then the magic bytes


def has_duckdb_header(path: Path) -> bool:
    """The file starts with DuckDB's main header (a file that exists and can be read)."""
    with open(path, "rb") as f:
        return f.read(MAGIC_OFFSET + len(DUCKDB_MAGIC))[MAGIC_OFFSET:] == DUCKDB_MAGIC


def not_a_duckdb_file(path: Path) -> str | None:
    """Why an existing `path` is not a DuckDB file (None when it is one, or does not exist)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None if not path.is_symlink() else "a symlink to nothing"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISDIR(mode):
        return "is a directory"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a pipe, a device or a socket)"
    try:
        if has_duckdb_header(path):
            return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return "its first bytes are not DuckDB's header: a CSV, Parquet, JSON or other file?"


def refuse_not_duckdb(path: str | Path) -> None:
    """A warehouse file that exists must be a DuckDB file, by its content."""
    problem = not_a_duckdb_file(Path(path))
    if problem is None:
        return
    if problem == "is a directory":
        raise WarehouseUnavailable(f"{path}: is a directory, not a warehouse file")
    raise WarehouseUnavailable(f"{path}: not a DuckDB warehouse file, or a corrupt or truncated one ({problem}); "
                               "it was not opened and nothing was written")


def wal_path(db_file: str) -> Path:
    return Path(f"{db_file}.wal")


def spill_path(db_file: str) -> Path:
    return Path(f"{db_file}.tmp")


def refuse_planted(db_file: str) -> None:
    """DuckDB replays <warehouse>.wal when it opens the file, even read-only, and truncates it after a
    checkpoint; a writer only ever leaves a regular file there, so a symlink (or a fifo, a directory)
    was planted: opening would read, or truncate, whatever it points at. Its spill directory likewise."""
    wal = wal_path(db_file)
    if wal.is_symlink() or (wal.exists() and not wal.is_file()):
        raise WarehouseUnavailable(f"{wal} is not a write-ahead log DuckDB wrote (a symlink or not a regular "
                                   "file); the warehouse will not be opened while it is there: remove it and rerun")
    spill = spill_path(db_file)
    if spill.is_symlink() or (spill.exists() and not spill.is_dir()):
        raise WarehouseUnavailable(f"{spill} is not a directory DuckDB made (a symlink or a file); the warehouse "
                                   "will not be opened while it is there: remove it and rerun")


def check_warehouse(db_file: str) -> None:
    """Before opening `db_file` at all (to read or to write): it is a DuckDB file, or none yet, and
    nothing planted beside it would be read or written through."""
    refuse_not_duckdb(db_file)
    refuse_planted(db_file)


def published_path(db_file: str) -> Path:
    """`<warehouse>.read<suffix>` beside the warehouse (warehouse.store.publish writes it)."""
    path = Path(db_file)
    return path.with_name(f"{path.stem}.read{path.suffix or '.duckdb'}")


def check_publishable(db_file: str) -> None:
    """What publishing after a load will need, before the load: a published copy's path that holds
    nothing or a copy, and a storage version DuckDB knows (MLPERF_PUBLISHED_STORAGE)."""
    refuse_foreign_published_copy(published_path(db_file))
    storage = settings.current().published_storage
    if storage:
        refuse_unknown_storage_version(storage)


def refuse_unknown_storage_version(storage: str) -> None:
    import duckdb
    try:
        with duckdb.connect() as con:
            con.execute(f"ATTACH ':memory:' AS storage_probe (STORAGE_VERSION '{storage}')")
    except duckdb.Error as exc:
        known = str(exc).partition("valid options are: ")[2]
        newest = ", ".join(known.split(", ")[-3:]) if known else ""
        raise SettingsError(f"{settings.variable('published_storage')}={storage!r}: not a DuckDB storage version "
                            f"this DuckDB can write{f' (the newest: {newest})' if newest else ''}") from None


def published_copy_problem(copy: Path) -> str | None:
    """Why the published copy's path holds something the warehouse did not write (None: nothing, or
    a DuckDB file)."""
    if copy.is_symlink():
        return "is a symlink"
    return not_a_duckdb_file(copy)


def refuse_foreign_published_copy(copy: Path) -> None:
    problem = published_copy_problem(copy)
    if problem is not None:
        raise WarehouseUnavailable(
            f"{copy}: the published copy's path {problem}, not a copy the warehouse wrote; it is never "
            "replaced, so nothing was loaded: move it away and rerun")


# --- the lock file -------------------------------------------------------------------------------

def open_lock(path: Path) -> int:
    """The lock file's descriptor, opened without following a symlink and refused unless it is a
    regular file of one name holding nothing but a holder's line (`is_holder_text`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if path.is_symlink():
            raise WarehouseUnavailable(f"{path}: the writer lock is a symlink; it is never written through "
                                       "(the file it points at would be truncated): remove it and rerun") from None
        raise WarehouseUnavailable(f"{path}: cannot open the writer lock ({exc.strerror or exc})") from None
    try:
        _refuse_foreign_lock(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _refuse_foreign_lock(fd: int, path: Path) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise WarehouseUnavailable(f"{path}: the writer lock is not a regular file; remove it and rerun")
    if info.st_nlink != 1:
        raise WarehouseUnavailable(f"{path}: the writer lock has {info.st_nlink} names (a hard link to another "
                                   "file, which each run would truncate): remove it and rerun")
    if not is_holder_text(os.pread(fd, 4096, 0)):
        raise WarehouseUnavailable(f"{path}: holds something else than a writer's name; the lock file is "
                                   "truncated on every run, so it is not used: move it away and rerun")


HOLDER_PREFIX = b"pid "
HOLDER_MAX = 1024


def is_holder_text(content: bytes) -> bool:
    """Empty, or the one line a writer leaves (`pid N on HOST (what, since ...)`)."""
    return not content or (content.startswith(HOLDER_PREFIX) and len(content) <= HOLDER_MAX
                           and b"\n" not in content.rstrip(b"\n"))
