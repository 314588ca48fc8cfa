"""A row quarantined in a re-publication is not a withdrawn one (issue 54, item 4): the real v6.0 table,
served over HTTP on 127.0.0.1, loaded, then re-published with one row's Performance_Result made
non-numeric. The row keeps its last good value in `results`, marked stale with the quarantine's
reason; the ledger records it `quarantined`, not `withdrawn`; the marts show it, flagged, outside
every procurement-grade answer; the next good publication clears the mark; loading the same file
again changes nothing."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import MIRROR, serve
from tests.readers import connect_file

V60 = Path("inference_results_v6.0") / "main" / "summary_results.json"
BROKEN = 16  # 6.0-0004 llama2-70b-99 Interactive, 6238.12 Tokens/s on 8 NVIDIA RTX PRO 6000: verified, clean
REASON = "value: missing or not a number (got 'n/a')"
KEY = "result_id = '6.0-0004' AND model = 'llama2-70b-99' AND scenario = 'Interactive'"
BENCHMARK_KEY = KEY.replace("model", "benchmark")


def publish(upstream: Path, records: list[dict]) -> None:
    target = upstream / V60
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(records))


def load(db_file: str, server, views: bool = True) -> object:
    from warehouse.ingest.history import Run, ingest_location_with_history
    from warehouse.store import db
    from warehouse.views import materialize
    with db.connect(db_file) as con:
        outcome = ingest_location_with_history(con, "v6.0", "official", V60.name, f"{server.url}/{V60.as_posix()}",
                                               Run("backfill"))
        if views:
            materialize(con)
    return outcome


def original() -> list[dict]:
    return json.loads((MIRROR / V60).read_bytes())


def with_value(value) -> list[dict]:
    records = original()
    records[BROKEN]["Performance_Result"] = value
    return records


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    folder = tmp_path_factory.mktemp("upstream")
    with serve(folder) as server:
        yield folder, server


@pytest.fixture(scope="module")
def quarantined(upstream, tmp_path_factory):
    """v6.0 loaded as published, then re-published with record 16's value 'n/a' and loaded again."""
    folder, server = upstream
    db_file = str(tmp_path_factory.mktemp("stale") / "warehouse.duckdb")
    publish(folder, original())
    load(db_file, server, views=False)
    publish(folder, with_value("n/a"))
    return db_file, load(db_file, server)


def copy_of(db_file: str, tmp_path: Path) -> str:
    copy = tmp_path / "warehouse.duckdb"
    shutil.copyfile(db_file, copy)
    return str(copy)


def test_a_quarantined_row_keeps_its_last_good_value_marked_stale(quarantined):
    db_file, outcome = quarantined
    assert (outcome.rows_read, outcome.rows_loaded, outcome.rows_quarantined) == (520, 519, 1)
    with connect_file(db_file, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM results WHERE source_id = 'official/v6.0'").fetchall() == [(520,)]
        assert con.execute(f"SELECT value, stale, stale_reason, record_no FROM results WHERE {KEY}").fetchall() == [
            (6238.12, True, REASON, BROKEN)]
        assert con.execute("SELECT count(*) FROM results WHERE stale").fetchall() == [(1,)]
        assert con.execute("SELECT record_no, reasons FROM quarantine").fetchall() == [(BROKEN, [REASON])]


def test_the_ledger_records_it_quarantined_with_its_reason_not_withdrawn(quarantined):
    db_file, outcome = quarantined
    with connect_file(db_file, read_only=True) as con:
        assert con.execute(
            "SELECT result_id, model, scenario, change, field, published_before, published_after, reason "
            "FROM published_changes WHERE NOT first_load").fetchall() == [
            ("6.0-0004", "llama2-70b-99", "Interactive", "quarantined", "value", "6238.12", "n/a", REASON)]
        assert con.execute("SELECT results_new, results_changed, results_removed FROM load_events "
                           "WHERE status = 'reloaded'").fetchall() == [(0, 0, 0)]
    assert outcome.change_summary == "reloaded: 0 new, 0 changed, 0 removed results, 1 quarantined (last good value kept)"


def test_the_run_message_counts_it_quarantined(quarantined):
    from warehouse.notify.message import compose, rows_of_loads
    db_file, _ = quarantined
    with connect_file(db_file, read_only=True) as con:
        [rows] = rows_of_loads(con, ["official/v6.0"])
    assert (rows.added, rows.changed, rows.withdrawn, rows.quarantined) == (0, 0, 0, 1)
    assert rows.line() == "v6.0: 0 added, 0 changed, 0 withdrawn, 1 quarantined result rows"
    assert rows.corrections == [f"6.0-0004 llama2-70b-99 Interactive performance: quarantined, value 6238.12 kept "
                                f"({REASON})"]
    message = compose("backfill", [], [], [], [], [rows], None)
    assert message.title == "MLPerf v6.0 re-published"
    assert f"Rows {rows.line()}:\n- {rows.corrections[0]}\n" in message.body


def test_a_stale_row_is_shown_flagged_and_leaves_every_procurement_grade_answer(quarantined):
    db_file, _ = quarantined
    with connect_file(db_file, read_only=True) as con:
        [row] = con.execute(f"SELECT result, stale, stale_reason, findings, procurement_grade, excluded_because "
                            f"FROM verified_results WHERE {KEY}").fetchall()
        assert row == (6238.12, True, REASON, ["stale_value"], False, "anomaly finding: stale_value")
        assert con.execute(f"SELECT stale, stale_reason, usable FROM result_eligibility WHERE {BENCHMARK_KEY}").fetchall() == [
            (True, REASON, False)]
        assert con.execute("SELECT result_id, rule, detail FROM anomalies WHERE rule = 'stale_value'").fetchall() == [
            ("6.0-0004", "stale_value", f"the last good value, kept: the re-published row was quarantined ({REASON})")]
        board = con.execute(f"SELECT rank_per_accelerator, findings FROM leaderboard WHERE {BENCHMARK_KEY}").fetchall()
        assert board == [(None, ["stale_value"])]  # listed, unranked


def test_loading_the_same_file_again_changes_nothing(quarantined, upstream, tmp_path):
    db_file, _ = quarantined
    copy = copy_of(db_file, tmp_path)
    snapshot = ("SELECT * FROM results ORDER BY ALL", "SELECT * FROM result_changes ORDER BY ALL",
                "SELECT * FROM quarantine ORDER BY ALL")
    with connect_file(copy, read_only=True) as con:
        first = [con.execute(sql).fetchall() for sql in snapshot]
    outcome = load(copy, upstream[1], views=False)
    with connect_file(copy, read_only=True) as con:
        assert [con.execute(sql).fetchall() for sql in snapshot] == first
    assert outcome.change_summary == "reloaded: the same file, the same results"


@pytest.mark.parametrize("value", [6238.12, 6400.5])
def test_a_fixed_republication_clears_the_stale_mark_and_the_ledger_says_so(quarantined, upstream, tmp_path, value):
    db_file, _ = quarantined
    copy = copy_of(db_file, tmp_path)
    folder, server = upstream
    publish(folder, with_value(value))
    try:
        outcome = load(copy, server)
    finally:
        publish(folder, with_value("n/a"))  # as the module's other tests expect it
    with connect_file(copy, read_only=True) as con:
        assert con.execute(f"SELECT value, stale, stale_reason FROM results WHERE {KEY}").fetchall() == [
            (value, False, None)]
        assert con.execute("SELECT count(*), count(*) FILTER (WHERE stale) FROM results").fetchall() == [(520, 0)]
        [latest] = con.execute("SELECT max(loaded_at) FROM result_changes").fetchone()
        assert con.execute(
            "SELECT result_id, change, field, published_before, published_after, reason FROM result_changes "
            "WHERE loaded_at = ?", [latest]).fetchall() == [
            ("6.0-0004", "restored", "value", "6238.12", str(value), None)]
        # procurement grade again, as the row was before its re-publication broke it
        assert con.execute(f"SELECT procurement_grade, findings FROM verified_results WHERE {KEY}").fetchall() == [
            (True, [])]
    # restored, whatever its value: the ledger's one row for it (no field of it changed but its value)
    assert outcome.change_summary == "reloaded: 0 new, 0 changed, 0 removed results, 1 restored"


def frame(rows: list[dict]):
    """Rows as rows_before / a validated table give them: every compared field, null unless given."""
    import polars as pl
    from warehouse.ingest.changes import compared_fields, result_key
    columns = {**{c: pl.String for c in result_key() + compared_fields()}, "value": pl.Float64, "stale": pl.Boolean}
    base = {"entry_id": "e", "used_model": None, "scenario": "Offline", "metric": "performance", "units": "Tokens/s",
            "stale": False}
    return pl.DataFrame([{**base, **r} for r in rows], schema=columns)


def quarantined_keys(models: list[str]):
    import polars as pl
    from warehouse.ingest.validate import empty_quarantined_rows
    base = {"entry_id": "e", "used_model": None, "scenario": "Offline", "metric": "performance", "units": "Tokens/s"}
    return pl.DataFrame([{**base, "model": m, "record_no": n, "value_text": "n/a", "reason": "value: bad"}
                         for n, m in enumerate(models)], schema=empty_quarantined_rows().schema)


@pytest.mark.unit
def test_what_the_ledger_says_of_stale_rows_in_each_case():
    from warehouse.ingest.changes import field_changes
    from warehouse.ingest.history import counted
    before = frame([{"model": "a", "value": 1.0, "stale": True},    # still quarantined: nothing again
                    {"model": "b", "value": 2.0, "stale": True},    # gone from the table: withdrawn
                    {"model": "c", "value": 3.0, "stale": True, "notes": None},   # good again, a note added
                    {"model": "d", "value": 4.0}])                  # newly quarantined
    after = frame([{"model": "c", "value": 3.0, "notes": "re-run"}])
    held = quarantined_keys(["a", "d"])
    rows = field_changes(before, after, held).select("model", "change", "field", "published_before",
                                                     "published_after", "reason").sort("model", "change").rows()
    assert rows == [("b", "withdrawn", "value", "2.0", None, None),
                    ("c", "changed", "notes", None, "re-run", None),
                    ("c", "restored", "value", "3.0", "3.0", None),
                    ("d", "quarantined", "value", "4.0", "n/a", "value: bad")]
    counts = counted(field_changes(before, after, held))  # as the loader counts: c's note is a change
    assert (counts.new, counts.changed, counts.removed, counts.quarantined, counts.restored) == (0, 1, 1, 1, 1)


def test_a_warehouse_written_before_stale_rows_gains_their_columns(quarantined, tmp_path):
    """An earlier version's warehouse (no results.stale, stale_reason, no result_changes.reason) is
    brought to the current shape by the first connection that may write."""
    import duckdb
    from warehouse.store import db
    db_file, _ = quarantined
    copy = copy_of(db_file, tmp_path)
    with duckdb.connect(copy) as con:
        for table, column in (("results", "stale_reason"), ("results", "stale"), ("result_changes", "reason")):
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    with db.connect(copy) as con:
        assert con.execute("SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' AND "
                           "table_name IN ('results', 'result_changes') AND "
                           "column_name IN ('stale', 'stale_reason', 'reason') ORDER BY ALL").fetchall() == [
            ("result_changes", "reason"), ("results", "stale"), ("results", "stale_reason")]
        assert con.execute("SELECT count(*) FILTER (WHERE stale) FROM results").fetchall() == [(0,)]


def test_a_huge_published_value_is_kept_whole_and_shortened_in_the_message(quarantined, upstream, tmp_path):
    """A hostile table's value of a million characters: the ledger and the stale row keep the
    reason whole; the run's message line shows its first 200 characters and how many more."""
    from warehouse.notify.message import rows_of_loads
    db_file, _ = quarantined
    copy = copy_of(db_file, tmp_path)
    folder, server = upstream
    records = with_value("n/a")
    records[BROKEN + 1]["Performance_Result"] = "9" * 1_000_000 + "x"  # 6.0-0004 llama2-70b-99 Offline
    publish(folder, records)
    try:
        load(copy, server, views=False)
    finally:
        publish(folder, with_value("n/a"))
    with connect_file(copy, read_only=True) as con:
        [(kept, reason)] = con.execute("SELECT value, stale_reason FROM results WHERE result_id = '6.0-0004' AND "
                                       "model = 'llama2-70b-99' AND scenario = 'Offline'").fetchall()
        [(ledger,)] = con.execute("SELECT reason FROM result_changes WHERE change = 'quarantined' "
                                  "AND scenario = 'Offline'").fetchall()
        [rows] = rows_of_loads(con, ["official/v6.0"])
    assert kept == 27812.9 and reason == ledger and len(reason) > 1_000_000
    [line] = rows.corrections
    assert line.startswith("6.0-0004 llama2-70b-99 Offline performance: quarantined, value 27812.9 kept (value: ")
    assert line.endswith(f"... ({len(reason) - 200:,} more characters))".replace(",", "")) and len(line) < 400
