"""Opening the warehouse file, with every way that can fail said in one line naming the file."""
from __future__ import annotations

import functools
import re
import tomllib
from contextlib import contextmanager
from pathlib import Path

import duckdb

from warehouse.errors import WarehouseUnavailable, is_disk_full
from warehouse.resources import package_dir
from warehouse.store.paths import check_warehouse

_LOCK_HOLDER = re.compile(r"\(PID (\d+)\)")


def open_warehouse(path: str, read_only: bool, config: dict, tables_sql: str,
                   checked: bool = False) -> duckdb.DuckDBPyConnection:
    """`checked`: a run checked the path once already (warehouse.store.checked), it is not checked again."""
    if not checked:
        refuse_a_schema_name(path)
    if read_only and not Path(path).exists():
        raise missing_warehouse(path)
    if not checked:
        check_warehouse(path)
    try:
        if not read_only:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(path, read_only=read_only, config=config)
    except (duckdb.Error, OSError) as exc:
        raise WarehouseUnavailable(describe_open_failure(path, exc)) from exc
    try:
        if not read_only:
            _create_missing_tables(con, tables_sql)
        use_warehouse_schemas(con, create=not read_only)
    except (duckdb.Error, OSError) as exc:
        con.close()
        raise WarehouseUnavailable(describe_open_failure(path, exc)) from exc
    return con


def missing_warehouse(path: str) -> WarehouseUnavailable:
    """No warehouse at `path`, for a command that reads one (it never creates one), with what to do.
    Building one there is suggested only in a folder that holds no warehouse: a path whose folder
    does not exist, or beside other warehouses (those of a near name first), may be mistyped, and
    `backfill` would build a new warehouse at the typo."""
    from warehouse.nearest import nearest
    from warehouse import settings
    folder = Path(path).parent
    said = f"no warehouse at {path}"
    if not folder.is_dir():
        return WarehouseUnavailable(f"{said}: no folder {folder} either (a typo in --db or MLPERF_WAREHOUSE_DB?)")
    # by the names' stems: every warehouse's name ends in .duckdb, which would make any two near
    stems = {Path(name).stem: name for name in warehouses_in(folder)}
    near = [stems[stem] for stem in nearest(Path(path).stem, list(stems))]
    beside = near or sorted(stems.values())[:3]
    if beside:
        return WarehouseUnavailable(f"{said}; {'of a near name ' if near else ''}beside it: "
                                    f"{', '.join(repr(str(folder / n)) for n in beside)} "
                                    "(a typo in --db or MLPERF_WAREHOUSE_DB?)")
    where = "" if path == settings.default("warehouse_db") else f" --db {path}"
    return WarehouseUnavailable(f"{said}: this command reads a warehouse and makes none; build one with "
                                f"`mlperf-wh backfill{where}` first")


WAREHOUSES_LOOKED_AT = 200  # entries of a folder looked at for a warehouse of a near name


def warehouses_in(folder: Path) -> list[str]:
    """The names of the DuckDB warehouse files in `folder` (by content; not a published copy)."""
    from itertools import islice
    from warehouse.store.paths import has_duckdb_header
    found = []
    try:
        entries = list(islice(folder.iterdir(), WAREHOUSES_LOOKED_AT))
    except OSError:
        return []
    for entry in entries:
        try:
            if entry.is_file() and not entry.name.endswith(".read.duckdb") and has_duckdb_header(entry):
                found.append(entry.name)
        except OSError:
            continue
    return found


SOURCE_SCHEMA = "main"  # the loader's tables and the reference tables


@functools.lru_cache(maxsize=None)
def warehouse_schemas() -> tuple[str, ...]:
    """The search path: main, then each layer's schema of sql/layers.toml (`schema`, else the layer's
    name), the marts first, so `leaderboard` is marts.leaderboard and `stg_results` staging.stg_results."""
    with (package_dir("sql") / "layers.toml").open("rb") as f:
        layers = {name: spec for name, spec in tomllib.load(f).items() if isinstance(spec, dict)}
    return (SOURCE_SCHEMA,) + tuple(dict.fromkeys(spec.get("schema", name) for name, spec in reversed(layers.items())))


def refuse_a_schema_name(path: str) -> None:
    """DuckDB names a file's catalog after its name up to the first dot (staging.read.duckdb:
    staging); a catalog named like one of the warehouse's schemas makes every `staging.x` ambiguous."""
    catalog = Path(path).name.split(".")[0]
    if catalog in warehouse_schemas() and catalog != SOURCE_SCHEMA:  # DuckDB calls main.duckdb's catalog main_db
        raise WarehouseUnavailable(
            f"{path}: a warehouse file cannot be named {catalog}.*: DuckDB would name its catalog "
            f"{catalog!r}, like the schema that holds the {catalog} models, and could not tell the two "
            "apart; choose another name (e.g. mlperf.duckdb)")


def use_warehouse_schemas(con, create: bool = False, first: str | None = None) -> None:
    """Bare names find the marts and the models they read; a warehouse written before there were
    schemas has only main. `first`: the schema searched first (the BI engine: marts). `con`: a DuckDB
    connection, or the DB-API connection duckdb-engine wraps around one."""
    schemas = warehouse_schemas()
    if first:
        schemas = (first,) + tuple(s for s in schemas if s != first)
    present = {name for (name,) in con.execute(
        "SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database()").fetchall()}
    if create and not set(schemas) <= present:
        con.execute(";".join(f"CREATE SCHEMA IF NOT EXISTS {s}" for s in schemas if s not in present))
        present |= set(schemas)
    con.execute(f"SET search_path = '{','.join(s for s in schemas if s in present)}'")


_CREATED = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+)")


def _create_missing_tables(con: duckdb.DuckDBPyConnection, tables_sql: str) -> None:
    """Run the CREATE TABLE IF NOT EXISTS statements only when a table is missing: one catalog
    query instead of a dozen statements on every open of an existing warehouse."""
    present = {name for (name,) in con.execute(
        "SELECT table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND schema_name = current_schema()").fetchall()}
    if not set(_CREATED.findall(tables_sql)) <= present:
        con.execute(tables_sql)


def describe_open_failure(path: str, exc: BaseException) -> str:
    text = str(exc)
    if is_locked(exc):
        holder = _LOCK_HOLDER.search(text)
        who = f"process {holder.group(1)}" if holder else "another process"
        return (f"{path}: the warehouse is in use by {who} (another backfill or a writer); "
                "wait for it to finish and rerun")
    if is_disk_full(exc):
        return f"{path}: disk full ({_first_line(text)}): the write was not confirmed; free space and rerun"
    if isinstance(exc, PermissionError) or any(t in text for t in _READ_ONLY_TEXT):
        return (f"{path}: the warehouse file is read-only here ({_first_line(text)}); `sql`, "
                "`status` and `export` still read it")
    if is_corrupt(exc):
        return f"{path}: not a DuckDB warehouse file, or a corrupt or truncated one ({_first_line(text)})"
    return f"{path}: cannot open the warehouse ({type(exc).__name__}: {_first_line(text)})"


_READ_ONLY_TEXT = ("Permission denied", "Operation not permitted", "Read-only file system")
CORRUPT_TEXT = ("not a valid DuckDB database file", "Corrupt database file", "Could not read enough bytes")


def is_corrupt(exc: BaseException) -> bool:
    return any(text in str(exc) for text in CORRUPT_TEXT)


def is_locked(exc: BaseException) -> bool:
    return "Could not set lock" in str(exc) or "Conflicting lock" in str(exc)


def during_use(exc: BaseException) -> WarehouseUnavailable | None:
    """A DuckDB error raised after opening that is about the file itself, not the statement."""
    if not isinstance(exc, (duckdb.Error, OSError)):
        return None
    if is_corrupt(exc) or is_locked(exc) or is_disk_full(exc):
        return WarehouseUnavailable(describe_open_failure("the warehouse", exc))
    return None


@contextmanager
def file_errors():
    """Errors about the warehouse file itself (corrupt, locked, disk full), raised while using it,
    become WarehouseUnavailable; errors about a statement stay what they are."""
    try:
        yield
    except (duckdb.Error, OSError) as exc:
        failure = during_use(exc)
        if failure is None:
            raise
        raise failure from exc


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:300] if text.strip() else ""
