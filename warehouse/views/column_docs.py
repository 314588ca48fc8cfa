"""Column documentation: sql/<layer>/_columns.toml -> COMMENT ON in DuckDB, export manifests, docs/views.md.

Marts are described in sql/marts/_columns.toml; staging models in sql/staging/_columns.toml, a column
it does not name taking the description of the same column in a source the model reads (a column
passed through: those its `_sources` lists, else every source it reads) and then the marts'
[_common]; the source tables by warehouse/views/source_docs.py."""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import duckdb

from warehouse.store import db
from warehouse.views.catalog import LAYERS, SCHEMAS, SOURCE_SCHEMA, SQL_DIR, ViewFile, definitions

DOCS_FILE_NAME = "_columns.toml"
DOCUMENTED_LAYERS = ("marts",)   # every column described, or tests/test_column_docs.py fails
COMMENTED_LAYERS = ("staging", "marts")  # ... and these (tests/test_catalog_docs.py), with the sources
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
            found += [f"[{view}] {c}: not a non-empty text" for c, d in columns.items()
                      if c != "_sources" and not _text(d)]
            sources = columns.get("_sources", [])
            if not (isinstance(sources, list) and all(_text(s) for s in sources)):
                found.append(f"[{view}] _sources: not a list of source tables")
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


class CatalogColumn(NamedTuple):
    """One column of a view or table as DuckDB's catalog has it."""
    view: str
    column: str
    type: str


class DescribedColumn(NamedTuple):
    """One column of a view or table with what it means (None where nothing says)."""
    view: str
    column: str
    type: str
    description: str | None


# A catalog read naming its relations: `IN (SELECT unnest(?))`, not list_contains(?, table_name):
# DuckDB evaluates a list argument again for each catalog row, and with a hundred names a read took
# 20 ms instead of 6. Parameters: the schemas, then the names.
NAMED_IN_SCHEMAS = ("database_name = current_database() AND list_contains(?, schema_name) "
                    "AND {} IN (SELECT unnest(?::VARCHAR[]))")


def _catalog_columns(con: duckdb.DuckDBPyConnection, names: list[str]) -> list[tuple[str, str, str, str | None]]:
    """(relation, column, type, comment) of every column of each named view or table, in column order."""
    return con.execute(f"SELECT table_name, column_name, data_type, comment FROM duckdb_columns() "
                       f"WHERE {NAMED_IN_SCHEMAS.format('table_name')} ORDER BY table_name, column_index",
                       [list(SCHEMAS), names]).fetchall()


def relation_columns(con: duckdb.DuckDBPyConnection, names: list[str]) -> list[CatalogColumn]:
    """The columns of each named view or table, by name, in column order."""
    return [CatalogColumn(name, column, type_) for name, column, type_, _ in _catalog_columns(con, names)]


def _describer(views: list[ViewFile]):
    """-> describe(view, column): the description of one column of a model, or None."""
    from warehouse.views import source_docs
    docs = all_docs()
    everything = {v.name: v for v in definitions()}
    sources = set(source_docs.source_names())

    @functools.lru_cache(maxsize=None)
    def sources_read(name: str) -> tuple[str, ...]:
        """The sources a model reads, directly (first, by name) or through the models it reads."""
        reads = everything[name].relations - {name}
        found = sorted(reads & sources)
        for model in sorted(reads & set(everything)):
            found += [s for s in sources_read(model) if s not in found]
        return tuple(found)

    def describe(view: str, column: str) -> str | None:
        layer = everything[view].layer
        own = docs[layer].describe(view, column) if layer != "staging" else docs[layer].views.get(view, {}).get(column)
        if own or layer != "staging":
            return own
        for source in docs[layer].views.get(view, {}).get("_sources") or sources_read(view):
            found = source_docs.describe(source, column)
            if found:
                return found
        return docs[layer].describe(view, column) or docs["marts"].describe(view, column)
    return describe


def described_columns(con: duckdb.DuckDBPyConnection, views: list[ViewFile] | None = None) -> list[DescribedColumn]:
    """Every column of every view (default: every model), its description None where none is written."""
    views = views if views is not None else definitions()
    describe = _describer(views)
    return [DescribedColumn(*c, describe(c.view, c.column)) for c in relation_columns(con, [v.name for v in views])]


def source_columns(con: duckdb.DuckDBPyConnection, names: list[str] | None = None) -> list[DescribedColumn]:
    """Every column of every named source table present (default: every one), described as
    warehouse/views/source_docs.py says."""
    from warehouse.views import source_docs
    names = list(source_docs.source_names()) if names is None else names
    return [DescribedColumn(*c, source_docs.describe(c.view, c.column)) for c in relation_columns(con, names)]


def relation_documentation(con: duckdb.DuckDBPyConnection, name: str) -> list[dict]:
    """name, type, description of every column of one view or table (a source table, such as
    `results`, described as warehouse/views/source_docs.py says)."""
    return relations_documentation(con, [name])[name]


def relations_documentation(con: duckdb.DuckDBPyConnection, names: list[str]) -> dict[str, list[dict]]:
    """relation_documentation of each of `names`, read with one pass over the catalog and the docs
    (the export documents 27 marts: one at a time, it read every model file 109 times)."""
    from warehouse.views import source_docs
    sources = set(source_docs.source_names())
    views = [v for v in definitions() if v.name in names and v.name not in sources]
    documented = [v.name for v in views]
    undocumented = [n for n in names if n not in sources and n not in documented]
    columns = (source_columns(con, [n for n in names if n in sources]) + described_columns(con, views)
               + [DescribedColumn(*c, None) for c in relation_columns(con, undocumented)])
    found: dict[str, list[dict]] = {name: [] for name in names}
    for view, column, kind, description in columns:
        found[view].append({"name": column, "type": kind, "description": description})
    return found


def missing_descriptions(con: duckdb.DuckDBPyConnection) -> list[str]:
    """`view.column` of every column of a documented layer that has no description."""
    documented = [v for v in definitions() if v.layer in DOCUMENTED_LAYERS]
    return [f"{c.view}.{c.column}" for c in described_columns(con, documented) if c.description is None]


def stale_descriptions(con: duckdb.DuckDBPyConnection) -> list[str]:
    """`view.column` described in a _columns.toml that the view does not have (renamed or dropped)."""
    views = {v.name: v.layer for v in definitions()}
    docs = all_docs()
    existing = {(c.view, c.column) for c in relation_columns(con, list(views))}
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


# A COMMENT replaces the commented entry of the catalog with a copy (a view's copy holds its whole
# parsed query), and a transaction keeps every copy it made until it commits: the 1,700 comments of a
# first build, in one transaction, held 41 MiB to the end of it (issue 43). A few hundred a
# transaction bound that, for 4-6 commits (about 5 ms each).
COMMENTS_PER_TRANSACTION = 300


def apply_comments(con: duckdb.DuckDBPyConnection, names: set[str] | None = None) -> None:
    """COMMENT ON every view (its question), every source table (what a row is) and every described
    column, so any SQL client or BI tool reading DuckDB's catalog shows them; with `names`, on those
    models and source tables only (the ones rebuilt or reloaded). In transactions of its own,
    COMMENTS_PER_TRANSACTION comments each: call it outside a transaction."""
    with db.one_thread(con):
        statements = comment_statements(con, names)
        for first in range(0, len(statements), COMMENTS_PER_TRANSACTION):
            # one call for each batch: a thousand calls cost a round trip each (0.3 s of a fresh build)
            with db.transaction(con, "the views' rebuild"):
                con.execute(";\n".join(statements[first:first + COMMENTS_PER_TRANSACTION]))


def comment_statements(con: duckdb.DuckDBPyConnection, names: set[str] | None = None) -> list[str]:
    """The COMMENT statements apply_comments runs: every comment of `names` (default: every model and
    source table) that the catalog does not already hold (a refilled table, a view left as it was and a
    source table keep theirs)."""
    from warehouse.views import source_docs
    views = [v for v in definitions() if names is None or v.name in names]
    sources = [s for s in source_docs.source_names() if names is None or s in names]
    models = {v.name: v for v in views}
    said = _relation_comments(con, list(models) + sources)
    columns = _catalog_columns(con, list(models) + sources)
    statements = [f"COMMENT ON {view.kind.upper()} {view.qualified_name} IS {_quote(view.question)}"
                  for view in views if said.get(view.name) != view.question]
    for table in dict.fromkeys(name for name, *_ in columns if name not in models):
        about = source_docs.describe_table(table)
        if about and said.get(table) != about:
            statements.append(f"COMMENT ON TABLE {SOURCE_SCHEMA}.{table} IS {_quote(about)}")
    describe_model = _describer(views)
    for name, column, _, comment in columns:
        model = models.get(name)
        description = describe_model(name, column) if model else source_docs.describe(name, column)
        if description is not None and comment != description:
            statements.append(f'COMMENT ON COLUMN {model.schema if model else SOURCE_SCHEMA}.{name}."{column}" '
                              f'IS {_quote(description)}')
    return statements


def _relation_comments(con: duckdb.DuckDBPyConnection, names: list[str]) -> dict[str, str | None]:
    """The comment the catalog holds on each named table or view (None where none)."""
    return dict(con.execute(
        f"SELECT table_name, comment FROM duckdb_tables() WHERE {NAMED_IN_SCHEMAS.format('table_name')} UNION ALL "
        f"SELECT view_name, comment FROM duckdb_views() WHERE {NAMED_IN_SCHEMAS.format('view_name')}",
        [list(SCHEMAS), names] * 2).fetchall())


def render_markdown(con: duckdb.DuckDBPyConnection) -> str:
    """docs/views.md: every mart, the question it answers, its grain, key, caveats, lineage and two
    example queries (sql/marts/_catalog.toml, sql/_reads.json), and its columns with type and meaning."""
    from warehouse.views import mart_catalog
    views = definitions()
    described = described_columns(con, [v for v in views if v.layer in DOCUMENTED_LAYERS])
    catalog = mart_catalog.entries()
    lines = ["# Marts and their columns", "",
             "Generated by `make docs` (`mlperf-wh docs`) from the SQL headers in `sql/marts/`, the catalog",
             "in `sql/marts/_catalog.toml` (grain, key, caveats, examples), the relations each model reads",
             "(`sql/_reads.json`) and the column descriptions in `sql/marts/_columns.toml`. Do not edit by",
             "hand. The same descriptions are DuckDB column comments in the warehouse and the `description`",
             "of each column in an export's manifest.json; the source tables and staging models carry",
             "column comments too (`sql/_sources.toml`, `sql/staging/_columns.toml`, `schemas/`).", "",
             "The marts are in the DuckDB schema `marts` (`SELECT * FROM marts.leaderboard` from any client;",
             "`mlperf-wh sql` finds a bare name through its search path); the loaded tables are in `main`.", ""]
    for view in (v for v in views if v.layer in DOCUMENTED_LAYERS):
        lines += [f"## `{view.name}` ({view.layer}, {view.kind})", "", view.question, ""]
        entry = catalog.get(view.name)
        if entry is not None:
            key = ", ".join(f"`{c}`" for c in entry.key) if entry.key else f"none: {entry.no_key}"
            lineage = mart_catalog.lineage(view.name, views)
            lines += [f"- **Grain:** {entry.grain}", f"- **Key:** {key}"]
            if entry.needs:
                lines.append("- **Has rows once loaded:** " + ", ".join(
                    f"{n} (`{mart_catalog.NEEDS[n]}`)" for n in entry.needs))
            lines += ["- **Reads:** " + ", ".join(f"`{r}`" for r in lineage.inputs),
                      "- **Sources, in the end:** " + ", ".join(f"`{s}`" for s in lineage.sources),
                      "- **Caveats:**"]
            lines += [f"  - {c}" for c in entry.caveats]
            lines.append("")
            for example in entry.examples:
                lines += [f"{example.title}:", "", "```sql", example.sql, "```", ""]
        lines += ["| column | type | description |", "| --- | --- | --- |"]
        for _, column, type_, description in (c for c in described if c.view == view.name):
            text = (description or "").replace("|", "\\|")
            lines.append(f"| `{column}` | `{type_}` | {text} |")
        lines.append("")
    return "\n".join(lines + _loaded_tables_markdown())


def _loaded_tables_markdown() -> list[str]:
    """The tables the loaders and runs write, and the reference tables: what one row of each is."""
    from warehouse.views.source_docs import loaded_tables
    lines = ["## Loaded tables (main)", "",
             "What the loaders and runs write, and the reference tables, beside the marts (`mlperf-wh views",
             "--all` lists them too; their columns: `mlperf-wh sql \"DESCRIBE answer_changes\"`, and each",
             "column's comment in the warehouse).", "", "| table | one row is |", "| --- | --- |"]
    for name, about in loaded_tables():
        lines.append(f"| `{name}` | {about.replace('|', chr(92) + '|')} |")
    return [*lines, ""]
