"""Acceptance: a real `prefect server start` on 127.0.0.1 (its own PREFECT_HOME), `mlperf-wh serve`
against it, both deployments read back through the Prefect API, the watcher's upcoming runs named as
they will start, a watch-rounds run triggered and waited for, its round in the warehouse and its
markdown report on the run. And serve stops like a server: SIGINT (Ctrl-C) ends it within 5 s with
one line saying what happened, the Prefect server it started stopped after it."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import requests

from tests.conftest import MIRROR

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent
STARTUP_SECONDS = 240  # two busy cores: server migrations, then the runner's first poll
CRON = "15 6 * * *"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, check, timeout: float, processes=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in processes:
            if p.poll() is not None:
                raise AssertionError(f"{p.args[:3]} exited with {p.returncode} while waiting for {what}")
        found = check()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(args, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # its own session: the process and its children
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory):
    home = tmp_path_factory.mktemp("prefect-home")
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": api,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
           "PREFECT_RUNNER_POLL_FREQUENCY": "1"}
    server = start([str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                   env, home / "server.log")
    try:
        wait_for("the Prefect server", lambda: _ok(f"{api}/health"), STARTUP_SECONDS, [server])
        yield api, env, home
    finally:
        stop(server)


def _ok(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


# Prefect's server answers 503 for errors it declares retryable (its database busy under load, as
# on two cores running the suite in parallel); its own client retries those, and so does this one.
RETRYABLE = {429, 502, 503}


def api_call(method: str, url: str, body: dict | None = None, attempts: int = 6):
    for attempt in range(attempts):
        response = requests.request(method, url, json=body, timeout=30)
        if response.status_code not in RETRYABLE or attempt == attempts - 1:
            break
        time.sleep(0.5 * 2 ** attempt)
    response.raise_for_status()
    return response.json()


def api_post(api: str, path: str, body: dict | None = None):
    return api_call("POST", f"{api}{path}", body or {})


def test_serve_publishes_both_deployments_and_a_triggered_watch_loads_and_reports(prefect_server, tmp_path):
    api, env, home = prefect_server
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

        def finished():
            state = api_call("GET", f"{api}/flow_runs/{run['id']}")["state"]
            return state if state["type"] in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED") else None
        state = wait_for("the watch-rounds run", finished, STARTUP_SECONDS, [serving])
        assert state["type"] == "COMPLETED", run_logs(api, run["id"])

        with duckdb.connect(str(db), read_only=True) as con:
            assert dict(con.execute("SELECT round, rows_read FROM sources").fetchall()) == {
                "v4.1": 937, "v5.1": 1448, "v6.0": 520}
            assert con.execute("SELECT DISTINCT flow_run_id FROM load_events").fetchall() == [(run["id"],)]
        artifacts = api_post(api, "/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": [run["id"]]}}})
        by_type = {a["type"]: a for a in artifacts}
        assert {"markdown", "table"} <= set(by_type)
        assert by_type["markdown"]["data"].startswith("# watch: ")
        assert "| v6.0 | loaded | 520 | 520 | 0 |" in by_type["markdown"]["data"]
    finally:
        stop(serving)


def run_logs(api: str, flow_run_id: str) -> str:
    """What a flow run logged, as the UI shows it: why it failed, when it did."""
    logs = api_post(api, "/logs/filter", {"logs": {"flow_run_id": {"any_": [flow_run_id]}}, "sort": "TIMESTAMP_ASC"})
    return "\n".join(f"{entry['level']} {entry['message']}" for entry in logs)[-4000:]


def scheduled_runs(api: str, deployment_id: str) -> list[dict]:
    return api_post(api, "/flow_runs/filter", {
        "deployments": {"id": {"any_": [deployment_id]}},
        "flow_runs": {"state": {"type": {"any_": ["SCHEDULED"]}}}})


def named_runs(api: str, deployment_id: str) -> list[dict] | None:
    """The deployment's scheduled runs once there are some and each is named by its start
    (watch-rounds-2026-11-30T0600), else None."""
    from datetime import datetime
    runs = scheduled_runs(api, deployment_id)
    expected = [f"watch-rounds-{datetime.fromisoformat(r['expected_start_time']):%Y-%m-%dT%H%M}" for r in runs]
    return runs if runs and [r["name"] for r in runs] == expected else None


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
    assert not _ok(f"http://127.0.0.1:{port}/api/health")


def test_sigint_stops_serve_within_5s_and_pauses_its_deployments_on_a_server_it_did_not_start(
        prefect_server, tmp_path):
    api, env, home = prefect_server
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
    assert _ok(f"{api}/health")  # not its server: still up
    paused = {d["name"]: d["paused"] for d in api_post(api, "/deployments/filter")}
    assert paused == {"mlperf-watch-rounds": True, "mlperf-backfill": True}
