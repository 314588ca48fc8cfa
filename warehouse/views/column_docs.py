"""Column documentation: sql/<layer>/_columns.toml -> COMMENT ON in DuckDB, export manifests, docs/views.md."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from warehouse.store import db
from warehouse.views.catalog import LAYERS, SQL_DIR, ViewFile, definitions

DOCS_FILE_NAME = "_columns.toml"
DOCUMENTED_LAYERS = ("marts",)
VIEWS_MD = Path("docs") / "views.md"  # the checkout's (`make docs` runs there); never inside the package


def docs_file(layer: str) -> Path:
    return SQL_DIR / layer / DOCS_FILE_NAME


@dataclass(frozen=True)
class ColumnDocs:
    """The descriptions of one layer, as written in its _columns.toml."""
    common: dict[str, str]
    views: dict[str, dict[str, str]]

    @classmethod
    def read(cls, layer: str) -> "ColumnDocs":
        path = docs_file(layer)
        if not path.exists():
            return cls({}, {})
        with path.open("rb") as f:
            raw = tomllib.load(f)
        return cls(raw.pop("_common", {}), raw)

    def problems(self) -> list[str]:
        """What is wrong with the file itself: descriptions that are not text, _same_as naming a
        view the file does not describe."""
        found = [f"[_common] {c}: not a non-empty text" for c, d in self.common.items() if not _text(d)]
        for view, columns in self.views.items():
            if not isinstance(columns, dict):
                found.append(f"{view}: not a table of column descriptions")
                continue
            found += [f"[{view}] {c}: not a non-empty text" for c, d in columns.items() if not _text(d)]
            same_as = columns.get("_same_as")
            if same_as is not None and same_as not in self.views:
                found.append(f"[{view}] _same_as = {same_as!r}: no such table in the file")
        return found

    def describe(self, view: str, column: str) -> str | None:
        own = self.views.get(view, {})
        if _text(own.get(column)):
            return own[column]
        same_as = own.get("_same_as")
        if same_as and same_as != view:
            inherited = self.describe(same_as, column)
            if inherited:
                return inherited
        return self.common[column] if _text(self.common.get(column)) else None

    def documented(self, view: str) -> set[str]:
        own = self.views.get(view, {})
        names = {c for c in own if not c.startswith("_")}
        if own.get("_same_as"):
            names |= self.documented(own["_same_as"])
        return names


def _text(value) -> bool:
    return isinstance(value, str) and bool(value.strip())


def all_docs() -> dict[str, ColumnDocs]:
    return {layer: ColumnDocs.read(layer) for layer in LAYERS}


def relation_columns(con: duckdb.DuckDBPyConnection, names: list[str]) -> pl.DataFrame:
    """view, column, type, position of each named view or table, in column order."""
    return db.query_frame(con, """
        SELECT table_name AS view, column_name AS column, data_type AS type, column_index AS position
        FROM duckdb_columns()
        WHERE schema_name = current_schema() AND database_name = current_database()
          AND list_contains(?, table_name)
        ORDER BY table_name, column_index""", [names])


def described_columns(con: duckdb.DuckDBPyConnection, views: list[ViewFile] | None = None) -> pl.DataFrame:
    """view, layer, column, type, description (null where none is written) of every view."""
    views = views if views is not None else definitions()
    docs = all_docs()
    layer_of = {v.name: v.layer for v in views}
    columns = relation_columns(con, list(layer_of))
    return columns.with_columns(
        pl.col("view").replace_strict(layer_of).alias("layer"),
        pl.struct("view", "column").map_elements(
            lambda r: docs[layer_of[r["view"]]].describe(r["view"], r["column"]),
            return_dtype=pl.String).alias("description"),
    ).select("view", "layer", "column", "type", "description")


def relation_documentation(con: duckdb.DuckDBPyConnection, name: str) -> list[dict]:
    """name, type, description of every column of one view or table (a table outside sql/, such as
    `results`, gets the [_common] descriptions of the layer that documents it)."""
    layer_of = {v.name: v.layer for v in definitions()}
    docs = all_docs()
    layer_docs = docs[layer_of.get(name, DOCUMENTED_LAYERS[0])]
    return [{"name": column, "type": type_, "description": layer_docs.describe(name, column)}
            for column, type_ in relation_columns(con, [name]).select("column", "type").iter_rows()]


def missing_descriptions(con: duckdb.DuckDBPyConnection) -> list[str]:
    """`view.column` of every column of a documented layer that has no description."""
    described = described_columns(con)
    missing = described.filter(pl.col("layer").is_in(DOCUMENTED_LAYERS) & pl.col("description").is_null())
    return [f"{v}.{c}" for v, c in missing.select("view", "column").iter_rows()]


def stale_descriptions(con: duckdb.DuckDBPyConnection) -> list[str]:
    """`view.column` described in a _columns.toml that the view does not have (renamed or dropped)."""
    views = {v.name: v.layer for v in definitions()}
    docs = all_docs()
    existing = {(v, c) for v, c in relation_columns(con, list(views)).select("view", "column").iter_rows()}
    stale = []
    for layer in DOCUMENTED_LAYERS:
        for view in docs[layer].views:
            if view not in views:
                stale.append(f"{view} (no such view)")
                continue
            stale += [f"{view}.{c}" for c in sorted(docs[layer].views[view])
                      if not c.startswith("_") and (view, c) not in existing]
    return stale


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def apply_comments(con: duckdb.DuckDBPyConnection, names: set[str] | None = None) -> None:
    """COMMENT ON every view (its question) and every described column, so any SQL client or BI
    tool reading DuckDB's catalog shows them; with `names`, on those models only (the ones rebuilt)."""
    views = [v for v in definitions() if names is None or v.name in names]
    with db.one_thread(con):
        for view in views:
            con.execute(f"COMMENT ON {view.kind.upper()} {view.name} IS {_quote(view.question)}")
        for name, column, description in described_columns(con, views).filter(
                pl.col("description").is_not_null()).select("view", "column", "description").iter_rows():
            con.execute(f'COMMENT ON COLUMN {name}."{column}" IS {_quote(description)}')


def render_markdown(con: duckdb.DuckDBPyConnection) -> str:
    """docs/views.md: every view, the question it answers, and its columns with type and meaning."""
    described = described_columns(con)
    lines = ["# Marts and their columns", "",
             "Generated by `make docs` (`mlperf-wh docs`) from the SQL headers in `sql/marts/` and the",
             "column descriptions in `sql/marts/_columns.toml`. Do not edit by hand. The same descriptions",
             "are DuckDB column comments in the warehouse and the `description` of each column in an",
             "export's manifest.json.", ""]
    for view in (v for v in definitions() if v.layer in DOCUMENTED_LAYERS):
        lines += [f"## `{view.name}` ({view.layer}, {view.kind})", "", view.question, "",
                  "| column | type | description |", "| --- | --- | --- |"]
        for column, type_, description in described.filter(pl.col("view") == view.name).select(
                "column", "type", "description").iter_rows():
            text = (description or "").replace("|", "\\|")
            lines.append(f"| `{column}` | `{type_}` | {text} |")
        lines.append("")
    return "\n".join(lines)
