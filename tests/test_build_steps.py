"""How a build writes (issue 43, the core path's memory): the models in one transaction, then their
comments in transactions of a few hundred, then the record of what the build was made from; a small
warehouse built on one DuckDB thread, each of its snapshots handing what it frees back to the system.
A build stopped before its record is not current, and the next build writes what it missed."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import MIRROR
from warehouse.identity.rounds import load_registry
from warehouse.ingest.history import Run, ingest_location_with_history
from warehouse.store import db
from warehouse.views import column_docs, materialize
from warehouse.views.materialize import views_current

MATERIALIZE = sys.modules["warehouse.views.materialize"]


@pytest.fixture(scope="module")
def loaded_once(tmp_path_factory) -> Path:
    """A new warehouse holding v6.0's 520 rows, no model built yet (loaded once for the module)."""
    path = tmp_path_factory.mktemp("unbuilt") / "new.duckdb"
    file_name, location = load_registry()["v6.0"].locations(str(MIRROR))[0]
    with db.connect(str(path)) as con:
        ingest_location_with_history(con, "v6.0", "official", file_name, location, Run("backfill"))
    return path


@pytest.fixture
def unbuilt(loaded_once, tmp_path) -> str:
    """A copy of it of the test's own."""
    path = tmp_path / "new.duckdb"
    shutil.copyfile(loaded_once, path)
    return str(path)


def logged(con, build) -> list[str]:
    """Every statement `build()` ran on `con`, in order, from DuckDB's query log."""
    con.execute("CALL enable_logging('QueryLog')")
    con.execute("CALL truncate_duckdb_logs()")
    try:
        build()
        return [m.strip() for (m,) in con.execute(
            "SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp").fetchall()]
    finally:
        con.execute("CALL disable_logging()")


def transactions(statements: list[str]) -> list[list[str]]:
    """The statements between each BEGIN TRANSACTION and its COMMIT."""
    found, current = [], None
    for statement in statements:
        if statement == "BEGIN TRANSACTION":
            current = []
        elif statement == "COMMIT":
            found.append(current)
            current = None
        elif current is not None:
            current.append(statement)
    return found


def comments(con) -> dict[tuple[str, str, str], str]:
    """Every comment of the catalog: (schema, relation, column or '') -> comment."""
    tables = con.execute("SELECT schema_name, table_name, '', comment FROM duckdb_tables() "
                         "WHERE comment IS NOT NULL").fetchall()
    views = con.execute("SELECT schema_name, view_name, '', comment FROM duckdb_views() "
                        "WHERE NOT internal AND comment IS NOT NULL").fetchall()
    columns = con.execute("SELECT schema_name, table_name, column_name, comment FROM duckdb_columns() "
                          "WHERE comment IS NOT NULL").fetchall()
    return {(s, t, c): text for s, t, c, text in tables + views + columns}


def test_a_first_build_comments_after_its_models_commit_a_few_hundred_a_transaction(unbuilt):
    with db.connect(unbuilt) as con:
        statements = logged(con, lambda: materialize(con))
        said = comments(con)
    steps = transactions(statements)
    models = [i for i, step in enumerate(steps) if any(s.startswith("CREATE OR REPLACE VIEW") for s in step)]
    commenting = [i for i, step in enumerate(steps) if any("COMMENT ON" in s for s in step)]
    recording = [i for i, step in enumerate(steps) if any("_materialized " in s for s in step)]
    assert len(models) == 1, "every model in one transaction"
    assert not any("COMMENT ON" in s for s in steps[models[0]]), "no comment in the models' transaction"
    # 1,700-odd comments (every model and source column described), 300 at most to a transaction
    comment_counts = [sum(s.count("COMMENT ON") for s in steps[i]) for i in commenting]
    assert sum(comment_counts) > 1000 and len(commenting) >= 4
    assert max(comment_counts) <= column_docs.COMMENTS_PER_TRANSACTION
    assert models[0] < min(commenting) and max(commenting) < recording[0], \
        "models, then their comments, then the record of what the build was made from"
    assert len(said) == sum(comment_counts), "every comment said is in the catalog, each said once"


@pytest.mark.slow
def test_a_build_stopped_before_its_comments_is_not_current_and_the_next_writes_them(unbuilt, shared_con,
                                                                                     monkeypatch):
    """A build interrupted after its models committed: the models are there, without comments; the
    warehouse does not pass for current, and the next build (from the same files) writes every
    comment a complete build wrote (the session's warehouse: comments follow the files, not rows)."""
    expected = comments(shared_con)

    def stopped(con, names=None):
        raise KeyboardInterrupt

    with db.connect(unbuilt) as con:
        monkeypatch.setattr(column_docs, "apply_comments", stopped)
        with pytest.raises(KeyboardInterrupt):
            materialize(con)
        monkeypatch.undo()
        assert con.execute("SELECT count(*) FROM marts.token_economics").fetchall()[0][0] > 0
        assert not any(schema == "marts" for schema, _, _ in comments(con))
        assert not views_current(con)
        materialize(con)
        assert views_current(con)
        assert comments(con) == expected


@pytest.mark.slow
def test_a_small_warehouse_builds_on_one_thread_and_keeps_its_thread_setting(unbuilt, monkeypatch):
    with db.connect(unbuilt) as con:
        con.execute("SET threads = 2")
        statements = logged(con, lambda: materialize(con))
        first_begin = statements.index("BEGIN TRANSACTION")
        assert "SET threads = 1" in statements[:first_begin]
        assert con.execute("SELECT current_setting('threads')").fetchall()[0][0] == 2
        monkeypatch.setattr(MATERIALIZE, "ONE_THREAD_MAX_ROWS", 520)  # 520 rows: no longer small
        statements = logged(con, lambda: materialize(con))
        first_begin = statements.index("BEGIN TRANSACTION")
        assert "SET threads = 1" not in statements[:first_begin]


FLUSH = "SET allocator_bulk_deallocation_flush_threshold"


@pytest.mark.slow
def test_each_snapshot_hands_what_it_frees_back_and_the_setting_is_restored(unbuilt, monkeypatch):
    """A small build's snapshots are each computed with freed memory handed back (set just before,
    restored just after); no other statement of the build is; without snapshots, none."""
    with db.connect(unbuilt) as con:
        before = con.execute("SELECT current_setting('allocator_bulk_deallocation_flush_threshold')").fetchall()[0][0]
        statements = logged(con, lambda: materialize(con))
        snapshots = [i for i, s in enumerate(statements) if s.startswith("CREATE TEMP TABLE")]
        assert len(snapshots) >= 2
        for i in snapshots:
            assert statements[i - 1] == f"{FLUSH} = '1MB'"
            assert statements[i + 1] == f"{FLUSH} = '{before}'"
        assert sum(s.startswith(FLUSH) for s in statements) == 2 * len(snapshots)
        assert con.execute("SELECT current_setting('allocator_bulk_deallocation_flush_threshold')").fetchall()[0][0] == before
        monkeypatch.setattr(MATERIALIZE, "SNAPSHOT_MAX_ROWS", 520)  # 520 rows: no snapshots
        statements = logged(con, lambda: materialize(con))
        assert not any(s.startswith(FLUSH) or s.startswith("CREATE TEMP TABLE") for s in statements)
