"""80 columns as a contract: every `mlperf-wh sql` query the README and the guides run prints, at 80
columns, as a table (not a block of `column | value` lines per row) no wider than the terminal, and so
do `drift` and `views`. The queries are read from the documents as the docs runner reads them
(tests/readme_commands.py), and run on a warehouse holding what the documents load: the shared
rounds with their submission trees, the old rounds rebuilt from theirs, the example claims, decisions,
prices and replays (and tests/fixtures/catalog's claim and decision due, so decisions_due has a row)."""
from __future__ import annotations

import shlex

import pytest

from tests.cli_tables import lines_per_row
from tests.conftest import OLD_ROUNDS, ROOT
from tests.readme_commands import all_blocks

WIDTH = 80
NOT_A_TABLE = {"--format", "--wide"}  # csv, json or markdown; every cell whole, as wide as they make it
# What this warehouse holds no row of (the guides run them after a load that gives them one): each
# still fits, as its one line naming the columns.
EMPTY_HERE = {
    "SELECT round, result_id, benchmark, scenario, result, stale_reason FROM verified_results WHERE stale",
    "SELECT loaded_at, round, result_id, change, published_before, published_after, reason FROM published_changes "
    "WHERE change IN ('quarantined', 'restored')",
    "SELECT attempted_at, run_kind, target, delivered, attempts, reason FROM deliveries ORDER BY attempted_at DESC "
    "LIMIT 5",
    "SELECT round, term, sum(rows) AS rows FROM drift WHERE kind = 'accelerator' GROUP BY round, term "
    "ORDER BY round, rows DESC",
    "SELECT round, count(*) AS power_runs_quarantined FROM quarantine WHERE source_id LIKE 'rebuilt/%/power' "
    "GROUP BY round",
}


def documented_queries() -> list[tuple[str, str]]:
    """(where, query) for every `mlperf-wh sql QUERY` a shell block of the documents runs that prints a
    table: not one written to --format csv or json, not one the sandbox refuses."""
    found = []
    for block in all_blocks():
        if block.skipped_because:
            continue
        for number, line in enumerate(block.script.replace("\\\n", " ").splitlines()):
            words = shlex.split(line, comments=True)
            if "sql" not in words or not any(w.endswith("mlperf-wh") for w in words[:words.index("sql")]):
                continue
            query = words[words.index("sql") + 1]
            if NOT_A_TABLE & set(words) or "||" in words or not query.upper().startswith(("SELECT", "DESCRIBE")):
                continue
            found.append((f"{block.document}:{block.line + number}", query))
    return found


QUERIES = documented_queries()


@pytest.fixture(scope="module")
def docs_warehouse(trees_warehouse, tmp_path_factory) -> str:
    import shutil

    from tests.trees_layout import TREES
    from warehouse.identity.rounds import load_registry
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.ledger.measurements import load_measurements
    from warehouse.ledger.prices import load_prices
    from warehouse.store import db
    from warehouse.trees.run import rebuild_rounds
    from warehouse.views import materialize
    path = str(tmp_path_factory.mktemp("docs") / "warehouse.duckdb")
    shutil.copyfile(trees_warehouse, path)
    registry = load_registry()
    assert [r.missing for r in rebuild_rounds([registry[name] for name in OLD_ROUNDS], str(TREES), path)] == \
        [None] * len(OLD_ROUNDS)
    examples, catalog = ROOT / "examples", ROOT / "tests" / "fixtures" / "catalog"
    with db.connect(path) as con:
        for claims in ("claims_v6.0_graded.example.toml", "claims_v6.1_nvidia.example.toml"):
            load_claims(con, examples / claims)
        load_claims(con, catalog / "claims.toml")
        for decisions in (examples / "decisions.example.toml", catalog / "decisions.toml"):
            load_decisions(con, decisions)
        load_prices(con, examples / "prices.example.csv")
        load_measurements(con, examples / "own_measurements.example.csv", "csv")
        materialize(con)
    return path


@pytest.fixture
def at_80_columns(plain_cli, docs_warehouse, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))

    def run(*args: str) -> str:
        code, out, err = plain_cli("--db", docs_warehouse, "--writer-file", *args)
        assert code == 0, err
        return out
    return run


@pytest.mark.unit
def test_the_documents_run_queries_of_every_kind():
    # the reading above finds them all: the README's questions, the guides' cookbook, DESCRIBE
    documents = {where.split(":")[0] for where, _ in QUERIES}
    assert documents == {"README.md", "docs/ingest-reference.md", "docs/analyst-guide.md",
                         "docs/operations-guide.md", "docs/developer-guide.md"}
    assert len(QUERIES) >= 25 and any(q.startswith("DESCRIBE") for _, q in QUERIES)
    assert EMPTY_HERE <= {q for _, q in QUERIES}


@pytest.mark.slow  # the warehouse: the shared trees, five old rounds rebuilt, every example ledger (~30 s)
@pytest.mark.parametrize("where, query", QUERIES, ids=[where for where, _ in QUERIES])
def test_every_documented_query_prints_a_table_within_80_columns(at_80_columns, where, query):
    out = at_80_columns("sql", query)
    assert max(map(len, out.splitlines())) <= WIDTH, out
    if query in EMPTY_HERE:
        assert out.startswith("(no rows; columns: "), out
        return
    header_and_rows = lines_per_row(out)  # refuses blocks of `column | value` lines
    assert len(header_and_rows) > 1, out


@pytest.fixture(scope="module")
def drifted_warehouse(docs_warehouse, tmp_path_factory) -> str:
    """The documents' warehouse (which names no drift: every shared name is known) with v6.0 re-published
    as a later round might: 250 of its rows on accelerators of long names no reference row maps."""
    import shutil

    from tests.test_drift_fuzz import Drifted, fetched, real
    from warehouse.ingest.pipeline import load, prepare
    from warehouse.store import db
    from warehouse.views import materialize
    path = str(tmp_path_factory.mktemp("drifted") / "warehouse.duckdb")
    shutil.copyfile(docs_warehouse, path)
    records = real("final")
    for i, r in enumerate(records[:250]):
        r["Accelerator"] = f"Acme Hyperscale Inference Accelerator {i:03d} Liquid-Cooled Extended Memory Edition"
    drifted = Drifted(records, "final")
    prepared = prepare(drifted.content(), drifted.file_name, "v6.0", "official", "drifted")
    with db.connect(path) as con:
        load(con, fetched(drifted.file_name, drifted.content()), prepared, "v6.0", "official")
        materialize(con)
    return path


@pytest.mark.slow  # the same warehouse
def test_drift_and_views_fit_80_columns(at_80_columns, plain_cli, drifted_warehouse):
    # Issue 63: `drift` printed 100 columns (its 500-odd rows, the names of the old rounds, drawn at
    # their natural width up to 48 characters each, whatever the terminal). The shared rounds now
    # name no drift, so a re-published v6.0 with 250 names of 79 characters no row maps makes it.
    code, drift, err = plain_cli("--db", drifted_warehouse, "--writer-file", "drift")
    assert code == 0, err
    assert len(drift.splitlines()) > 200 and max(map(len, drift.splitlines())) <= WIDTH
    assert lines_per_row(drift)[0] == 1 and "…" in drift  # a row per line, long names cut
    assert "no drift" in at_80_columns("drift")
    views = at_80_columns("views")
    assert max(map(len, views.splitlines())) <= WIDTH and len(lines_per_row(views)) > 20
