"""End to end: `mlperf-wh` in this process (real Prefect flows) against a real HTTP server of the mirror."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.cli_tables import table_rows
from tests.conftest import MIRROR, SHARED_ROUNDS, UNOFFICIAL, load_shared_rounds, mirror_location, serve
from tests.readers import connect_file

TABLES = ("results", "quarantine", "sources")


def path_of(round_name: str) -> str:
    return f"/inference_results_{round_name}/main/summary_results.json"


def mirror_records(round_name: str) -> list[dict]:
    return json.loads((MIRROR / path_of(round_name).lstrip("/")).read_bytes())


def snapshot(db: str, rounds=None, drop_source_columns=()) -> dict[str, list[tuple]]:
    """Every row of every table (optionally of some rounds only), in a stable order."""
    con = connect_file(db, read_only=True)
    try:
        where = f"WHERE round IN ({', '.join(repr(r) for r in rounds)})" if rounds else ""
        shot = {}
        for table in TABLES:
            dropped = drop_source_columns if table == "sources" else ()
            exclude = f" EXCLUDE ({', '.join(dropped)})" if dropped else ""
            shot[table] = con.execute(f"SELECT *{exclude} FROM {table} {where} ORDER BY ALL").fetchall()
        return shot
    finally:
        con.close()


def query(db: str, sql: str, params=None) -> list[tuple]:
    con = connect_file(db, read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def results_of(db: str, round_name: str, but: str | None = None) -> list[tuple]:
    columns = f"* EXCLUDE ({but})" if but else "*"
    return query(db, f"SELECT {columns} FROM results WHERE round = ? ORDER BY ALL", [round_name])


def summary(out: str) -> dict[str, dict[str, str]]:
    """The printed summary table -> {round: {column: cell}}."""
    return {row["round"]: row for row in table_rows(out)}


def statuses(out: str) -> dict[str, str]:
    return {name: row["status"] for name, row in summary(out).items()}


def backfill(cli, server, db, *rounds, force=False):
    args = ["backfill", "--source", server.url, "--db", db]
    if rounds:
        args += ["--rounds", ",".join(rounds)]
    if force:
        args.append("--force")
    return cli(*args)


# --- acceptance -----------------------------------------------------------------------------------

@pytest.mark.slow
def test_backfill_loads_every_published_round_and_reports_the_missing_ones(cli, mirror_server, db_file,
                                                                          shared_warehouse):
    code, out, err = backfill(cli, mirror_server, db_file)
    assert code == 0, (out, err)
    assert statuses(out) == {"v4.1": "loaded", "v5.0": "not_published", "v5.1": "loaded",
                             "v6.0": "loaded", "v6.1": "loaded"}
    sources = query(db_file, "SELECT round, rows_read, rows_loaded, rows_quarantined, origin, url "
                             "FROM sources ORDER BY round")
    assert [(r, read) for r, read, *_ in sources] == list(SHARED_ROUNDS.items())
    for name, read, loaded, quarantined, origin, url in sources:
        assert loaded + quarantined == read
        assert origin == "official"
        assert url == mirror_location(name, mirror_server.url)[1]
    # The flows load exactly what the plain pipeline functions load.
    for name in SHARED_ROUNDS:
        assert results_of(db_file, name) == results_of(shared_warehouse, name)


# Every flow run costs ~1 s of Prefect overhead: the rerun tests take a subset of the rounds, with
# power rows (v4.1), a published total-accelerator count (v6.0) and a round the mirror lacks (v5.0).
RERUN = ("v4.1", "v5.0", "v6.0")


@pytest.mark.slow
def test_second_backfill_is_unchanged_and_changes_nothing(cli, mirror_server, db_file):
    assert backfill(cli, mirror_server, db_file, *RERUN)[0] == 0
    before = snapshot(db_file)
    assert len(before["sources"]) == 2
    code, out, _ = backfill(cli, mirror_server, db_file, *RERUN)
    assert code == 0
    assert statuses(out) == {"v4.1": "unchanged", "v5.0": "not_published", "v6.0": "unchanged"}
    assert snapshot(db_file) == before


@pytest.mark.slow
def test_forced_backfill_reloads_identical_rows(cli, mirror_server, db_file):
    assert backfill(cli, mirror_server, db_file, *RERUN)[0] == 0
    before = snapshot(db_file, drop_source_columns=("fetched_at", "loaded_at"))
    loaded_before = query(db_file, "SELECT source_id, loaded_at FROM sources ORDER BY source_id")
    code, out, err = backfill(cli, mirror_server, db_file, *RERUN, force=True)
    assert code == 0, (out, err)
    assert statuses(out) == {"v4.1": "loaded", "v5.0": "not_published", "v6.0": "loaded"}
    assert snapshot(db_file, drop_source_columns=("fetched_at", "loaded_at")) == before
    loaded_after = query(db_file, "SELECT source_id, loaded_at FROM sources ORDER BY source_id")
    assert all(after > earlier for (_, earlier), (_, after) in zip(loaded_before, loaded_after))


# --- faults: the warehouse keeps the earlier good data and gains only the new good rows ------------

@pytest.mark.slow
def test_http_500_then_200_is_retried_and_loaded(cli, db_file, shared_warehouse):
    load_shared_rounds(db_file, ("v4.1",))
    earlier = snapshot(db_file, ["v4.1"])
    with serve(MIRROR, {path_of("v6.0"): [500]}) as server:
        code, out, err = backfill(cli, server, db_file, "v4.1", "v6.0")
        seen = server.handler.requests_seen
    assert code == 0, (out, err)
    assert statuses(out) == {"v4.1": "unchanged", "v6.0": "loaded"}
    assert seen.count(path_of("v6.0")) == 2
    assert snapshot(db_file, ["v4.1"]) == earlier
    assert results_of(db_file, "v6.0") == results_of(shared_warehouse, "v6.0")


@pytest.mark.slow
def test_connection_dropped_mid_body_is_retried_and_loaded(cli, db_file, shared_warehouse):
    whole = (MIRROR / path_of("v6.0").lstrip("/")).read_bytes()
    dropped = f"HTTP/1.0 200 OK\r\nContent-Length: {len(whole)}\r\n\r\n".encode() + whole[:1000]
    with serve(MIRROR, {path_of("v6.0"): [("raw", dropped)]}) as server:
        code, out, err = backfill(cli, server, db_file, "v6.0")
        seen = server.handler.requests_seen
    assert code == 0, (out, err)
    assert statuses(out) == {"v6.0": "loaded"}
    assert seen.count(path_of("v6.0")) == 2
    assert results_of(db_file, "v6.0") == results_of(shared_warehouse, "v6.0")


@pytest.mark.slow
def test_persistent_500_fails_that_round_only_and_keeps_its_earlier_load(cli, db_file, shared_warehouse):
    load_shared_rounds(db_file, ("v5.1",))
    earlier = snapshot(db_file, ["v5.1"])
    with serve(MIRROR, {path_of("v5.1"): [500] * 10}) as server:
        code, out, _ = backfill(cli, server, db_file, "v5.1", "v6.0")
        seen = server.handler.requests_seen
    assert code == 1
    assert statuses(out) == {"v5.1": "failed", "v6.0": "loaded"}
    assert "HTTP 500" in summary(out)["v5.1"]["note"]
    assert seen.count(path_of("v5.1")) == 1 + int(os.environ.get("MLPERF_FETCH_RETRIES", 3))
    assert snapshot(db_file, ["v5.1"]) == earlier
    assert results_of(db_file, "v6.0") == results_of(shared_warehouse, "v6.0")


@pytest.mark.slow
def test_read_timeout_on_every_attempt_fails_that_round_only(cli, db_file, shared_warehouse, monkeypatch):
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "1")
    monkeypatch.setenv("MLPERF_FETCH_READ_TIMEOUT", "0.5")
    load_shared_rounds(db_file, ("v6.0",))
    earlier = snapshot(db_file, ["v6.0"])
    with serve(MIRROR, {path_of("v6.0"): [("sleep", 3), ("sleep", 3)]}) as server:
        code, out, _ = backfill(cli, server, db_file, "v4.1", "v6.0")
        seen = server.handler.requests_seen
    assert code == 1
    assert statuses(out) == {"v4.1": "loaded", "v6.0": "failed"}
    assert "timed out" in summary(out)["v6.0"]["note"]
    assert seen.count(path_of("v6.0")) == 2
    assert snapshot(db_file, ["v6.0"]) == earlier
    assert results_of(db_file, "v4.1") == results_of(shared_warehouse, "v4.1")


def v60_bytes() -> bytes:
    return (MIRROR / path_of("v6.0").lstrip("/")).read_bytes()


# Built when the test runs, not at collection (the shared data is read by integration tests only).
MALFORMED = {
    "truncated-json": (lambda: v60_bytes()[: len(v60_bytes()) // 2], "invalid JSON"),
    "invalid-utf8": (lambda: v60_bytes()[:100] + b"\xff\xfe" + v60_bytes()[100:], "not valid UTF-8"),
    "missing-column": (lambda: json.dumps([{k: v for k, v in r.items() if k != "Performance_Result"}
                                           for r in mirror_records("v6.0")]).encode(),
                       "required column(s) missing: Performance_Result"),
}


@pytest.mark.parametrize("malformed", list(MALFORMED))
@pytest.mark.slow
def test_malformed_body_rejects_the_round_and_keeps_its_earlier_load(cli, db_file, malformed):
    make_body, problem = MALFORMED[malformed]
    body = make_body()
    load_shared_rounds(db_file, ("v6.0",))
    earlier = snapshot(db_file)
    with serve(MIRROR, {path_of("v6.0"): [("body", body)]}) as server:
        code, out, err = backfill(cli, server, db_file, "v6.0")
        url = server.url + path_of("v6.0")
    assert code == 1
    assert statuses(out) == {"v6.0": "failed"}
    note = summary(out)["v6.0"]["note"]
    assert note.startswith(url + ": ")
    assert problem in note
    assert "Traceback" not in out + err
    assert snapshot(db_file) == earlier


@pytest.mark.slow
def test_unknown_extra_column_is_loaded_and_listed_in_sources(cli, db_file, shared_warehouse):
    load_shared_rounds(db_file, ("v6.0",))
    body = json.dumps([{**r, "Frobnication": "x"} for r in mirror_records("v6.0")]).encode()
    with serve(MIRROR, {path_of("v6.0"): [("body", body)]}) as server:
        code, out, err = backfill(cli, server, db_file, "v6.0")
    assert code == 0, (out, err)
    assert statuses(out) == {"v6.0": "loaded"}
    assert "Frobnication" in summary(out)["v6.0"]["note"]
    assert query(db_file, "SELECT unknown_columns, rows_read, rows_loaded FROM sources") == [
        (["Frobnication"], 520, 520)]
    assert results_of(db_file, "v6.0", but="extra") == results_of(shared_warehouse, "v6.0", but="extra")
    # ...and the unknown field is kept with each row, as published
    assert query(db_file, "SELECT DISTINCT extra->>'Frobnication' FROM results") == [("x",)]


@pytest.mark.slow
def test_body_over_the_size_cap_is_rejected_without_retries(cli, db_file, monkeypatch):
    monkeypatch.setenv("MLPERF_FETCH_MAX_BYTES", "100000")
    load_shared_rounds(db_file, ("v6.0",))
    earlier = snapshot(db_file)
    with serve(MIRROR) as server:
        code, out, _ = backfill(cli, server, db_file, "v6.0")
        seen = server.handler.requests_seen
    assert code == 1
    assert statuses(out) == {"v6.0": "failed"}
    assert "size cap of 100000 bytes" in summary(out)["v6.0"]["note"]
    assert seen == [path_of("v6.0")]
    assert snapshot(db_file) == earlier


# --- the other commands ---------------------------------------------------------------------------

@pytest.mark.slow
def test_sql_refuses_to_write(cli, db_file):
    load_shared_rounds(db_file, ("v6.0",))
    before = snapshot(db_file)
    code, out, err = cli("sql", "DELETE FROM results", "--db", db_file)
    assert code != 0
    assert "read-only" in err
    assert snapshot(db_file) == before


def test_sql_prints_json(cli, shared_warehouse):
    expected = query(shared_warehouse, "SELECT count(*) FROM results")[0][0]
    code, out, err = cli("sql", "SELECT count(*) AS n FROM results", "--format", "json",
                         "--db", shared_warehouse)
    assert code == 0, err
    assert json.loads(out) == [{"n": expected}]


def test_invalid_round_name_is_a_usage_error(cli, db_file):
    code, out, err = cli("backfill", "--rounds", "../v6.0", "--db", db_file, "--source", str(MIRROR))
    assert code == 2
    assert "invalid round name '../v6.0'" in err
    assert not Path(db_file).exists()


@pytest.mark.slow
def test_ingest_unofficial_csv_loads_every_row_unverified(cli, db_file):
    csv = UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv"
    code, out, err = cli("ingest", "v5.0", "--file", csv, "--origin", "unofficial", "--db", db_file)
    assert code == 0, (out, err)
    assert statuses(out) == {"v5.0": "loaded"}
    assert query(db_file, "SELECT source_id, origin, format, rows_read, rows_loaded, rows_quarantined "
                          "FROM sources") == [
        ("unofficial/v5.0/gateoverflow_submissions_v5.0.summary.csv", "unofficial", "checker_csv",
         1285, 1285, 0)]
    assert query(db_file, "SELECT round, verification, count(*) FROM results GROUP BY ALL") == [
        ("v5.0", "unverified", 1285)]


@pytest.mark.slow
def test_unreachable_source_exits_nonzero_with_a_hint_and_no_traceback(tmp_path):
    """The installed command in a fresh process, as a user runs it (~12 s: Prefect starts up)."""
    command = Path(sys.executable).parent / "mlperf-wh"
    # A Prefect home of its own (nothing written to ~/.prefect). Prefect's telemetry is off: offline
    # it can only fail, and on a brand-new Prefect database its heartbeat sometimes logs a
    # "database is locked" traceback of Prefect's own, which is not what this test is about.
    env = {**os.environ, "MLPERF_SOURCE": "http://no-such-host.invalid",
           "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    done = subprocess.run([str(command), "backfill", "--rounds", "v6.0", "--db", str(tmp_path / "w.duckdb")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "MLPERF_SOURCE" in done.stderr
    assert "Traceback" not in done.stdout
    assert "Traceback" not in done.stderr
    # Prefect's per-task INFO lines are for -v; the screen gets the report and the one-line error
    assert "| INFO    |" not in done.stderr and "| ERROR   |" not in done.stderr, done.stderr
