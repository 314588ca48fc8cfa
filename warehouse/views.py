"""(Re)create the SQL views in sql/: one view per file, named by the file; staging before marts."""
from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl

from warehouse import db
from warehouse.reference import Reference, default_reference

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
LAYERS = ("staging", "marts")
MATERIALIZED_TABLE = re.compile(r"^--\s*materialized:\s*table\s*$", re.MULTILINE)


def view_files() -> list[Path]:
    return [p for layer in LAYERS for p in sorted((SQL_DIR / layer).glob("*.sql"))]


def describe(path: Path) -> str:
    """The opening sentence of a view file's header comment: the question the view answers."""
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        if MATERIALIZED_TABLE.match(line):
            continue
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


def materialization(path: Path) -> str:
    """'table' when the file's header says `-- materialized: table`, else 'view'.

    Heavy comparison marts are stored as tables (rebuilt after every load, as dbt's
    materialized='table'), so analysts' scans stay fast on large warehouses."""
    return "table" if MATERIALIZED_TABLE.search(path.read_text(encoding="utf-8")) else "view"


def ordered_view_files() -> list[Path]:
    """Every view file after the files it reads from (a table must be rebuilt after its inputs)."""
    files = view_files()
    names = {p.stem: p for p in files}
    reads = {p.stem: {n for n in names if n != p.stem and re.search(rf"\b{n}\b", p.read_text(encoding="utf-8"))}
             for p in files}
    ordered: list[Path] = []
    done: set[str] = set()
    while len(ordered) < len(files):
        ready = [p for p in files if p.stem not in done and reads[p.stem] <= done]
        if not ready:
            cycle = sorted(n for n in names if n not in done)
            raise RuntimeError(f"views read each other in a cycle: {', '.join(cycle)}")
        ordered.append(ready[0])
        done.add(ready[0].stem)
    return ordered


def _existing_kind(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    found = con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = ? "
                        "AND table_schema = current_schema()", [name]).fetchone()
    return None if found is None else ("view" if found[0] == "VIEW" else "table")


def materialize(con: duckdb.DuckDBPyConnection, ref: Reference | None = None) -> list[str]:
    """Create or replace every view (or table) in dependency order, in one transaction."""
    with db.transaction(con):
        load_reference_tables(con, ref)
        created = []
        for path in ordered_view_files():
            kind = materialization(path)
            existing = _existing_kind(con, path.stem)
            if existing and existing != kind:
                con.execute(f"DROP {existing.upper()} {path.stem}")
            try:
                con.execute(f"CREATE OR REPLACE {kind.upper()} {path.stem} AS\n{path.read_text(encoding='utf-8')}")
            except duckdb.Error as exc:
                raise RuntimeError(f"cannot create {kind} {path.stem} ({path}): {exc}") from exc
            created.append(path.stem)
    return created


def list_views() -> pl.DataFrame:
    files = view_files()
    return pl.DataFrame({"view": [p.stem for p in files], "layer": [p.parent.name for p in files],
                         "stored_as": [materialization(p) for p in files],
                         "answers": [describe(p) for p in files]})
