"""published_changes: what each load added, changed (old -> new, per field) and withdrew, on the real
v5.1 table and a re-published copy of it with one value corrected, one note added and one row gone."""
from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import MIRROR
from tests.readers import connect_file

V51 = MIRROR / "inference_results_v5.1" / "main" / "summary_results.json"


def test_a_first_load_lists_every_row_it_added(shared_con):
    # v5.1's table: 1448 records, each a performance row; 24 of them carry a Power_Result too
    # (a power row of its own): 1448 + 24 = 1472 rows added, one 'value' field each.
    rows = shared_con.execute(
        "SELECT change, field, metric, count(*), bool_and(first_load), count(published_before) "
        "FROM published_changes WHERE round = 'v5.1' GROUP BY ALL ORDER BY metric").fetchall()
    assert rows == [("added", "value", "performance", 1448, True, 0), ("added", "value", "power", 24, True, 0)]


def load(db_file: str, path, allow=frozenset()):
    from warehouse.ingest.history import Run, ingest_location_with_history
    from warehouse.store import db
    with db.connect(db_file) as con:
        return ingest_location_with_history(con, "v5.1", "official", path.name, str(path), Run("backfill"), allow)


@pytest.fixture(scope="module")
def republished(tmp_path_factory):
    """v5.1 loaded, then re-published: record 0 (5.1-0001 llama2-70b-99 Interactive, 8840.42 Tokens/s)
    corrected to 8840.42 x 2 = 17680.84, record 5 (5.1-0001 llama2-70b-99.9 Server) given a note,
    record 2 (5.1-0001 llama2-70b-99 Server, 24593.8) withdrawn."""
    from warehouse.store import db
    from warehouse.views import materialize
    folder = tmp_path_factory.mktemp("republished")
    table, db_file = folder / "summary_results.json", str(folder / "warehouse.duckdb")
    shutil.copyfile(V51, table)
    load(db_file, table)
    records = json.loads(table.read_bytes())
    records[0]["Performance_Result"] = 8840.42 * 2
    records[5]["Notes"] = "result re-run after an audit"
    del records[2]
    table.write_text(json.dumps(records))
    outcome = load(db_file, table)  # 1447 records of the 1448 published: a withdrawal (test_withdrawals.py)
    with db.connect(db_file) as con:
        materialize(con)
    return db_file, outcome


def test_a_republished_table_gives_each_changed_field_old_and_new(republished):
    db_file, outcome = republished
    with connect_file(db_file, read_only=True) as con:
        rows = con.execute(
            "SELECT result_id, model, scenario, change, field, published_before, published_after, run_kind "
            "FROM published_changes WHERE NOT first_load ORDER BY change, field, model").fetchall()
        [(loads,)] = con.execute("SELECT count(DISTINCT loaded_at) FROM published_changes").fetchall()
        [(event_time,)] = con.execute("SELECT loaded_at FROM load_events WHERE status = 'reloaded'").fetchall()
        [(change_time,)] = con.execute("SELECT DISTINCT loaded_at FROM published_changes WHERE NOT first_load").fetchall()
    assert rows == [
        ("5.1-0001", "llama2-70b-99.9", "Server", "changed", "notes", None, "result re-run after an audit", "backfill"),
        ("5.1-0001", "llama2-70b-99", "Interactive", "changed", "value", "8840.42", "17680.84", "backfill"),
        ("5.1-0001", "llama2-70b-99", "Server", "withdrawn", "value", "24593.8", None, "backfill"),
    ]
    assert loads == 2 and change_time == event_time  # each change names the load event that saw it
    # the load event counts results as the ledger and the run's message do (one definition): a result
    # counts once whichever of its published fields changed: 2 changed (a value, a note), 1 withdrawn
    assert outcome.change_summary == (
        "reloaded: 0 new, 2 changed, 1 withdrawn results (withdrawn by MLCommons: the table is whole, 1447 of "
        "the 1448 records v5.1 was published with, and holds no result the loaded one lacked)")


def test_a_refused_load_writes_no_change(republished, tmp_path):
    """The change rows are written in the load's transaction: a load a guard refuses leaves none."""
    from warehouse.ingest.guards import GuardRefused
    db_file, _ = republished
    copy = tmp_path / "warehouse.duckdb"
    shutil.copyfile(db_file, copy)
    table = tmp_path / "summary_results.json"
    table.write_text(json.dumps(json.loads(V51.read_bytes())[:100]))  # 100 of 1448 records: refused
    with connect_file(str(copy), read_only=True) as con:
        [(before,)] = con.execute("SELECT count(*) FROM result_changes").fetchall()
    with pytest.raises(GuardRefused):
        load(str(copy), table)
    with connect_file(str(copy), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM result_changes").fetchall() == [(before,)]
