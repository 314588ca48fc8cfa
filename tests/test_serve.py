"""Acceptance: a real `prefect server start` on 127.0.0.1 (its own PREFECT_HOME), `mlperf-wh serve`
against it, both deployments read back through the Prefect API, the watcher's upcoming runs named as
they will start, a watch-rounds run triggered and waited for, its round in the warehouse and its
markdown report on the run. And serve stops like a server: SIGINT (Ctrl-C) ends it within 5 s with
one line saying what happened, the Prefect server it started stopped after it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.conftest import MIRROR
from tests.readers import connect_file
from tests.real_prefect import (BIN, STARTUP_SECONDS, api_post, finished_state, free_port, healthy,
                                named_runs, prefect_server, run_logs, start, stop, wait_for)

pytestmark = pytest.mark.slow
CRON = "15 6 * * *"


@pytest.fixture(scope="module")
def module_server(tmp_path_factory):
    home = tmp_path_factory.mktemp("prefect-home")
    with prefect_server(home) as (api, env):
        yield api, env, home


def test_serve_publishes_both_deployments_and_a_triggered_watch_loads_and_reports(module_server, tmp_path):
    api, env, home = module_server
    db = tmp_path / "warehouse.duckdb"
    serving = start([str(BIN / "mlperf-wh"), "serve", "--cron", CRON, "--source", str(MIRROR), "--db", str(db)],
                    env, home / "serve.log")
    try:
        def both_deployments():
            found = {d["name"]: d for d in api_post(api, "/deployments/filter")}
            return found if {"mlperf-watch-rounds", "mlperf-backfill"} <= set(found) else None
        deployments = wait_for("both deployments", both_deployments, STARTUP_SECONDS, [serving])
        watcher = deployments["mlperf-watch-rounds"]
        assert [s["schedule"]["cron"] for s in watcher["schedules"]] == [CRON]
        upcoming = wait_for("the watcher's upcoming runs, named", lambda: named_runs(api, watcher["id"]),
                            STARTUP_SECONDS, [serving])
        assert len(upcoming) >= 3  # Prefect's scheduler makes at least 3 (PREFECT_API_SERVICES_SCHEDULER_MIN_RUNS)
        assert deployments["mlperf-backfill"]["schedules"] == []  # on demand
        flows = {f["id"]: f["name"] for f in api_post(api, "/flows/filter")}
        assert flows[watcher["flow_id"]] == "watch-rounds"

        run = api_post(api, f"/deployments/{watcher['id']}/create_flow_run")

        state = wait_for("the watch-rounds run", lambda: finished_state(api, run["id"]), STARTUP_SECONDS, [serving])
        assert state["type"] == "COMPLETED", run_logs(api, run["id"])

        with connect_file(str(db), read_only=True) as con:
            assert dict(con.execute("SELECT round, rows_read FROM sources").fetchall()) == {
                "v4.1": 937, "v5.1": 1448, "v6.0": 520, "v6.1": 492}
            assert con.execute("SELECT DISTINCT flow_run_id FROM load_events").fetchall() == [(run["id"],)]
        artifacts = api_post(api, "/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": [run["id"]]}}})
        by_type = {a["type"]: a for a in artifacts}
        assert {"markdown", "table"} <= set(by_type)
        assert by_type["markdown"]["data"].startswith("# watch: ")
        assert "| v6.0 | loaded | 520 | 520 | 0 |" in by_type["markdown"]["data"]
    finally:
        stop(serving)


def session_members(session_id: int) -> set[int]:
    """The processes still alive in a session (the CLI, the server it started, their children)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[3]) == session_id:
            found.add(int(entry.name))
    return found


def interrupt_when_serving(serving: subprocess.Popen, log: Path, group: bool) -> tuple[float, str]:
    """SIGINT once serve says it serves (to its whole process group, as a terminal's Ctrl-C does, or
    to serve alone) -> the seconds it took to exit, and what it printed."""
    wait_for("serve to serve", lambda: "; stop with Ctrl-C" in log.read_text(), STARTUP_SECONDS, [serving])
    signalled = time.monotonic()
    if group:
        os.killpg(serving.pid, signal.SIGINT)
    else:
        serving.send_signal(signal.SIGINT)
    serving.wait(timeout=60)
    return time.monotonic() - signalled, log.read_text()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_stops_serve_then_the_prefect_server_it_started_within_5s(tmp_path):
    home, port = tmp_path / "prefect-home", free_port()
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"} | {
        "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    log = tmp_path / "serve.log"
    serving = start([str(BIN / "mlperf-wh"), "serve", "--server-port", str(port), "--source", str(MIRROR),
                     "--db", str(tmp_path / "w.duckdb")], env, log)
    try:
        seconds, said = interrupt_when_serving(serving, log, group=True)
        left = session_members(serving.pid)
    finally:
        stop(serving)
    assert serving.returncode == 0, said
    assert seconds < 5, f"took {seconds:.1f} s to stop"
    assert said.splitlines()[-1] == (
        "stopped by SIGINT; no run was in flight; the deployments it served are paused until it serves "
        "again; the Prefect server it started is stopped"), said
    assert "rolled back" not in said and "error" not in said and "Traceback" not in said
    assert left == set(), f"left running: {left}"
    assert not healthy(f"http://127.0.0.1:{port}/api/health")


def test_sigint_stops_serve_within_5s_and_pauses_its_deployments_on_a_server_it_did_not_start(
        module_server, tmp_path):
    api, env, _ = module_server
    log = tmp_path / "serve.log"
    serving = start([str(BIN / "mlperf-wh"), "serve", "--cron", CRON, "--source", str(MIRROR),
                     "--db", str(tmp_path / "w.duckdb")], env, log)
    try:
        seconds, said = interrupt_when_serving(serving, log, group=False)
    finally:
        stop(serving)
    assert serving.returncode == 0, said
    assert seconds < 5, f"took {seconds:.1f} s to stop"
    assert said.splitlines()[-1] == (
        "stopped by SIGINT; no run was in flight; the deployments it served are paused until it serves again")
    assert healthy(f"{api}/health")  # not its server: still up
    paused = {d["name"]: d["paused"] for d in api_post(api, "/deployments/filter")}
    assert paused == {"mlperf-watch-rounds": True, "mlperf-backfill": True}
