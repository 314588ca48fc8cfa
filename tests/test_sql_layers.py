"""sql/ keeps dbt's layering (sources -> base -> staging -> intermediate -> marts), declared in sql/layers.toml."""
from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from warehouse.errors import WarehouseUnavailable
from warehouse.identity.resolve import load_reference_tables
from warehouse.store import db
from warehouse.views import (
    READS_FILE_NAME,
    SQL_DIR,
    Layering,
    definitions,
    layering_problems,
    materialize,
    parsed_reads,
    relations_read,
)
from warehouse.store.warehouse_file import warehouse_schemas
from warehouse.views.catalog import ViewFile, qualified_sql, schema_of


def test_every_model_reads_only_what_its_layer_may():
    problems = layering_problems()
    assert problems == [], "sql/ breaks its layering (sql/layers.toml):\n" + "\n".join(problems)


def test_a_break_of_the_layering_names_the_file_and_what_it_reads(tmp_path):
    sql = tmp_path / "sql"
    shutil.copytree(SQL_DIR, sql)
    (sql / "staging" / "stg_reads_staging.sql").write_text(
        "-- A staging model that reads another staging model?\nSELECT * FROM stg_results\n")
    (sql / "marts" / "reads_raw_and_a_mart.sql").write_text(
        "-- A mart that reads a raw table and another mart?\n"
        "WITH results_by_round AS (SELECT round FROM results)\n"  # a CTE is not a dependency...
        "SELECT * FROM results_by_round, claims, leaderboard\n"
        "-- ...nor is a name in a comment: FROM verified_results\n")
    (sql / "marts" / "reads_nothing_known.sql").write_text("-- Typo?\nSELECT * FROM stg_resluts\n")
    (sql / "scratch").mkdir()
    (sql / "scratch" / "draft.sql").write_text("SELECT 1\n")
    assert layering_problems(sql) == [
        "sql/scratch/ holds SQL files but is not a layer of layers.toml",
        "sql/staging/stg_reads_staging.sql reads stg_results (a staging model); staging may read only sources or "
        "base",
        "sql/marts/reads_nothing_known.sql reads stg_resluts: neither a source (layers.toml) nor a model in sql/",
        "sql/marts/reads_raw_and_a_mart.sql reads claims (a source); marts may read only staging or intermediate",
        "sql/marts/reads_raw_and_a_mart.sql reads leaderboard (a marts model); marts may read only staging or "
        "intermediate",
        "sql/marts/reads_raw_and_a_mart.sql reads results (a source); marts may read only staging or intermediate",
    ]


def test_the_declared_sources_are_the_tables_the_loader_and_the_reference_write(tmp_path):
    with db.connect(str(tmp_path / "fresh.duckdb")) as con:
        load_reference_tables(con)
        tables = {name for (name,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    assert tables == set(Layering.read().sources)


def test_each_model_is_stored_as_its_layer_declares(shared_con):
    layering = Layering.read()
    assert [layer.name for layer in layering.layers] == ["base", "staging", "intermediate", "marts"]
    stored = {f"{schema}.{name}": "view" if kind == "VIEW" else "table" for schema, name, kind in shared_con.execute(
        "SELECT table_schema, table_name, table_type FROM information_schema.tables"
    ).fetchall()}
    for view in definitions():
        assert "materialized:" not in view.sql, f"{view.path}: the layer declares how it is stored"
        assert view.schema == view.layer, f"{view.path}: its layer's schema"
        assert stored[f"{view.layer}.{view.name}"] == view.kind == layering.layer(view.layer).materialized, view.name
    assert {name.split(".")[0] for name in stored} == {"main", "base", "staging", "intermediate", "marts"}
    assert not [name for name in stored if name.startswith("main.") and name.split(".")[1] in
                {v.name for v in definitions()}], "no model is left in main"


def test_materialize_drops_retired_models_and_restores_a_model_stored_the_old_way(private_con):
    # A warehouse built by an earlier version: staging tables no file defines any more (in main, where
    # every model lived before each layer had its schema, and in staging), a mart stored as a table,
    # and the marts and a base table of the version before schemas left in main.
    private_con.execute("CREATE TABLE main.stg_best_by_hardware AS SELECT 1 AS x")
    private_con.execute("CREATE VIEW staging.stg_run_results AS SELECT 1 AS x")
    private_con.execute("CREATE VIEW main.leaderboard AS SELECT 1 AS x")
    private_con.execute("CREATE TABLE main.base_benchmark_names AS SELECT 1 AS x")
    gains = private_con.execute("SELECT count(*) FROM software_gains").fetchone()[0]
    private_con.execute("DROP VIEW marts.software_gains")
    private_con.execute("CREATE TABLE marts.software_gains AS SELECT * FROM int_software_gains")
    materialize(private_con)
    kinds = {f"{schema}.{name}": kind for schema, name, kind in private_con.execute(
        "SELECT table_schema, table_name, table_type FROM information_schema.tables").fetchall()}
    for retired in ("main.stg_best_by_hardware", "staging.stg_run_results", "main.leaderboard",
                    "main.base_benchmark_names"):
        assert retired not in kinds, retired
    assert kinds["marts.software_gains"] == "VIEW" and kinds["base.base_benchmark_names"] == "BASE TABLE"
    assert private_con.execute("SELECT count(*) FROM software_gains").fetchone()[0] == gains > 0
    assert private_con.execute("SELECT count(*) FROM leaderboard").fetchone()[0] > 1


def test_the_recorded_reads_are_what_duckdb_parses_from_the_models_now():
    # A run takes what each shipped model reads from sql/_reads.json instead of parsing every file.
    recorded = json.loads((SQL_DIR / READS_FILE_NAME).read_text(encoding="utf-8"))
    assert recorded == parsed_reads(definitions()), \
        "sql/_reads.json is out of date: run `.venv/bin/python -m warehouse.views`"


def test_an_edited_model_is_parsed_not_taken_from_the_record(tmp_path):
    sql = "-- An edited model: its text is not the one recorded.\nSELECT * FROM stg_results, ref_benchmarks\n"
    assert relations_read(sql, tmp_path / "edited.sql") == {"stg_results", "ref_benchmarks"}


def test_each_model_names_the_schema_of_every_relation_it_reads_from_another_schema():
    # DuckDB binds a view's bare names in the view's own schema (and a reader may attach the file
    # under another name), so the build writes `staging.stg_results`, `main.results` and so on.
    views = definitions()
    schemas = schema_of(views)
    con = duckdb.connect()
    for view in views:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [qualified_sql(view, schemas)]).fetchall()[0][0])
        assert not tree["error"], f"{view.path}: {tree.get('error_message')}"
        named = set()

        def collect(node):
            if isinstance(node, dict):
                if node.get("type") == "BASE_TABLE" and node.get("table_name"):
                    named.add((node.get("schema_name") or view.schema, node["table_name"]))
                for child in node.values():
                    collect(child)
            elif isinstance(node, list):
                for child in node:
                    collect(child)
        collect(tree)
        expected = {(schemas[name], name) for name in view.relations}
        assert expected <= named, f"{view.path}: reads {sorted(expected - named)} without its schema"


def test_a_name_in_a_comment_a_string_or_before_a_dot_is_left_as_written(tmp_path):
    sql = ("-- reads stg_results\nSELECT stg_results.round, 'stg_results' AS label\n"
           "FROM stg_results JOIN results USING (source_id)")
    view = ViewFile(tmp_path / "marts" / "m.sql", sql, "view", "marts")
    assert qualified_sql(view, {"stg_results": "staging", "results": "main"}) == (
        "-- reads stg_results\nSELECT stg_results.round, 'stg_results' AS label\n"
        "FROM staging.stg_results JOIN main.results USING (source_id)")


def test_the_search_path_is_main_then_each_layers_schema_marts_first():
    layering = Layering.read()
    assert warehouse_schemas() == ("main",) + tuple(layer.schema for layer in reversed(layering.layers)) == (
        "main", "marts", "intermediate", "staging", "base")


def test_a_warehouse_file_named_like_a_schema_is_refused_in_one_line(tmp_path):
    for name in ("staging.duckdb", "marts.read.duckdb"):
        with pytest.raises(WarehouseUnavailable, match=rf"{name}: a warehouse file cannot be named"):
            db.connect(str(tmp_path / name))
        assert not (tmp_path / name).exists()
    db.connect(str(tmp_path / "main.duckdb")).close()  # DuckDB names its catalog main_db
