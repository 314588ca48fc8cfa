"""Views: (re)create the SQL models in sql/ (one view per file, named by the file, staging before marts) in
one transaction, with the reference tables they read. `drift` summarises what a load brought that the
warehouse does not know yet; `column_docs` documents every mart column (DuckDB comments, docs/views.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable
from pathlib import Path

import duckdb
import polars as pl

from schemas import results as vocabulary
from warehouse.identity.reference import Reference, default_reference
from warehouse.store import db

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
LAYERS = ("staging", "marts")
MATERIALIZED_TABLE = re.compile(r"^--\s*materialized:\s*table\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ViewFile:
    """One file of sql/, read once: its name, layer, SQL, how it is stored, and its question."""
    path: Path
    sql: str

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def layer(self) -> str:
        return self.path.parent.name

    @property
    def kind(self) -> str:
        """'table' when the header says `-- materialized: table` (heavy comparison marts, rebuilt
        after every load as dbt's materialized='table', so scans stay fast), else 'view'."""
        return "table" if MATERIALIZED_TABLE.search(self.sql) else "view"

    @property
    def question(self) -> str:
        """The opening sentence of the header comment: the question the view answers."""
        words = []
        for line in self.sql.splitlines():
            if not line.startswith("--"):
                break
            if MATERIALIZED_TABLE.match(line):
                continue
            words.append(line.lstrip("-").strip())
            if words[-1].endswith(("?", ".")):
                break
        return " ".join(words)

    def reads(self, names) -> set[str]:
        code = re.sub(r"--[^\n]*", "", self.sql)  # a name in a comment is not a dependency
        return {n for n in names if n != self.name and re.search(rf"\b{n}\b", code)}


def view_files() -> list[Path]:
    return [p for layer in LAYERS for p in sorted((SQL_DIR / layer).glob("*.sql"))]


def definitions() -> list[ViewFile]:
    return [ViewFile(p, p.read_text(encoding="utf-8")) for p in view_files()]


VOCABULARY = {
    "unit": vocabulary.KNOWN_UNITS, "scenario": vocabulary.SCENARIOS,
    "division": vocabulary.DIVISIONS, "availability": vocabulary.AVAILABILITIES,
    "suite": vocabulary.SUITES,
}


def vocabulary_frame() -> pl.DataFrame:
    """The words the schema knows, by kind (what `drift` compares each loaded row with)."""
    return pl.DataFrame([{"kind": kind, "term": term} for kind, terms in VOCABULARY.items() for term in terms])


def load_reference_tables(con: duckdb.DuckDBPyConnection, ref: Reference | None = None) -> None:
    ref = ref or default_reference()
    # priority: file order; the first pattern that matches a name wins.
    accelerators = ref.accelerators.with_row_index("priority")
    for table, frame in (("ref_accelerators", accelerators), ("ref_benchmarks", ref.benchmarks),
                         ("ref_rack_capacity", ref.racks), ("ref_vocabulary", vocabulary_frame())):
        with db.registered(con, _ref=frame):
            con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM _ref")
    con.execute("CREATE TABLE IF NOT EXISTS prices (accelerator VARCHAR PRIMARY KEY, "
                "dollars_per_accelerator_hour DOUBLE NOT NULL CHECK (dollars_per_accelerator_hour > 0), "
                "note VARCHAR)")


def in_dependency_order(views: list[ViewFile]) -> list[ViewFile]:
    """Every view after the views it reads from (a table must be rebuilt after its inputs)."""
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


def _existing_kind(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    found = con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = ? "
                        "AND table_schema = current_schema()", [name]).fetchone()
    return None if found is None else ("view" if found[0] == "VIEW" else "table")


def materialize(con: duckdb.DuckDBPyConnection, ref: Reference | None = None) -> list[str]:
    """Create or replace every view (or table) in dependency order, in one transaction."""
    from warehouse.identity.round_table import sync_registry
    with db.transaction(con):
        load_reference_tables(con, ref)
        sync_registry(con)
        created = []
        for view in in_dependency_order(definitions()):
            existing = _existing_kind(con, view.name)
            if existing and existing != view.kind:
                con.execute(f"DROP {existing.upper()} {view.name}")
            try:
                con.execute(f"CREATE OR REPLACE {view.kind.upper()} {view.name} AS\n{view.sql}")
            except duckdb.Error as exc:
                raise RuntimeError(f"cannot create {view.kind} {view.name} ({view.path}): {exc}") from exc
            created.append(view.name)
        from warehouse.views.column_docs import apply_comments  # it reads the views defined here
        apply_comments(con)
    return created


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


IDENTITY_MODELS = ("stg_accelerator_names", "stg_results")


def resolve_identities(frame: pl.DataFrame, ref: Reference | None = None) -> pl.DataFrame:
    """The identity the views give rows like these (columns accelerator_raw, model, used_model, and
    any others): the same SQL models, run on an in-memory database. For names outside `results`."""
    by_name = {v.name: v for v in definitions()}
    with duckdb.connect() as con:
        load_reference_tables(con, ref)
        with db.registered(con, results=frame):
            for name in IDENTITY_MODELS:
                con.execute(f"CREATE TEMP VIEW {name} AS\n{by_name[name].sql}")
            return db.query_frame(con, "SELECT * FROM stg_results")


def canonical_accelerators(names: list[str], ref: Reference | None = None) -> dict[str, str | None]:
    """Published (or typed) accelerator names -> canonical accelerator, by the views' own rule."""
    frame = pl.DataFrame({"accelerator_raw": sorted(set(names))}, schema={"accelerator_raw": pl.String})
    frame = frame.with_columns(model=pl.lit(None, pl.String), used_model=pl.lit(None, pl.String))
    resolved = resolve_identities(frame, ref)
    return dict(resolved.select("accelerator_raw", "accelerator").iter_rows())
