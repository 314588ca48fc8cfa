"""Issue 61 item 3: every scheduled path fails like `backfill`. `watch`, `backfill` and the flows the
deployments serve share one failure path (warehouse.notify.failure): one `error:` line, the exit code
of warehouse/errors.py, the failure notification a real webhook on 127.0.0.1 receives, and nothing
of the warehouse lost.

A remembered source whose v6.0 table became one of the broken tables the ingest tests use (an empty
array, a JSON file cut after its first byte or at its half, a checker CSV one record short of the
round, cut at a line break) made `watch` exit 70 ("connection has an unfinished result", in the run
report's drift query: a single-row read left its result open) with no notification; and a failure
before or outside the rounds (the warehouse held by another writer) was notified by no path."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MIRROR, SHARED_ROUNDS, UNOFFICIAL
from tests.faults import DIGEST_TABLES, copy_of, digest, one_error_line, query
from tests.faults import remembered  # noqa: F401 - a fixture
from tests.webhook_receiver import receiving

V60 = Path("inference_results_v6.0") / "main"
V50_CSV = UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv"


def _v60_json() -> bytes:
    return (MIRROR / V60 / "summary_results.json").read_bytes()


def _csv_one_record_short() -> bytes:
    """The checker CSV's header and 519 records (v6.0 was published with 520), cut at a line break,
    its round markers made v6.0's: whole by every mark a CSV carries (tests/test_faults_loads.py)."""
    lines = V50_CSV.read_bytes().splitlines(keepends=True)[:SHARED_ROUNDS["v6.0"]]
    return b"".join(lines).replace(b",v5.0,", b",v6.0,")


# name -> (the file the source now holds for v6.0, its bytes, what the error line says)
BROKEN = {
    "empty-array": ("summary_results.json", lambda: b"[]", "holds no result records"),
    "one-brace": ("summary_results.json", lambda: b"{", "invalid JSON"),
    "cut-at-half": ("summary_results.json", lambda: _v60_json()[: len(_v60_json()) // 2], "invalid JSON"),
    "csv-one-record-short": ("summary.csv", _csv_one_record_short,
                             "519 records, but v6.0 was published with 520"),
}


@pytest.fixture
def notified(monkeypatch):
    """The webhook every run of the test notifies (MLPERF_NOTIFY), and what it received."""
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        monkeypatch.setenv("MLPERF_NOTIFY_RETRIES", "0")
        yield receiver


def break_v60(mirror: Path, broken: str) -> None:
    file_name, content, _ = BROKEN[broken]
    (mirror / V60 / "summary_results.json").unlink()
    (mirror / V60 / file_name).write_bytes(content())


@pytest.mark.parametrize("broken", list(BROKEN))
def test_watch_on_a_broken_table_says_one_line_notifies_and_loses_nothing(plain_cli, remembered, notified, broken):
    path, mirror = remembered
    break_v60(mirror, broken)
    before = digest(path, tables=DIGEST_TABLES)
    code, out, err = plain_cli("--db", path, "watch")
    line = one_error_line(err)
    assert code == 1, err
    assert line.startswith("error: v6.0 ") and BROKEN[broken][2] in line
    [message] = notified.messages
    assert message["type"] == "failure" and message["title"] == "MLPerf watch failed: v6.0"
    assert message["message"].splitlines()[0] == line
    assert digest(path, tables=DIGEST_TABLES) == before
    assert query(path, "SELECT status FROM load_events ORDER BY loaded_at DESC LIMIT 1") == [("failed",)]


@pytest.mark.slow
def test_backfill_on_the_same_table_fails_the_same_way(plain_cli, remembered, notified):
    path, mirror = remembered
    break_v60(mirror, "empty-array")
    before = digest(path, tables=DIGEST_TABLES)
    code, _, err = plain_cli("--db", path, "backfill", "--rounds", "v6.0")
    assert code == 1
    [message] = notified.messages
    assert message["message"].splitlines()[0] == one_error_line(err)
    assert digest(path, tables=DIGEST_TABLES) == before


@pytest.mark.parametrize("command", [["watch"], ["backfill", "--rounds", "v6.0", "--force"]])
def test_a_warehouse_held_by_another_writer_is_one_line_and_a_notification(plain_cli, remembered, notified,
                                                                          monkeypatch, command):
    from warehouse.store.lock import writer
    path, mirror = remembered
    (mirror / V60 / "summary_results.json").write_text(json.dumps(json.loads(_v60_json())[::-1]))  # something new
    monkeypatch.setenv("MLPERF_WRITER_WAIT", "0.3")
    before = digest(path, tables=DIGEST_TABLES)
    with writer(path, "another writer of the test"):
        code, _, err = plain_cli("--db", path, *command)
    line = one_error_line(err)
    assert code == 1 and "is being written by" in line and "another writer of the test" in line
    [message] = notified.messages
    assert message["type"] == "failure" and message["message"].splitlines()[0] == line
    assert digest(path, tables=DIGEST_TABLES) == before


def test_the_deployments_flow_tells_its_failure_too(remembered, notified, monkeypatch):
    """The watch-rounds flow a deployment runs (here plainly, as `serve` would run its function),
    failing outside its rounds: told to every target, then raised (a Failed flow run)."""
    from flows.local_runs import run_here
    from flows.watch import watch_rounds
    from warehouse.store.lock import WarehouseBusy, writer
    path, mirror = remembered
    monkeypatch.setenv("MLPERF_WRITER_WAIT", "0.3")
    with writer(path, "another writer of the test"), pytest.raises(WarehouseBusy) as failed:
        run_here(watch_rounds, str(mirror), path)
    [message] = notified.messages
    assert message["title"] == "MLPerf watch failed"
    assert message["message"].splitlines()[0] == f"error: {failed.value}"


def test_a_single_row_read_leaves_no_result_open_for_the_report(shared_warehouse, tmp_path):
    """The root cause: views_behind_data read its one row with fetchone, which leaves DuckDB's result
    unfinished, and the report's next query on the connection was refused."""
    from warehouse.store import db
    from warehouse.views.materialize import views_behind_data
    with db.connect(copy_of(shared_warehouse, tmp_path)) as con:
        [(rows,)] = con.execute("SELECT count(*) FROM results").fetchall()
        assert views_behind_data(con) is False
        assert db.query_frame(con, "SELECT count(*) AS n FROM results")["n"].to_list() == [rows] and rows > 2000


@pytest.mark.unit
def test_no_single_row_read_leaves_a_result_open():
    """fetchone leaves DuckDB's result unfinished, and the connection's next relational query is
    refused: the package reads one row with db.first_row or db.scalar."""
    from tests.conftest import ROOT
    sources = [path for folder in ("warehouse", "flows") for path in (ROOT / folder).rglob("*.py")]
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sources
             for number, line in enumerate(path.read_text().splitlines(), 1) if ".fetchone()" in line]
    assert found == []
