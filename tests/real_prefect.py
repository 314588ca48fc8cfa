"""A real `prefect server start` for the tests that need one whole (tests/test_serve.py,
tests/test_work_pool.py): on a free 127.0.0.1 port with a Prefect home of its own, its processes in
sessions of their own so that each is stopped with its children; and the Prefect API read as a
client would, retrying what the server says to retry."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import requests

BIN = Path(sys.executable).parent
STARTUP_SECONDS = 240  # two busy cores: server migrations, then the runner's or worker's first poll


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


def start(args: list[str], env: dict, log: Path, cwd: Path | None = None) -> subprocess.Popen:
    return subprocess.Popen(args, env=env, cwd=cwd, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # its own session: the process and its children
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def healthy(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


@contextmanager
def prefect_server(home: Path):
    """`prefect server start` with `home` as its Prefect home -> (API URL, the environment that
    points a process at it); stopped when the block ends."""
    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": api,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
           "PREFECT_RUNNER_POLL_FREQUENCY": "1", "PREFECT_WORKER_QUERY_SECONDS": "1"}
    server = start([str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                   env, home / "server.log")
    try:
        wait_for("the Prefect server", lambda: healthy(f"{api}/health"), STARTUP_SECONDS, [server])
        yield api, env
    finally:
        stop(server)


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


def finished_state(api: str, flow_run_id: str) -> dict | None:
    state = api_call("GET", f"{api}/flow_runs/{flow_run_id}")["state"]
    return state if state["type"] in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED") else None


def run_logs(api: str, flow_run_id: str) -> str:
    """What a flow run logged, as the UI shows it: why it failed, when it did."""
    logs = api_post(api, "/logs/filter", {"logs": {"flow_run_id": {"any_": [flow_run_id]}}, "sort": "TIMESTAMP_ASC"})
    return "\n".join(f"{entry['level']} {entry['message']}" for entry in logs)[-4000:]


def scheduled_runs(api: str, deployment_id: str) -> list[dict]:
    return api_post(api, "/flow_runs/filter", {
        "deployments": {"id": {"any_": [deployment_id]}},
        "flow_runs": {"state": {"type": {"any_": ["SCHEDULED"]}}}})


def named_runs(api: str, deployment_id: str) -> list[dict] | None:
    """The watcher deployment's scheduled runs once there are some and each is named by its start
    (watch-rounds-2026-11-30T0600), else None."""
    runs = scheduled_runs(api, deployment_id)
    expected = [f"watch-rounds-{datetime.fromisoformat(r['expected_start_time']):%Y-%m-%dT%H%M}" for r in runs]
    return runs if runs and [r["name"] for r in runs] == expected else None
