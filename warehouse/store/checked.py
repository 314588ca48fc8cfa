"""A run's warehouse, checked once: the handle a run makes at its start and hands to every step.

`checked(db_file)` runs every check a run that writes needs (warehouse.store.paths: the file is
DuckDB's by content or does not exist yet, no WAL, spill directory or published copy planted beside
it, a storage version DuckDB writes; and a file name DuckDB can tell from a schema). db.connect,
lock.writer and publish.publish take the handle or a plain path: a path is checked there, as it
always was (analysts, tests, a command outside a run); the handle is opened without checking again.

What a handle does not hide:
- the writer lock is opened without following a symlink and checked through its descriptor at every
  take (paths.open_lock): that is the open itself, race-free, never skipped;
- a run that waited for another writer checks again once it holds the lock (lock.writer): the
  other run wrote the files the first check saw;
- the published copy, the one path a run replaces, is compared with what the check saw (its inode,
  size and modification time) just before it is replaced, and checked again only when it changed;
- the warehouse file itself is the file the check saw, at every connect (before DuckDB opens the
  path and after) and before the published copy is made from it: the same device and inode, the
  path followed as DuckDB follows it. A file swapped for another, or for a link to another warehouse,
  while a run holds the handle is refused in one line (WarehouseUnavailable); the run writes nothing
  more, to either file. DuckDB opens a path, not a descriptor, so the check is a look before and
  after each open; the published copy is made from a descriptor whose identity is checked.
The WAL and the spill directory are checked at the start alone: DuckDB opens them by path itself,
and writes the WAL anew after each checkpoint, so a check before each connect never covered a whole
run either; what they guard against is a file planted before the run.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from warehouse.errors import WarehouseUnavailable
from warehouse.store.paths import check_publishable, check_warehouse, published_path, refuse_foreign_published_copy
from warehouse.store.warehouse_file import refuse_a_schema_name


@dataclass(frozen=True)
class CheckedWarehouse:
    """A warehouse path that passed every check once. Made from a path only by checking
    (__post_init__ runs the checks): dataclasses.replace, or a flow parameter rebuilt from JSON, checks too."""
    path: str

    def __post_init__(self):
        object.__setattr__(self, "path", os.fspath(self.path))
        # What the published copy's path held, seen before it is checked (a copy swapped in between
        # is seen as changed). Not a field: a flow run's parameters show the path alone.
        object.__setattr__(self, "_published_copy", identity(published_path(self.path)))
        object.__setattr__(self, "_file", file_identity(self.path))  # before the checks: a swap between is seen
        refuse_a_schema_name(self.path)
        check_warehouse(self.path)
        check_publishable(self.path)

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def refuse_a_changed_published_copy(self) -> None:
        """Before the published copy is replaced: checked again only when its path holds something
        else than when the run checked it."""
        copy = published_path(self.path)
        if identity(copy) != self._published_copy:
            refuse_foreign_published_copy(copy)


    def refuse_a_replaced_file(self) -> None:
        """The file at the path is the one the check saw: the same device and inode. A warehouse made
        by the run after its check (none was there) is the file from its first connect on."""
        now = file_identity(self.path)
        if self._file is None:
            object.__setattr__(self, "_file", now)
            return
        if now != self._file:
            there = "another file, or a link to one, is at its path now" if now else "nothing is at its path now"
            raise WarehouseUnavailable(
                f"{self.path}: the warehouse file was replaced while the run used it ({there}); the run writes "
                "nothing more, to it or to what replaced it: put the warehouse back and rerun")

    def same_file(self, descriptor: int) -> bool:
        """An open file is the warehouse file the check saw."""
        info = os.fstat(descriptor)
        return self._file is not None and (info.st_dev, info.st_ino) == self._file


def file_identity(path: str) -> tuple[int, int] | None:
    """The device and inode of the file DuckDB would open at `path` (a link followed), None when none."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return info.st_dev, info.st_ino


def checked(db_file: str | os.PathLike | CheckedWarehouse) -> CheckedWarehouse:
    """The handle for `db_file`: as it is when it is one, else made now (every check runs)."""
    return db_file if isinstance(db_file, CheckedWarehouse) else CheckedWarehouse(os.fspath(db_file))


def identity(path: Path) -> tuple[int, ...] | None:
    """What sits at `path` (the entry itself, a symlink not followed), None when nothing does."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns
