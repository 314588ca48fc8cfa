"""Runs without a Prefect API (flows/local_runs.py, flows/steps.py): the same flows, called plainly.

A run started here is a Prefect flow run only when a Prefect API is configured (or
MLPERF_PREFECT_TEMPORARY_SERVER asks for Prefect's temporary server); otherwise no Prefect server is
started and the flow's functions run here, with the retries and the thread pool their tasks and
flows declare. These tests hold a plain run to what a flow run does: the same warehouse, the same
retries, the same one-line failures.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MIRROR, no_prefect_api, serve
from tests.faults import digest, one_error_line, query

V41_PATH = "/inference_results_v4.1/main/summary_results.json"
V60_PATH = "/inference_results_v6.0/main/summary_results.json"
COMMAND = Path(sys.executable).parent / "mlperf-wh"


def test_a_run_is_a_flow_run_only_when_a_prefect_api_is_configured(prefect_harness, monkeypatch):
    from flows.local_runs import orchestrated
    assert orchestrated()  # the session's API
    with no_prefect_api(monkeypatch):
        assert not orchestrated()
        monkeypatch.setenv("MLPERF_PREFECT_TEMPORARY_SERVER", "1")
        assert orchestrated()


@pytest.mark.slow
def test_a_plain_backfill_builds_the_warehouse_a_flow_run_builds(cli, plain_cli, tmp_path):
    with serve(MIRROR) as server:
        flow_db, plain_db = str(tmp_path / "flow.duckdb"), str(tmp_path / "plain.duckdb")
        flow_code, flow_out, _ = cli("backfill", "--source", server.url, "--db", flow_db, "--rounds", "v4.1,v6.0")
        code, out, err = plain_cli("backfill", "--source", server.url, "--db", plain_db, "--rounds", "v4.1,v6.0")
    assert flow_code == 0 and code == 0, err
    assert "backfill: 2 loaded" in out
    # the run report says what each load changed, as a flow run's does (it printed blank columns)
    assert "first load: 520 results" in out
    assert [line for line in out.splitlines() if line.startswith("│ v")] == \
        [line for line in flow_out.splitlines() if line.startswith("│ v")]
    assert err == ""  # the tasks' own lines are for -v, as Prefect's are
    assert digest(plain_db, times=False) == digest(flow_db, times=False)
    # recorded in history, without a flow run behind it
    assert query(plain_db, "SELECT round, status, flow_run_id FROM load_events ORDER BY round") == [
        ("v4.1", "loaded", None), ("v6.0", "loaded", None)]
    assert all(run_id for (run_id,) in query(flow_db, "SELECT flow_run_id FROM load_events"))


@pytest.mark.slow
def test_a_plain_run_retries_a_transient_failure_as_the_task_declares(plain_cli, db_file):
    with serve(MIRROR, {V60_PATH: [503, 503]}) as server:
        code, out, err = plain_cli("backfill", "--source", server.url, "--db", db_file, "--rounds", "v6.0")
        seen = server.handler.requests_seen.count(V60_PATH)
    assert code == 0, err
    assert seen == 3  # two 503s, then the file (MLPERF_FETCH_RETRIES: 3)
    assert query(db_file, "SELECT count(*) FROM results") == [(520,)]


@pytest.mark.slow
def test_a_plain_run_fails_a_broken_round_in_one_line_and_loads_the_others(plain_cli, db_file):
    with serve(MIRROR, {V60_PATH: [("body", b"[{\"ID\": ")]}) as server:
        code, out, err = plain_cli("backfill", "--source", server.url, "--db", db_file, "--rounds", "v4.1,v6.0")
        seen = server.handler.requests_seen.count(V60_PATH)
    assert code == 1
    assert seen == 1  # a malformed file is not retried
    line = one_error_line(err)
    assert "v6.0" in line and "invalid JSON at line 1 column 9" in line, line
    assert query(db_file, "SELECT round, status, flow_run_id FROM load_events ORDER BY round") == [
        ("v4.1", "loaded", None), ("v6.0", "failed", None)]


@pytest.mark.slow
def test_verbose_shows_a_plain_runs_task_lines_after_a_quiet_command(plain_cli, db_file, monkeypatch):
    """A quiet command raises the console's level for itself only: the environment is as it was after
    it, and a -v command in the same process shows its task lines."""
    monkeypatch.delenv("PREFECT_LOGGING_HANDLERS_CONSOLE_FLOW_RUNS_LEVEL", raising=False)
    import logging
    for handler in logging.getLogger("mlperf.run").handlers[:]:  # bound to an earlier test's stderr
        logging.getLogger("mlperf.run").removeHandler(handler)
    ingest = ("ingest", "v6.0", "--file", MIRROR / V60_PATH.lstrip("/"), "--origin", "official", "--db")
    code, _out, quiet = plain_cli(*ingest, db_file + ".quiet")
    assert code == 0, quiet
    assert "| INFO    |" not in quiet
    assert "PREFECT_LOGGING_HANDLERS_CONSOLE_FLOW_RUNS_LEVEL" not in os.environ
    code, _out, err = plain_cli("-v", *ingest, db_file)
    for handler in logging.getLogger("mlperf.run").handlers[:]:
        logging.getLogger("mlperf.run").removeHandler(handler)
    assert code == 0, err
    assert "| INFO    | fetch finished in" in err
    assert "| INFO    | materialize-views finished in" in err


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_installed_command_runs_without_any_prefect_server(tmp_path):
    """A user's first run, whole process: no server is started, Prefect's home stays empty."""
    home = tmp_path / "prefect"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLPERF_PREFECT"))}
    env |= {"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    db_path = tmp_path / "w.duckdb"
    process = subprocess.Popen([str(COMMAND), "backfill", "--source", str(MIRROR), "--db", str(db_path),
                                "--rounds", "v6.0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    children = set()
    while process.poll() is None:
        children |= _children(process.pid)
    out, err = process.communicate()
    assert process.returncode == 0, err
    assert children == set(), "a plain run starts no process"
    assert not home.exists() or list(home.iterdir()) == [], "no Prefect database was written"
    assert query(str(db_path), "SELECT round, status, flow_run_id FROM load_events") == [("v6.0", "loaded", None)]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


@pytest.mark.slow
def test_a_forced_reload_of_the_same_file_says_the_file_is_the_same(plain_cli, db_file):
    # It said "(the file changed, its results did not)" of a file --force loaded again unchanged.
    with serve(MIRROR) as server:
        assert plain_cli("backfill", "--source", server.url, "--db", db_file, "--rounds", "v6.0")[0] == 0
        code, out, err = plain_cli("backfill", "--source", server.url, "--db", db_file, "--rounds", "v6.0", "--force")
    assert code == 0, err
    assert query(db_file, "SELECT status, change_summary FROM load_events ORDER BY loaded_at") == [
        ("loaded", "first load: 520 results"), ("reloaded", "reloaded: the same file, the same results")]
    assert "the same file, the same" in out


@pytest.mark.slow
def test_a_file_ingest_reports_what_it_changed(plain_cli, db_file):
    table = MIRROR / "inference_results_v6.0" / "main" / "summary_results.json"
    code, out, err = plain_cli("ingest", "v6.0", "--file", table, "--db", db_file)
    assert code == 0, err
    [row] = [line for line in out.splitlines() if line.startswith("│ v6.0")]
    assert [cell.strip() for cell in row.strip("│").split("┆")] == ["v6.0", "loaded", "520", "520", "0",
                                                                    "first load: 520 results"]


def test_a_rounds_ingest_from_the_source_is_headed_by_its_command(plain_cli, db_file):
    """`ingest v6.0` runs the backfill flow for one round; its report says `ingest:`, loaded or not."""
    code, out, err = plain_cli("ingest", "v6.0", "--source", MIRROR, "--db", db_file)
    assert code == 0, err
    assert out.splitlines()[0] == "ingest: 1 loaded", out
    code, out, err = plain_cli("ingest", "v6.0", "--source", MIRROR, "--db", db_file)
    assert code == 0, err
    assert out.splitlines()[0].startswith("ingest: nothing new; the warehouse is unchanged"), out
