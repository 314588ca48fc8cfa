"""After a ledger load only the models reading what it wrote are rebuilt (materialize(changed=...)),
and they hold exactly what a full rebuild would; anything else (models or reference tables changed
since the last full build, a model missing) falls back to the full build."""
from __future__ import annotations

import pytest

import dataclasses
import re
import sys

from tests.conftest import ROOT
from tests.test_measurements_read import CSV, VLLM_C64
from warehouse.identity.reference import default_reference
from warehouse.ledger.claims import load_claims, load_decisions
from warehouse.ledger.measurements import MEASUREMENT_TABLES, RunOptions, load_measurements
from warehouse.store import db
from warehouse.views import materialize
from warehouse.views.catalog import definitions
from warehouse.views.materialize import downstream_of, in_dependency_order

LEDGER_TABLES = {"claims", "decisions", "prices", *MEASUREMENT_TABLES}
TABLES = {v.name for v in definitions() if v.kind == "table"}  # what every full build re-creates


def contents(con) -> dict[str, tuple[list[str], list[str]]]:
    """Every model's columns and rows (each row as text, sorted: nested values compare too)."""
    found = {}
    for view in definitions():
        frame = db.query_frame(con, f"SELECT * FROM {view.name}")
        found[view.name] = (frame.columns, sorted(repr(row) for row in frame.rows()))
    return found


@pytest.mark.slow
def test_a_ledger_load_rebuilds_only_what_reads_it_and_the_same_as_a_full_build(private_con):
    load_claims(private_con, ROOT / "examples" / "claims_v6.1_nvidia.example.toml")
    built = materialize(private_con, changed={"claims"})
    assert "int_claim_audit" in built and "claim_audit" in built and "int_decision_records" in built
    assert "int_best_results" not in built and "int_token_economics" not in built
    load_decisions(private_con, ROOT / "examples" / "decisions.example.toml")
    materialize(private_con, changed={"decisions"})
    load_measurements(private_con, VLLM_C64, None, RunOptions("H200", 8))
    load_measurements(private_con, CSV, None, RunOptions())
    built = materialize(private_con, changed=MEASUREMENT_TABLES)
    assert {"base_accelerator_names", "stg_own_measurements", "own_vs_mlperf", "drift"} <= set(built)
    partial = contents(private_con)
    everything = materialize(private_con)
    assert set(everything) == TABLES  # a full build: every table; the views' definitions are unchanged
    full = contents(private_con)
    assert partial.keys() == full.keys()
    for name in full:
        assert partial[name] == full[name], name


@pytest.mark.slow
def test_edited_reference_tables_or_a_missing_model_mean_a_full_build(private_con):
    edited = dataclasses.replace(default_reference(), racks=default_reference().racks.head(1))
    assert set(materialize(private_con, ref=edited, changed={"claims"})) == TABLES
    private_con.execute("DROP VIEW own_vs_mlperf")
    assert set(materialize(private_con, changed={"claims"})) == TABLES | {"own_vs_mlperf"}
    assert len(materialize(private_con, changed={"claims"})) < len(TABLES)


@pytest.mark.slow
def test_a_full_build_re_creates_a_view_only_when_its_definition_changed(private_con, monkeypatch):
    downstream = {v.name for v in downstream_of(in_dependency_order(definitions()), {"stg_prices"})}
    assert "token_economics" in downstream
    edited = [dataclasses.replace(v, sql=v.sql + "-- edited\n") if v.name == "stg_prices" else v
              for v in definitions()]
    # the module, not the function warehouse.views exports under its name
    monkeypatch.setattr(sys.modules["warehouse.views.materialize"], "definitions", lambda: edited)
    built = set(materialize(private_con))
    # the edited view and every view that reads it, directly or through other models
    assert built - TABLES == {"stg_prices"} | (downstream - TABLES)
    monkeypatch.undo()
    assert private_con.execute("SELECT comment FROM duckdb_views() WHERE view_name = 'stg_prices'").fetchall()[0][0]
    # a source table's columns are part of every view's definition (a view binds them when queried)
    private_con.execute("ALTER TABLE main.prices ADD COLUMN added_later VARCHAR")
    assert set(materialize(private_con)) == {v.name for v in definitions()}
    assert set(materialize(private_con)) == TABLES


def test_every_ledger_table_reaches_its_marts():
    ordered = in_dependency_order(definitions())
    reach = {table: {v.name for v in downstream_of(ordered, {table})} for table in LEDGER_TABLES}
    assert {"claim_audit", "decision_records", "procurement_grade_claims"} <= reach["claims"]
    assert {"decision_records", "decisions_due"} <= reach["decisions"]
    assert {"token_economics", "rack_throughput"} <= reach["prices"]
    assert {"own_runs", "own_vs_mlperf", "decision_records", "drift"} <= reach["own_measurements"]


@pytest.mark.slow
def test_a_first_ledger_load_into_a_new_warehouse_builds_everything(tmp_path):
    with db.connect(str(tmp_path / "new.duckdb")) as con:
        load_claims(con, ROOT / "examples" / "claims_v6.1_nvidia.example.toml")
        assert len(materialize(con, changed={"claims"})) == len(definitions())
        assert len(materialize(con, changed={"claims"})) < len(definitions())


def comment_statements(con, build) -> list[str]:
    """The COMMENT statements `build()` ran on `con`, from DuckDB's own query log."""
    con.execute("CALL enable_logging('QueryLog')")
    con.execute("CALL truncate_duckdb_logs()")
    try:
        build()
        return [m for (m,) in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()
                if "COMMENT ON" in m]
    finally:
        con.execute("CALL disable_logging()")


def table_comments(con) -> dict[tuple[str, str], str]:
    """The comments of the tables the build makes (base, intermediate): on the table (its question)
    and on each described column."""
    where = "WHERE schema_name IN ('base', 'intermediate') AND comment IS NOT NULL"
    return {**{(t, ""): comment for t, comment in con.execute(
                f"SELECT table_name, comment FROM duckdb_tables() {where}").fetchall()},
            **{(t, c): comment for t, c, comment in con.execute(
                f"SELECT table_name, column_name, comment FROM duckdb_columns() {where}").fetchall()}}


@pytest.mark.slow
def test_a_full_build_writes_comments_only_for_what_it_created(private_con, monkeypatch):
    """Tables are refilled in place when their definition is unchanged, so they keep their comments:
    writing them all again was a fifth of a build (issue 43). A changed definition re-creates the
    table, and its comments are written."""
    commented = table_comments(private_con)
    assert commented
    said = comment_statements(private_con, lambda: materialize(private_con))
    # (the reference tables are loaded again by every full build, and said again with them)
    assert [s for s in said if re.search(r"\b(base|staging|intermediate|marts)\.", s)] == []
    assert table_comments(private_con) == commented, "refilled tables keep their column comments"
    edited_name = next(t for t, _ in sorted(commented) if t.startswith("int_"))
    edited = [dataclasses.replace(v, sql=v.sql + "-- edited\n") if v.name == edited_name else v
              for v in definitions()]
    monkeypatch.setattr(sys.modules["warehouse.views.materialize"], "definitions", lambda: edited)
    said = comment_statements(private_con, lambda: materialize(private_con))
    assert any(f"intermediate.{edited_name}" in s for s in said)
    monkeypatch.undo()
    assert table_comments(private_con) == commented



def statements(con, build, containing: str) -> list[str]:
    """The statements containing `containing` that `build()` ran on `con`, from DuckDB's query log."""
    con.execute("CALL enable_logging('QueryLog')")
    con.execute("CALL truncate_duckdb_logs()")
    try:
        build()
        return [m for (m,) in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()
                if containing in m]
    finally:
        con.execute("CALL disable_logging()")


@pytest.mark.slow
def test_a_small_warehouse_builds_from_snapshots_of_its_views_and_holds_what_a_plain_build_holds(
        trees_warehouse, tmp_path, monkeypatch):
    """Below SNAPSHOT_MAX_ROWS result rows, a staging view two tables read is computed once into a temp
    table the tables read (issue 43: half the tables' build time on the shared rounds). Every model
    holds the same rows as when each table reads the views, nothing of the snapshots outlives the
    build, and no view is defined on them."""
    import shutil
    path = tmp_path / "copy.duckdb"
    shutil.copyfile(trees_warehouse, path)
    with db.connect(str(path)) as con:
        load_claims(con, ROOT / "examples" / "claims_v6.1_nvidia.example.toml")
        load_decisions(con, ROOT / "examples" / "decisions.example.toml")
        snapshots = statements(con, lambda: materialize(con), "CREATE TEMP TABLE")
        # stg_results (read by ten tables) and stg_claims (five), each once
        taken = sorted(re.search(r"CREATE TEMP TABLE (\w+)", s).group(1) for s in snapshots)
        assert {"stg_results", "stg_claims"} <= set(taken) and len(taken) == len(set(taken))
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall()[0][0] == 0
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal "
                           "AND sql ILIKE '%temp.main%'").fetchall()[0][0] == 0
        from_snapshots = contents(con)
        monkeypatch.setattr(sys.modules["warehouse.views.materialize"], "SNAPSHOT_MAX_ROWS", 0)
        assert statements(con, lambda: materialize(con), "CREATE TEMP TABLE") == []
        assert contents(con) == from_snapshots
