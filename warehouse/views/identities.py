"""The identity the SQL models give rows like these, for names outside `results` (claims, prices,
tests): the same models (sql/base, sql/staging/stg_results) run on an in-memory database."""
from __future__ import annotations

import duckdb
import polars as pl

from warehouse.identity.reference import Reference
from warehouse.identity.resolve import load_reference_tables
from warehouse.store import db
from warehouse.store.tree_tables import TABLES as TREE_TABLES  # stg_results reads run_summaries
from warehouse.views.catalog import definitions

ACCELERATOR_MODEL = "base_accelerator_names"
IDENTITY_MODELS = ("base_accelerator_names", "base_benchmark_names", "base_processor_names", "base_result_rules",
                   "base_hardware_statements", "base_software_stacks", "stg_results")


def _results_shaped(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> None:
    """A temp `results` table with every column of the real one (the frame's own, the rest null)
    and any other column of the frame."""
    con.execute(db.TABLES + TREE_TABLES)
    types = con.execute("SELECT column_name, data_type FROM information_schema.columns "
                        "WHERE table_schema = 'main' AND table_name = 'results' ORDER BY ordinal_position").fetchall()
    columns = [f'"{c}"' if c in frame.columns else f'NULL::{t} AS "{c}"' for c, t in types]
    columns += [f'"{c}"' for c in frame.columns if c not in {c for c, _ in types}]
    columns = ", ".join(columns)
    with db.registered(con, _published=frame):
        con.execute(f"CREATE TEMP TABLE results AS SELECT {columns} FROM _published")


def resolve_identities(frame: pl.DataFrame, ref: Reference | None = None) -> pl.DataFrame:
    """The identity the views give rows like these (columns accelerator_raw, model, used_model, and
    any others of `results`): the same SQL model, run on an in-memory database, for names outside
    `results`. Returns the frame's columns and the identity columns stg_results adds."""
    by_name = {v.name: v for v in definitions()}
    with duckdb.connect(config=db.duckdb_config()) as con:
        load_reference_tables(con, ref)
        _results_shaped(con, frame)
        for name in IDENTITY_MODELS:
            con.execute(f"CREATE TEMP VIEW {name} AS\n{by_name[name].sql}")
        published = set(db.RESULT_COLUMNS)
        added = [c for (c,) in con.execute("SELECT column_name FROM (DESCRIBE stg_results)").fetchall()
                 if c not in published]
        columns = ", ".join(f'"{c}"' for c in [*frame.columns, *added])
        return db.query_frame(con, f"SELECT {columns} FROM stg_results")


def canonical_accelerators(names: list[str], ref: Reference | None = None) -> dict[str, str | None]:
    """Published (or typed) accelerator names -> canonical accelerator, by the views' own rule: the
    model stg_results takes its `accelerator` from (base_accelerator_names), run on these names alone
    (resolving every identity of stg_results as well cost a claims load 0.14 s)."""
    model = next(v for v in definitions() if v.name == ACCELERATOR_MODEL)
    frame = pl.DataFrame({"accelerator_raw": sorted(set(names))}, schema={"accelerator_raw": pl.String})
    with duckdb.connect(config=db.duckdb_config()) as con:
        load_reference_tables(con, ref)
        with db.registered(con, _names=frame):
            con.execute("CREATE TEMP TABLE results AS SELECT accelerator_raw FROM _names")
        con.execute("CREATE TEMP TABLE own_measurements (accelerator_raw VARCHAR)")
        return dict(con.execute(f"SELECT accelerator_raw, accelerator FROM (\n{model.sql}\n)").fetchall())
