"""A catalog people can read: every source table and staging model column carries a DuckDB comment,
and every mart states its grain, key, caveats, lineage and two example queries that run."""
from __future__ import annotations

import pytest

from warehouse.views import column_docs, source_docs


def test_every_source_and_staging_column_has_a_comment(shared_con):
    uncommented = shared_con.execute("""
        SELECT c.table_name || '.' || c.column_name
        FROM duckdb_columns() AS c
        WHERE c.schema_name = current_schema() AND c.database_name = current_database()
          AND (list_contains(?, c.table_name) OR c.table_name LIKE 'stg\\_%' ESCAPE '\\')
          AND coalesce(trim(c.comment), '') = ''
        ORDER BY 1""", [list(source_docs.source_names())]).fetchall()
    assert [name for (name,) in uncommented] == [], (
        "columns without a description: add a `description=` to the Pandera model (schemas/), or an "
        "entry to sql/_sources.toml (sources) or sql/staging/_columns.toml (staging models)")
    tables = {name for (name,) in shared_con.execute(
        "SELECT table_name FROM duckdb_columns() WHERE list_contains(?, table_name)",
        [list(source_docs.source_names())]).fetchall()}
    assert tables == set(source_docs.source_names()), "a source of sql/layers.toml is not in the warehouse"


def test_results_columns_carry_their_schema_description(shared_con):
    from schemas.results import CanonicalResult
    comments = dict(shared_con.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE table_name = 'results'").fetchall())
    assert comments["value"] == CanonicalResult.to_schema().columns["value"].description
    assert comments["record_no"].startswith("the record's position")  # sql/_sources.toml
    [(about,)] = shared_con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = 'results'").fetchall()
    assert about.startswith("One published result")
    stg = dict(shared_con.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE table_name = 'stg_results'").fetchall())
    assert stg["submitter"] == comments["submitter"]  # passed through from the source
    assert stg["unit_verdict"] == column_docs.ColumnDocs.read("marts").common["unit_verdict"]


def test_run_summary_columns_are_described_in_loadgen_words(shared_con):
    assert source_docs.describe("run_summaries", "tpot_p99_ns").startswith("99.00 percentile time per output token")
    assert "'completed tokens per second'" in source_docs.describe("run_summaries", "completed_tokens_per_second")


@pytest.mark.unit
def test_the_source_and_staging_description_files_are_well_formed():
    assert source_docs.problems() == []
    assert column_docs.ColumnDocs.read("staging").problems() == []


def test_no_staging_description_names_a_column_that_does_not_exist(shared_con):
    staging = column_docs.ColumnDocs.read("staging")
    existing = {name for (name,) in shared_con.execute(
        "SELECT table_name || '.' || column_name FROM duckdb_columns()").fetchall()}
    stale = [f"{view}.{c}" for view, columns in staging.views.items() for c in columns
             if not c.startswith("_") and f"{view}.{c}" not in existing]
    stale += [f"{table}.{c}" for table, columns in source_docs._written().items() for c in columns
              if not c.startswith("_") and f"{table}.{c}" not in existing]
    assert stale == []
