"""The SQL models of sql/ as the code sees them: the layers sql/layers.toml declares (build order,
how each folder is stored, what it may read), one ViewFile per file (its name, layer, SQL, question)
and which relations each reads, from DuckDB's own parser (a name in a comment or a string, or a CTE,
is not a dependency)."""
from __future__ import annotations

import functools
import json
import re
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from warehouse.resources import checksum, package_dir, read_record, write_record
from warehouse.store import db
from warehouse.store.warehouse_file import SOURCE_SCHEMA, warehouse_schemas

if TYPE_CHECKING:
    import polars as pl

SQL_DIR = package_dir("sql")
LAYERS_FILE_NAME = "layers.toml"
MATERIALIZATIONS = ("view", "table")
SOURCES = "sources"  # in a layer's `reads`: the relations the loader writes and the reference tables


@dataclass(frozen=True)
class Layer:
    name: str
    materialized: str
    reads: tuple[str, ...]
    schema: str  # the DuckDB schema its models live in


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
        layers = tuple(Layer(name, spec.get("materialized"), tuple(spec.get("reads", [])),
                             spec.get("schema", name)) for name, spec in raw.items())
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



LAYERING = Layering.read()
LAYERS = LAYERING.names
MARTS_SCHEMA = LAYERING.layer(LAYERS[-1]).schema
SCHEMAS = warehouse_schemas()


@dataclass(frozen=True)
class ViewFile:
    """One file of sql/, read once: its name, layer, SQL, how it is stored, what it reads, its question."""
    path: Path
    sql: str
    kind: str   # 'view' or 'table': its layer's materialization
    schema: str = SOURCE_SCHEMA

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}"

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
        trees = db.scalar(_parser(), "SELECT list_transform(?, lambda sql: json_serialize_sql(sql))", [sqls])
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
        layer = layering.layer(path.parent.name)
        views.append(ViewFile(path, sql, layer.materialized, layer.schema))
    return views


def schema_of(views: list[ViewFile], sources=None) -> dict[str, str]:
    """name -> schema of every model and source relation."""
    sources = LAYERING.sources if sources is None else sources
    return {name: SOURCE_SCHEMA for name in sources} | {v.name: v.schema for v in views}


def qualified_sql(view: ViewFile, schemas: dict[str, str]) -> str:
    """The model's SQL with every relation of another schema named with its schema (DuckDB binds a
    view's bare names in the view's own schema, and a reader may attach the file under any name).
    Names followed by a dot (a column's qualifier) or inside quotes are left as written."""
    foreign = sorted((n for n in view.relations if schemas.get(n, view.schema) != view.schema), key=len, reverse=True)
    if not foreign:
        return view.sql
    pattern = re.compile(rf"(?<![\w.'\"])\b({'|'.join(map(re.escape, foreign))})\b(?![\w'\"]|\s*\.)")
    code, comments = _split_comments(view.sql)
    return "".join(piece if is_comment else pattern.sub(lambda m: f"{schemas[m.group(1)]}.{m.group(1)}", piece)
                   for piece, is_comment in zip(code, comments))


_COMMENT_OR_STRING = re.compile(r"--[^\n]*|'(?:[^']|'')*'")


def _split_comments(sql: str) -> tuple[list[str], list[bool]]:
    """The text cut into pieces, each either code or a comment/string literal (left untouched)."""
    pieces, kinds, at = [], [], 0
    for match in _COMMENT_OR_STRING.finditer(sql):
        pieces += [sql[at:match.start()], match.group(0)]
        kinds += [False, True]
        at = match.end()
    return pieces + [sql[at:]], kinds + [False]


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


def list_views(marts_only: bool = False) -> pl.DataFrame:
    """Every model (marts last, in dependency order), or the marts alone."""
    import polars as pl  # here: what only reads the catalog (an export, a build) never loads polars
    views = [v for v in definitions() if v.layer == LAYERS[-1] or not marts_only]
    return pl.DataFrame({"view": [v.name for v in views], "layer": [v.layer for v in views],
                         "stored_as": [v.kind for v in views], "answers": [v.question for v in views]})
