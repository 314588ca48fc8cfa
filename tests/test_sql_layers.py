"""sql/ keeps dbt's layering (sources -> base -> staging -> intermediate -> marts), declared in sql/layers.toml."""
from __future__ import annotations

import json
import shutil

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
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()").fetchall()}
    assert tables == set(Layering.read().sources)


def test_each_model_is_stored_as_its_layer_declares(shared_con):
    layering = Layering.read()
    assert [layer.name for layer in layering.layers] == ["base", "staging", "intermediate", "marts"]
    stored = {name: "view" if kind == "VIEW" else "table" for name, kind in shared_con.execute(
        "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = current_schema()"
    ).fetchall()}
    for view in definitions():
        assert "materialized:" not in view.sql, f"{view.path}: the layer declares how it is stored"
        assert stored[view.name] == view.kind == layering.layer(view.layer).materialized, view.name


def test_materialize_drops_retired_models_and_restores_a_model_stored_the_old_way(private_con):
    # A warehouse built by an earlier version: staging tables no file defines any more, and a mart
    # that was stored as a table.
    private_con.execute("CREATE TABLE stg_best_by_hardware AS SELECT 1 AS x")
    private_con.execute("CREATE VIEW stg_run_results AS SELECT 1 AS x")
    gains = private_con.execute("SELECT count(*) FROM software_gains").fetchone()[0]
    private_con.execute("DROP VIEW software_gains")
    private_con.execute("CREATE TABLE software_gains AS SELECT * FROM int_software_gains")
    materialize(private_con)
    kinds = dict(private_con.execute("SELECT table_name, table_type FROM information_schema.tables "
                                     "WHERE table_schema = current_schema()").fetchall())
    assert "stg_best_by_hardware" not in kinds and "stg_run_results" not in kinds
    assert kinds["software_gains"] == "VIEW"
    assert private_con.execute("SELECT count(*) FROM software_gains").fetchone()[0] == gains > 0


def test_the_recorded_reads_are_what_duckdb_parses_from_the_models_now():
    # A run takes what each shipped model reads from sql/_reads.json instead of parsing every file.
    recorded = json.loads((SQL_DIR / READS_FILE_NAME).read_text(encoding="utf-8"))
    assert recorded == parsed_reads(definitions()), \
        "sql/_reads.json is out of date: run `.venv/bin/python -m warehouse.views`"


def test_an_edited_model_is_parsed_not_taken_from_the_record(tmp_path):
    sql = "-- An edited model: its text is not the one recorded.\nSELECT * FROM stg_results, ref_benchmarks\n"
    assert relations_read(sql, tmp_path / "edited.sql") == {"stg_results", "ref_benchmarks"}
