"""(Re)create the SQL views in sql/: one view per file, named by the file; staging before marts."""
from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from warehouse import db
from warehouse.reference import Reference, default_reference

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
LAYERS = ("staging", "marts")


def view_files() -> list[Path]:
    return [p for layer in LAYERS for p in sorted((SQL_DIR / layer).glob("*.sql"))]


def describe(path: Path) -> str:
    """The opening sentence of a view file's header comment: the question the view answers."""
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        words.append(line.lstrip("-").strip())
        if words[-1].endswith(("?", ".")):
            break
    return " ".join(words)


def load_reference_tables(con: duckdb.DuckDBPyConnection, ref: Reference | None = None) -> None:
    ref = ref or default_reference()
    for table, frame in (("ref_accelerators", ref.accelerators), ("ref_benchmarks", ref.benchmarks),
                         ("ref_rack_capacity", ref.racks)):
        with db.registered(con, _ref=frame):
            con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM _ref")
    con.execute("CREATE TABLE IF NOT EXISTS prices (accelerator VARCHAR PRIMARY KEY, "
                "dollars_per_accelerator_hour DOUBLE NOT NULL CHECK (dollars_per_accelerator_hour > 0), "
                "note VARCHAR)")


def materialize(con: duckdb.DuckDBPyConnection, ref: Reference | None = None) -> list[str]:
    """Create or replace every view; files may reference views of the same layer in any order."""
    load_reference_tables(con, ref)
    pending = view_files()
    created: list[str] = []
    while pending:
        failures = []
        for path in pending:
            try:
                con.execute(f"CREATE OR REPLACE VIEW {path.stem} AS\n{path.read_text(encoding='utf-8')}")
                created.append(path.stem)
            except duckdb.CatalogException as exc:
                failures.append((path, exc))
        if len(failures) == len(pending):
            path, exc = failures[0]
            raise RuntimeError(f"cannot create view {path.stem} ({path}): {exc}") from exc
        pending = [p for p, _ in failures]
    return created


def list_views() -> pl.DataFrame:
    return pl.DataFrame({"view": [p.stem for p in view_files()],
                         "layer": [p.parent.name for p in view_files()],
                         "answers": [describe(p) for p in view_files()]})
