"""Views: (re)create the SQL models in sql/ (one model per file, named by the file) layer by layer, in
one transaction, with the reference tables they read. `drift` summarises what a load brought that the
warehouse does not know yet; `column_docs` documents every mart column (DuckDB comments, docs/views.md).

sql/layers.toml declares the layers as dbt's models: block does: their build order, how each
folder's models are stored (view or table) and what each layer may read (the sources, or models of
named layers). Which relations a model reads comes from DuckDB's own parser, so a name in a
comment or a string, or a CTE, is not a dependency."""
from __future__ import annotations

import functools
import json
import re
import threading
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb
import polars as pl

from warehouse.identity.reference import Reference
from warehouse.identity.resolve import load_reference_tables
from warehouse.resources import checksum, package_dir, read_record, write_record
from warehouse.store import db

SQL_DIR = package_dir("sql")
LAYERS_FILE_NAME = "layers.toml"
MATERIALIZATIONS = ("view", "table")
SOURCES = "sources"  # in a layer's `reads`: the relations the loader writes and the reference tables


@dataclass(frozen=True)
class Layer:
    name: str
    materialized: str
    reads: tuple[str, ...]


@dataclass(frozen=True)
class Layering:
    """sql/layers.toml: the source relations and the layers in build order."""
    sources: frozenset[str]
    layers: tuple[Layer, ...]

    @classmethod
    def read(cls, sql_dir: Path | None = None) -> "Layering":
        path = (sql_dir or SQL_DIR) / LAYERS_FILE_NAME
        with path.open("rb") as f:
            raw = tomllib.load(f)
        sources = raw.pop("sources", [])
        layers = tuple(Layer(name, spec.get("materialized"), tuple(spec.get("reads", [])))
                       for name, spec in raw.items())
        known = {SOURCES} | {layer.name for layer in layers}
        for layer in layers:
            if layer.materialized not in MATERIALIZATIONS:
                raise ValueError(f"{path}: [{layer.name}] materialized = {layer.materialized!r}; "
                                 f"expected one of {', '.join(MATERIALIZATIONS)}")
            unknown = sorted(set(layer.reads) - known)
            if unknown:
                raise ValueError(f"{path}: [{layer.name}] reads {', '.join(unknown)}: "
                                 f"neither '{SOURCES}' nor a layer of the file")
        return cls(frozenset(sources), layers)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(layer.name for layer in self.layers)

    def layer(self, name: str) -> Layer:
        return next(layer for layer in self.layers if layer.name == name)


LAYERS = Layering.read().names


@dataclass(frozen=True)
class ViewFile:
    """One file of sql/, read once: its name, layer, SQL, how it is stored, what it reads, its question."""
    path: Path
    sql: str
    kind: str   # 'view' or 'table': its layer's materialization

    @functools.cached_property
    def name(self) -> str:
        return self.path.stem

    @functools.cached_property
    def layer(self) -> str:
        return self.path.parent.name

    @property
    def question(self) -> str:
        """The opening sentence of the header comment: the question the view answers."""
        words = []
        for line in self.sql.splitlines():
            if not line.startswith("--"):
                break
            words.append(line.lstrip("-").strip())
            if words[-1].endswith(("?", ".")):
                break
        return " ".join(words)

    @functools.cached_property
    def relations(self) -> frozenset[str]:
        """Every table or view the SQL reads (CTE names excluded)."""
        return relations_read(self.sql, self.path)

    def reads(self, names) -> set[str]:
        return (self.relations & set(names)) - {self.name}


def relations_read(sql: str, path: Path) -> frozenset[str]:
    """The base tables and views one SELECT reads, from DuckDB's parse tree (json_serialize_sql)."""
    try:
        return _relations_in(sql)
    except ValueError as exc:
        raise ValueError(f"{path}: DuckDB cannot parse it: {exc}") from None


_PARSER_LOCK = threading.Lock()


@functools.lru_cache(maxsize=None)
def _parser() -> duckdb.DuckDBPyConnection:
    return duckdb.default_connection().cursor()  # the process's in-memory database (a new one costs 15 ms)


_RELATIONS: dict[str, frozenset[str]] = {}
READS_FILE_NAME = "_reads.json"


def _relations_in(sql: str) -> frozenset[str]:
    """Once per text and process (materialize, the column docs and the export all read sql/): from
    sql/_reads.json for a shipped model, else parsed by DuckDB."""
    _parse_ahead([sql])
    if sql not in _RELATIONS:
        raise ValueError(_parse([sql])[sql])  # the parse error
    return _RELATIONS[sql]


def _parse_ahead(sqls: list[str]) -> None:
    """The relations of every text not known yet: recorded (sql/_reads.json) or parsed, in one query."""
    recorded = _recorded_reads()
    todo = []
    for sql in dict.fromkeys(s for s in sqls if s not in _RELATIONS):
        found = recorded.get(checksum(sql))
        if found is None:
            todo.append(sql)
        else:
            _RELATIONS[sql] = frozenset(found)
    _RELATIONS.update((sql, found) for sql, found in _parse(todo).items() if not isinstance(found, str))


def _parse(sqls: list[str]) -> dict[str, frozenset[str] | str]:
    """text -> the tables and views it reads (CTE names excluded), or DuckDB's parse error; all texts
    in one query (a query each cost twice as much)."""
    if not sqls:
        return {}
    with _PARSER_LOCK:
        trees = _parser().execute("SELECT list_transform(?, lambda sql: json_serialize_sql(sql))",
                                  [sqls]).fetchone()[0]
    parsed: dict[str, frozenset[str] | str] = {}
    for sql, text in zip(sqls, trees):
        tables: set[str] = set()
        ctes: set[str] = set()

        def collect(node: dict) -> dict:
            if node.get("type") == "BASE_TABLE" and node.get("table_name"):
                tables.add(node["table_name"])
            cte_map = node.get("cte_map")
            if isinstance(cte_map, dict):
                ctes.update(entry["key"] for entry in cte_map.get("map", []))
            return node

        tree = json.loads(text, object_hook=collect)
        parsed[sql] = tree.get("error_message", str(tree)) if tree.get("error") else frozenset(tables - ctes)
    return parsed


@functools.lru_cache(maxsize=None)
def _recorded_reads() -> dict[str, list[str]]:
    """sql/_reads.json: what each shipped model reads, with the SHA-256 of the text it was read from,
    so a run does not parse the same files again (0.04 s a process). An edited model is parsed.
    -> {sha256: relations}."""
    return {entry["sha256"]: entry["reads"] for entry in read_record(SQL_DIR / READS_FILE_NAME).values()}


def parsed_reads(views: list[ViewFile]) -> dict[str, dict]:
    """What sql/_reads.json should hold for these models: each text parsed, the record not consulted.
    -> {layer/file: {"sha256": ..., "reads": [...]}}."""
    parsed = _parse([v.sql for v in views])
    problems = [f"{v.path}: DuckDB cannot parse it: {parsed[v.sql]}" for v in views if isinstance(parsed[v.sql], str)]
    if problems:
        raise ValueError("; ".join(problems))
    return {f"{v.layer}/{v.path.name}": {"sha256": checksum(v.sql), "reads": sorted(parsed[v.sql])} for v in views}


def write_recorded_reads() -> Path:
    """Write sql/_reads.json from the models of sql/ (`python -m warehouse.views`)."""
    return write_record(SQL_DIR / READS_FILE_NAME, parsed_reads(definitions()))


def view_files(sql_dir: Path | None = None, layering: Layering | None = None) -> list[Path]:
    sql_dir = sql_dir or SQL_DIR
    layering = layering or Layering.read(sql_dir)
    return [p for layer in layering.names for p in sorted((sql_dir / layer).glob("*.sql"))]


def definitions(sql_dir: Path | None = None) -> list[ViewFile]:
    layering = Layering.read(sql_dir)
    views = []
    for path in view_files(sql_dir, layering):
        sql = path.read_text(encoding="utf-8")
        views.append(ViewFile(path, sql, layering.layer(path.parent.name).materialized))
    return views


def layering_problems(sql_dir: Path | None = None) -> list[str]:
    """One line per read that sql/layers.toml does not allow (naming the file and the name it
    reads), per name read that is neither a source nor a model, and per folder of SQL files that
    is not a declared layer."""
    sql_dir = sql_dir or SQL_DIR
    layering = Layering.read(sql_dir)
    views = definitions(sql_dir)
    layer_of = {v.name: v.layer for v in views}
    problems = [f"{d.relative_to(sql_dir.parent)}/ holds SQL files but is not a layer of {LAYERS_FILE_NAME}"
                for d in sorted(sql_dir.iterdir())
                if d.is_dir() and d.name not in layering.names and any(d.glob("*.sql"))]
    for view in views:
        allowed = layering.layer(view.layer).reads
        shown = view.path.relative_to(sql_dir.parent)
        for name in sorted(view.relations - {view.name}):
            read_from = SOURCES if name in layering.sources else layer_of.get(name)
            if read_from is None:
                problems.append(f"{shown} reads {name}: neither a source ({LAYERS_FILE_NAME}) "
                                f"nor a model in {sql_dir.name}/")
            elif read_from not in allowed:
                what = "a source" if read_from == SOURCES else f"a {read_from} model"
                problems.append(f"{shown} reads {name} ({what}); {view.layer} may read only "
                                f"{' or '.join(allowed)}")
    return problems


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
    """name -> 'view' or 'table', for everything in the schema (one catalog query, not one a model)."""
    found = con.execute("SELECT table_name, table_type FROM information_schema.tables "
                        "WHERE table_schema = current_schema()").fetchall()
    return {name: "view" if kind == "VIEW" else "table" for name, kind in found}


def create(con: duckdb.DuckDBPyConnection, view: ViewFile, existing: str | None) -> None:
    """Create or replace one model as its layer stores it (a view that was a table is dropped first)."""
    if existing and existing != view.kind:
        con.execute(f"DROP {existing.upper()} {view.name}")
    try:
        con.execute(f"CREATE OR REPLACE {view.kind.upper()} {view.name} AS\n{view.sql}")
    except duckdb.Error as exc:
        raise RuntimeError(f"cannot create {view.kind} {view.name} ({view.path}): {exc}") from exc


RETIRED_MODEL = re.compile(r"^(base|stg|int)_")


def drop_retired_models(con: duckdb.DuckDBPyConnection, views: list[ViewFile]) -> list[str]:
    """Drop the base, staging and intermediate models an earlier version created that no file defines
    any more (a warehouse keeps them otherwise, stale, beside the models that replaced them)."""
    defined = {v.name for v in views}
    retired = [(name, kind) for name, kind in con.execute(
        "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = current_schema()"
    ).fetchall() if RETIRED_MODEL.match(name) and name not in defined]
    for name, kind in retired:
        con.execute(f"DROP {'VIEW' if kind == 'VIEW' else 'TABLE'} IF EXISTS {name}")
    return [name for name, _ in retired]


@dataclass(frozen=True)
class BuildTime:
    """What building one model cost: wall-clock seconds and CPU seconds of every thread."""
    view: ViewFile
    seconds: float
    cpu_seconds: float


def materialize(con: duckdb.DuckDBPyConnection, ref: Reference | None = None,
                profile: list[BuildTime] | None = None) -> list[str]:
    """Create or replace every model in dependency order, in one transaction; with `profile`, append
    what each model cost to build (bench/views_profile.py)."""
    from warehouse.identity.round_table import sync_registry
    views = in_dependency_order(definitions())
    with db.transaction(con):
        load_reference_tables(con, ref)
        sync_registry(con)
        drop_retired_models(con, views)
        existing = _existing_kinds(con)
        for view in views:
            started, cpu_started = time.perf_counter(), time.process_time()
            create(con, view, existing.get(view.name))
            if profile is not None:
                profile.append(BuildTime(view, time.perf_counter() - started, time.process_time() - cpu_started))
        from warehouse.views.column_docs import apply_comments  # it reads the views defined here
        apply_comments(con)
    return [v.name for v in views]


def rebuild(db_file: str | None, what: str, load: Callable[[duckdb.DuckDBPyConnection], object] | None = None):
    """Under the writer lock (named `what`): `load(con)` first when given (a claims, decisions or
    price file), then every view rebuilt, then the published copy replaced. -> (what `load`
    returned, the views built)."""
    from warehouse.store.publish import writing
    path = db.db_path(db_file)
    with writing(path, what), db.connect(path) as con:
        loaded = load(con) if load is not None else None
        created = materialize(con)
    return loaded, created


def list_views() -> pl.DataFrame:
    views = definitions()
    return pl.DataFrame({"view": [v.name for v in views], "layer": [v.layer for v in views],
                         "stored_as": [v.kind for v in views], "answers": [v.question for v in views]})
