"""A catalog people can read: every source table and staging model column carries a DuckDB comment,
and every mart states its grain, key, caveats, lineage and two example queries that run."""
from __future__ import annotations

import pytest

from warehouse.views import column_docs, source_docs


def test_every_source_and_staging_column_has_a_comment(shared_con):
    uncommented = shared_con.execute("""
        SELECT c.table_name || '.' || c.column_name
        FROM duckdb_columns() AS c
        WHERE c.database_name = current_database()
          AND ((c.schema_name = 'main' AND list_contains(?, c.table_name)) OR c.schema_name = 'staging')
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


# --- the marts' catalog: sql/marts/_catalog.toml, rendered in docs/views.md -----------------------

from tests.conftest import ROOT  # noqa: E402
from warehouse.views import mart_catalog  # noqa: E402
from warehouse.views.catalog import definitions  # noqa: E402

MARTS = [v.name for v in definitions() if v.layer == "marts"]
ENTRIES = mart_catalog.entries()
CATALOG_LEDGERS = ROOT / "tests" / "fixtures" / "catalog"
POWER_ROUNDS = ("v1.1", "v2.1")  # the shared trees that hold power files


@pytest.mark.unit
def test_every_mart_has_grain_key_caveats_and_two_examples():
    assert mart_catalog.problems() == []
    assert set(ENTRIES) == set(MARTS)


@pytest.mark.unit
def test_lineage_is_read_from_the_sql():
    lineage = mart_catalog.lineage("leaderboard")
    assert "int_best_results" in lineage.inputs or "stg_results" in lineage.inputs
    assert "results" in lineage.sources and not any(s.startswith(("stg_", "int_")) for s in lineage.sources)
    assert "claims" in mart_catalog.lineage("claim_audit").sources


@pytest.mark.unit
def test_docs_views_md_renders_the_catalog_of_every_mart():
    text = (ROOT / "docs" / "views.md").read_text(encoding="utf-8")
    for name, entry in ENTRIES.items():
        section = text.split(f"## `{name}` ", 1)[1].split("\n## ", 1)[0]
        assert f"- **Grain:** {entry.grain}" in section
        assert "- **Key:** " in section and "- **Reads:** " in section and "- **Sources, in the end:** " in section
        assert all(example.sql in section for example in entry.examples)
    # current with the catalog: tests/test_column_docs.py test_docs_views_md_is_up_to_date


@pytest.fixture(scope="module")
def catalog_con(trees_warehouse, tmp_path_factory):
    """The shared rounds with their trees, the two old rounds whose trees hold measured power (v1.1,
    v2.1: the efficiency marts' pairs), the shipped example ledgers and measurements, and
    tests/fixtures/catalog (a claim the shared rounds reproduce, a decision due): what the marts
    whose `needs` names a load are queried on."""
    import shutil

    from tests.trees_layout import TREES
    from warehouse.identity.rounds import load_registry
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.ledger.measurements import load_measurements
    from warehouse.store import db
    from warehouse.trees.run import rebuild_rounds
    from warehouse.views import materialize
    path = tmp_path_factory.mktemp("catalog") / "warehouse.duckdb"
    shutil.copyfile(trees_warehouse, path)
    registry = load_registry()
    rebuild_rounds([registry[name] for name in POWER_ROUNDS], str(TREES), str(path))
    with db.connect(str(path)) as con:
        for claims in (ROOT / "examples" / "claims_v6.1_nvidia.example.toml", CATALOG_LEDGERS / "claims.toml"):
            load_claims(con, claims)
        for decisions in (ROOT / "examples" / "decisions.example.toml", CATALOG_LEDGERS / "decisions.toml"):
            load_decisions(con, decisions)
        for runs in (ROOT / "examples" / "own_measurements.example.csv",
                     ROOT / "tests" / "fixtures" / "measurements" / "own_runs.csv"):
            load_measurements(con, runs, "csv")
        materialize(con)
    con = db.connect(str(path), read_only=True)
    yield con
    con.close()


def warehouse_for(name, request):
    """The shared warehouse, or for a mart that needs more than the rounds, the catalog warehouse."""
    return request.getfixturevalue("catalog_con" if ENTRIES[name].needs else "shared_con")


def marts_by_warehouse() -> list:
    """Every mart; those that need more than the shared rounds (catalog_con builds a warehouse with
    trees and ledgers, ~10 s) run in `make test-slow`."""
    return [pytest.param(name, marks=pytest.mark.slow) if ENTRIES[name].needs else name for name in sorted(ENTRIES)]


@pytest.mark.parametrize("name", marts_by_warehouse())
def test_each_example_query_runs_and_returns_rows(name, request):
    con = warehouse_for(name, request)
    for example in ENTRIES[name].examples:
        rows = con.execute(example.sql).fetchall()
        assert rows, f"{name}: example {example.title!r} returns no row"


@pytest.mark.parametrize("name", marts_by_warehouse())
def test_each_declared_key_is_unique(name, request):
    key = ", ".join(ENTRIES[name].key)
    if not key:
        pytest.skip(f"{name} has no key: {ENTRIES[name].no_key}")
    cons = [request.getfixturevalue("shared_con")] + ([warehouse_for(name, request)] if ENTRIES[name].needs else [])
    for con in cons:
        [(rows,)] = con.execute(f"SELECT count(*) FROM {name}").fetchall()
        duplicated = con.execute(f"SELECT {key}, count(*) FROM {name} GROUP BY ALL HAVING count(*) > 1 LIMIT 3").fetchall()
        assert duplicated == [], f"{name}: ({key}) is not unique: {duplicated}"
        assert rows or ENTRIES[name].needs, f"{name} has no rows on the shared rounds: say what it `needs`"
