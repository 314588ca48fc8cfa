"""Materialize: create or replace every model of sql/ in dependency order, in one transaction, with
the reference tables they read, then write their comments; `rebuild` does it under the writer lock
after a ledger load."""
from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

import duckdb

from warehouse.identity.reference_files import reference_bytes

if TYPE_CHECKING:
    from warehouse.identity.reference import Reference
from warehouse.store import db
from warehouse.resources import checksum
from warehouse.views.catalog import (LAYERING, SCHEMAS, SOURCE_SCHEMA, ViewFile, _parse_ahead, definitions,
                                     qualified_sql, schema_of)

def in_dependency_order(views: list[ViewFile]) -> list[ViewFile]:
    """Every view after the views it reads from (a table must be rebuilt after its inputs)."""
    _parse_ahead([v.sql for v in views])
    names = {v.name for v in views}
    reads = {v.name: v.reads(names) for v in views}
    ordered: list[ViewFile] = []
    done: set[str] = set()
    while len(ordered) < len(views):
        ready = [v for v in views if v.name not in done and reads[v.name] <= done]
        if not ready:
            raise RuntimeError(f"views read each other in a cycle: {', '.join(sorted(names - done))}")
        ordered.append(ready[0])
        done.add(ready[0].name)
    return ordered


def _existing_kinds(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """'schema.name' -> 'view' or 'table', for every relation of the warehouse's schemas (one
    catalog query, not one a model)."""
    found = con.execute("SELECT table_schema, table_name, table_type FROM information_schema.tables "
                        "WHERE table_catalog = current_database() AND list_contains(?, table_schema)",
                        [list(SCHEMAS)]).fetchall()
    return {f"{schema}.{name}": "view" if kind == "VIEW" else "table" for schema, name, kind in found}


def create(con: duckdb.DuckDBPyConnection, view: ViewFile, existing: str | None,
           schemas: dict[str, str] | None = None) -> None:
    """Create or replace one model as its layer stores it, in its layer's schema (a view that was a
    table is dropped first); `schemas`: where each relation it reads lives (catalog.schema_of)."""
    if existing and existing != view.kind:
        con.execute(f"DROP {existing.upper()} {view.qualified_name}")
    sql = qualified_sql(view, schemas or schema_of(definitions()))
    try:
        con.execute(f"CREATE OR REPLACE {view.kind.upper()} {view.qualified_name} AS\n{sql}")
    except duckdb.Error as exc:
        raise RuntimeError(f"cannot create {view.kind} {view.qualified_name} ({view.path}): {exc}") from exc


# Below this many result rows, building a table costs more in planning than in computing: each table
# reading a staging view binds and optimizes that view's joins again (~20 ms for stg_results, read by
# ten tables). A view model two tables of the build read is then computed once, into a temp table
# the build's tables read instead, and dropped before the build commits: about half the tables' build
# time on the shared rounds (2,905 rows: 0.66 s -> 0.36 s), and still a third less at 27,000 rows;
# at 107,000 rows computing every column of every row once costs 10% more than the filtered reads,
# and at a million rows 1 GB more memory (bench/views_profile.py --rows N --snapshot-max-rows M).
# Computing a snapshot is the one statement of a small build that frees a lot at once (stg_results'
# joins over every row): what it frees goes back to the system (db.returning_freed_memory), not to
# the allocator's cache for the rest of the build: the core path's peak into a warehouse holding
# v5.1 254 -> 245 MiB, into a new one 243 -> 236 MiB, in the same time (bench/run.py core). Handing
# back what every statement of the build frees took 8-15 MiB more off, but cost 0.08 s on 520 rows
# and 11% more time on 40,000.
SNAPSHOT_MAX_ROWS = 50_000
SNAPSHOT_SCHEMA = "temp.main"


class BuildSnapshots:
    """The view models (staging) the tables of one build read more than once, each computed once into
    a temp table of the build's connection when the warehouse is small (SNAPSHOT_MAX_ROWS). Views
    keep reading the view models themselves: they outlive the build."""

    def __init__(self, con: duckdb.DuckDBPyConnection, built: list[ViewFile], every_model: list[ViewFile],
                 result_rows: int):
        self.con, self.taken = con, []
        view_models = {v.name for v in every_model if v.kind == "view"}
        readers = Counter(name for v in built if v.kind == "table" for name in v.relations & view_models)
        small = result_rows < SNAPSHOT_MAX_ROWS
        self.shared = {name for name, n in readers.items() if n > 1} if small else set()

    def schemas_for(self, view: ViewFile, schemas: dict[str, str]) -> dict[str, str]:
        """Where `view` reads each relation: a table reads the snapshots (taken on first use, after
        the base tables under them are built), a view the staging views."""
        wanted = view.relations & self.shared if view.kind == "table" else set()
        for name in sorted(wanted - set(self.taken)):
            with db.returning_freed_memory(self.con):
                self.con.execute(f"CREATE TEMP TABLE {name} AS SELECT * FROM {schemas[name]}.{name}")
            self.taken.append(name)
        return schemas | {name: SNAPSHOT_SCHEMA for name in wanted}

    def drop(self) -> None:
        """Before the build commits (a failed build's rollback drops them with everything else)."""
        for name in self.taken:
            self.con.execute(f"DROP TABLE {SNAPSHOT_SCHEMA}.{name}")
        self.taken = []


RETIRED_MODEL = re.compile(r"^(base|stg|int)_")


def drop_retired_models(con: duckdb.DuckDBPyConnection, views: list[ViewFile]) -> list[str]:
    """Drop what an earlier version created that no file defines any more, so it does not stay,
    stale, beside the models that replaced it: in the models' schemas, every relation no file
    defines; in main (where every model lived before each layer had its schema), every model's name
    and every base, staging or intermediate name. -> 'schema.name' of each dropped."""
    defined = {v.qualified_name for v in views}
    names = {v.name for v in views}
    model_schemas = set(SCHEMAS) - {SOURCE_SCHEMA}
    retired = []
    for qualified, kind in _existing_kinds(con).items():
        schema, name = qualified.split(".", 1)
        stale = (qualified not in defined if schema in model_schemas
                 else name in names or bool(RETIRED_MODEL.match(name)))
        if stale:
            con.execute(f"DROP {kind.upper()} IF EXISTS {qualified}")
            retired.append(qualified)
    return retired


@dataclass(frozen=True)
class BuildTime:
    """What building one model cost: wall-clock seconds and CPU seconds of every thread."""
    view: ViewFile
    seconds: float
    cpu_seconds: float


def materialize(con: duckdb.DuckDBPyConnection, ref: "Reference | None" = None,
                profile: list[BuildTime] | None = None, changed: Iterable[str] | None = None) -> list[str]:
    """Create or replace the models in dependency order, in one transaction; -> the models built.
    A full build refills every table (re-creates one whose definition changed) and re-creates the
    views whose definition changed (a view is bound when queried: one whose definition is unchanged
    stays); a model's comments are written when it is created, not when it is refilled. With `changed` (the tables a ledger load just wrote: claims, decisions, prices, own measurements),
    only the models that read them, directly or through other models, when every model and reference
    table is as the last full build left it (its fingerprint); else every model. With `profile`,
    append what each model cost to build (bench/views_profile.py).
    The comments follow the models' transaction, in transactions of their own (apply_comments), and a
    full build records what it was built from last: a build stopped between them is not current, so
    the next one builds again and writes the comments."""
    from warehouse.identity.reference import default_reference  # Pandera: only when building
    views = in_dependency_order(definitions())
    inputs = None if ref is not None else inputs_checksum(views)
    ref = ref or default_reference()
    fingerprint = build_fingerprint(views, ref)
    result_rows = con.execute("SELECT count(*) FROM results").fetchall()[0][0]
    with db.one_thread(con) if result_rows < ONE_THREAD_MAX_ROWS else nullcontext():
        with db.transaction(con, "the views' rebuild"):
            build = _build_models(con, views, ref, fingerprint, changed, result_rows, profile)
        from warehouse.views.column_docs import apply_comments  # it reads the views defined here
        from warehouse.views.source_docs import source_names
        # a partial build re-comments the source tables the load wrote, as it may have replaced them;
        # a full build every source table (said again only where a comment changed) and the models
        # it created (a refilled table keeps its comments: they follow its definition, not its rows)
        apply_comments(con, build.created | (set(changed) if build.partial else set(source_names())))
        if not build.partial:
            with db.transaction(con, "the views' rebuild"):
                _record_fingerprint(con, fingerprint, inputs)
                _record_definitions(con, build.definitions)
    return [v.name for v in build.built]


# Below this many result rows, the build runs on one DuckDB thread: its statements are too small to
# split, and the second thread's allocations stay resident to the end of the build. On the shared
# rounds (2,960 rows) one thread builds in 1.22-1.31 s against 1.37-1.48 s, and the core path into a
# warehouse holding v5.1 peaks at 239-240 MiB against 258-260 (bench/run.py core); at 32,000 and
# 128,000 rows the two take the same time (issue 43).
ONE_THREAD_MAX_ROWS = 50_000


@dataclass(frozen=True)
class Build:
    """What the models' transaction did: the models built (in order), those created (not refilled),
    whether only the ones reading `changed` were, and the definitions a full build is made of."""
    built: list[ViewFile]
    created: set[str]
    partial: bool
    definitions: dict[str, str]


def _build_models(con: duckdb.DuckDBPyConnection, views: list[ViewFile], ref: "Reference", fingerprint: str,
                  changed: Iterable[str] | None, result_rows: int, profile: list[BuildTime] | None) -> Build:
    from warehouse.identity.resolve import load_reference_tables
    from warehouse.identity.round_table import sync_registry
    every_model, schemas = views, schema_of(views)
    existing = _existing_kinds(con)
    partial = changed is not None and _last_fingerprint(con) == fingerprint and all(
        v.qualified_name in existing for v in views)
    definitions_now: dict[str, str] = {}
    refilled: set[str] = set()
    if partial:
        views = downstream_of(views, set(changed))
    else:
        for schema in dict.fromkeys(schemas.values()):
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        load_reference_tables(con, ref)
        sync_registry(con)
        drop_retired_models(con, views)
        existing = _existing_kinds(con)
        definitions_now, recorded = _definition_checksums(con, views), _recorded_definitions(con)
        views = [v for v in views if not _still_current(v, existing, definitions_now, recorded)]
        refilled = {v.name for v in views if _same_table(v, existing, definitions_now, recorded)}
    snapshots = BuildSnapshots(con, views, every_model, result_rows)
    for view in views:
        started, cpu_started = time.perf_counter(), time.process_time()
        if view.name in refilled:
            refill(con, view, snapshots.schemas_for(view, schemas))
        else:
            create(con, view, existing.get(view.qualified_name), snapshots.schemas_for(view, schemas))
        if profile is not None:
            profile.append(BuildTime(view, time.perf_counter() - started, time.process_time() - cpu_started))
    snapshots.drop()
    return Build(views, {v.name for v in views} - refilled, partial, definitions_now)


# A view is bound when it is queried, so one whose definition is unchanged stays as it is (with its
# comments) when the data under it is rebuilt: a full build re-creates every table (base,
# intermediate: their rows follow the data) and only the views whose definition changed.
DEFINITIONS_TABLE = "_materialized_models"


def _definition_checksums(con: duckdb.DuckDBPyConnection, views: list[ViewFile]) -> dict[str, str]:
    """name -> checksum of what a view's definition rests on: its own SQL and kind, the definitions
    of the models it reads (through them, all the way down), and the columns of every source table."""
    sources = repr(con.execute(
        "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() "
        f"AND schema_name = '{SOURCE_SCHEMA}' AND table_name IN (SELECT unnest(?::VARCHAR[])) ORDER BY ALL",
        [sorted(LAYERING.sources)]).fetchall())
    names, found = {v.name for v in views}, {}
    for view in views:  # in dependency order
        upstream = "\0".join(found[name] for name in sorted(view.reads(names)))
        found[view.name] = checksum(f"{view.qualified_name}\0{view.kind}\0{view.sql}\0{upstream}\0{sources}")
    return found


def _same_table(view: ViewFile, existing: dict[str, str], now: dict[str, str], recorded: dict[str, str]) -> bool:
    """A table whose definition is the one it was built from: its rows are refilled, and the table,
    its columns and their comments stay (writing the comments again was a fifth of a build)."""
    return (view.kind == "table" and existing.get(view.qualified_name) == "table"
            and recorded.get(view.name) == now[view.name])


def refill(con: duckdb.DuckDBPyConnection, view: ViewFile, schemas: dict[str, str]) -> None:
    """Replace the rows of a table whose definition is unchanged (_same_table), in place."""
    sql = qualified_sql(view, schemas)
    try:
        con.execute(f"DELETE FROM {view.qualified_name}")
        con.execute(f"INSERT INTO {view.qualified_name} BY NAME SELECT * FROM (\n{sql}\n)")
    except duckdb.Error as exc:
        raise RuntimeError(f"cannot refill table {view.qualified_name} ({view.path}): {exc}") from exc


def _still_current(view: ViewFile, existing: dict[str, str], now: dict[str, str], recorded: dict[str, str]) -> bool:
    return (view.kind == "view" and existing.get(view.qualified_name) == "view"
            and recorded.get(view.name) == now[view.name])


def _recorded_definitions(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return dict(_bookkeeping(con, DEFINITIONS_TABLE, "name", "definition"))


def _record_definitions(con: duckdb.DuckDBPyConnection, definitions_now: dict[str, str]) -> None:
    con.execute(f"CREATE OR REPLACE TABLE {DEFINITIONS_TABLE} AS "
                "SELECT unnest(?::VARCHAR[]) AS name, unnest(?::VARCHAR[]) AS definition",
                [list(definitions_now), list(definitions_now.values())])


def downstream_of(views: list[ViewFile], tables: set[str]) -> list[ViewFile]:
    """The models (in the order given) that read any of `tables`, or a model that does."""
    reached, affected = set(tables), []
    for view in views:
        if view.relations & reached:
            reached.add(view.name)
            affected.append(view)
    return affected


def build_fingerprint(views: list[ViewFile], ref: "Reference") -> str:
    """What a full build depends on: every model's SQL and every reference table's rows."""
    digest = hashlib.sha256()
    for view in views:
        digest.update(f"{view.qualified_name}\0{view.kind}\0{view.sql}\0".encode())
    for name in sorted(vars(ref)):
        digest.update(name.encode() + getattr(ref, name).write_csv().encode())
    return digest.hexdigest()


FINGERPRINT_TABLE = "_materialized"


def _bookkeeping(con: duckdb.DuckDBPyConnection, table: str, *columns: str) -> list[tuple]:
    """The rows of one of the build's own tables in main; none when it, or a column asked for, is
    missing (a warehouse built by an earlier version). Looked up rather than caught: a failed
    statement would abort the caller's transaction."""
    present = {c for (c,) in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
        f"AND schema_name = '{SOURCE_SCHEMA}' AND table_name = ?", [table]).fetchall()}
    if not set(columns) <= present:
        return []
    return con.execute(f"SELECT {', '.join(columns)} FROM {SOURCE_SCHEMA}.{table}").fetchall()


def _last_fingerprint(con: duckdb.DuckDBPyConnection) -> str | None:
    found = _bookkeeping(con, FINGERPRINT_TABLE, "fingerprint")
    return found[0][0] if found else None


def _record_fingerprint(con: duckdb.DuckDBPyConnection, fingerprint: str, inputs: str | None) -> None:
    con.execute(f"CREATE OR REPLACE TABLE {FINGERPRINT_TABLE} AS SELECT ? AS fingerprint, "
                "?::VARCHAR AS inputs, current_timestamp AS built_at", [fingerprint, inputs])


def inputs_checksum(views: list[ViewFile] | None = None) -> str:
    """What a full build with the default reference is made of, from the files' bytes alone (no
    table parsed or validated): every model's SQL and schema, the reference tables, the round
    registry. Equal to the one the last full build recorded: the views are current."""
    digest = hashlib.sha256()
    for view in sorted(views or definitions(), key=lambda v: v.qualified_name):
        digest.update(f"{view.qualified_name}\0{view.kind}\0{view.sql}\0".encode())
    for name, content in reference_bytes():
        digest.update(name.encode() + b"\0" + content)
    return digest.hexdigest()


def views_current(con: duckdb.DuckDBPyConnection) -> bool:
    """The last full build was made from the SQL and reference files as they are now, and every
    model it made is still there: a run that loaded nothing need not build again."""
    found = _bookkeeping(con, FINGERPRINT_TABLE, "inputs")
    views = definitions()
    if not found or found[0][0] != inputs_checksum(views):
        return False
    existing = _existing_kinds(con)
    return all(existing.get(v.qualified_name) == v.kind for v in views)


def views_behind_data(con: duckdb.DuckDBPyConnection) -> bool:
    """A round or a tree file was loaded after the last full build finished (a run stopped between
    its load and its views' rebuild): the views answer from rows that are no longer the
    warehouse's, and the next run must build them even if it loads nothing."""
    built = _bookkeeping(con, FINGERPRINT_TABLE, "built_at")
    if not built:
        return True
    # a tree file's row too: the tree ingest loads no source, and the views read its tables
    return db.scalar(con, "SELECT coalesce(max(loaded_at) > ?, false) FROM (SELECT loaded_at FROM sources "
                          "UNION ALL SELECT loaded_at FROM tree_files)", [built[0][0]])


def rebuild(db_file: str | None, what: str, load: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
            changed: Iterable[str] | None = None):
    """Under the writer lock (named `what`): `load(con)` first when given (a claims, decisions, price
    or measurements file, writing the tables `changed`), then the views rebuilt (those reading
    `changed` when given: see materialize), then the published copy replaced. -> (what `load`
    returned, the views built)."""
    from warehouse.store.publish import writing
    from warehouse.store.warehouse_file import missing_warehouse
    path = db.db_path(db_file)
    if not Path(path).exists():  # a ledger load or a refresh reads the warehouse: it never makes one
        raise missing_warehouse(path)
    with writing(path, what) as warehouse, db.connect(warehouse) as con:
        loaded = load(con) if load is not None else None
        created = materialize(con, changed=changed)
    return loaded, created


