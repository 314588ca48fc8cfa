"""The global options of the command being run (`--db`, `-v`, `-q`, `--writer-file`, `--wide`), as Typer's
parsing (global_options.py) or the plain `sql` path (quick.py) set them. Imports no Typer: what prints
(console.py) and what reads the warehouse ask it here."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GlobalOptions:
    db: str | None = None
    verbose: bool = False
    quiet: bool = False
    writer_file: bool = False
    wide: bool = False            # tables: every cell whole, as wide as they make the table


_current = GlobalOptions()


def reset(**given) -> None:
    """A new invocation: the options of the previous one (in this process) are forgotten."""
    global _current
    _current = GlobalOptions(**given)


def current() -> GlobalOptions:
    """The global options of the command being run."""
    return _current


def reading_file() -> str:
    """The file a reading command opens: the published copy (warehouse.store.publish.reader_path),
    or with --writer-file the warehouse itself."""
    from warehouse.store import db
    path = db.db_path(_current.db)
    if _current.writer_file:
        return path
    from warehouse.store.publish import reader_path
    return str(reader_path(path))
