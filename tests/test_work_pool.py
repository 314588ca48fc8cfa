"""Acceptance of prefect.yaml, as the operations guide runs it: a real `prefect server start`, the
process work pool created, `prefect deploy --all` in a copy of the checkout, and `prefect worker start
--pool` in another directory (so only the pull step can lead its runs to the code). The backfill,
triggered as the guide says (`prefect deployment run ... --flow-run-name`) with a temporary warehouse
and the mirror, is named at creation and loaded by the worker's run; a watch-rounds run by the
worker names the watcher's upcoming runs, which Prefect's scheduler created with random names."""
from __future__ import annotations

import re
import subprocess

import duckdb
import pytest
import yaml

from tests.conftest import MIRROR, ROOT
from tests.readme_commands import fresh_copy
from tests.real_prefect import (BIN, STARTUP_SECONDS, api_call, api_post, finished_state, named_runs,
                                prefect_server, run_logs, start, stop, wait_for)
from warehouse.cli.runs import DEFAULT_CRON

pytestmark = pytest.mark.slow
(POOL,) = {d["work_pool"]["name"] for d in yaml.safe_load((ROOT / "prefect.yaml").read_text())["deployments"]}


def prefect(*args: str, env: dict, cwd=None) -> str:
    done = subprocess.run([str(BIN / "prefect"), *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"prefect {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


def trigger(deployment: str, name: str, env: dict, **parameters: str) -> str:
    """`prefect deployment run` as the guide writes it -> the flow run's id."""
    params = [word for key, value in parameters.items() for word in ("--param", f"{key}={value}")]
    said = prefect("deployment", "run", deployment, "--flow-run-name", name, *params, env=env)
    return re.search(r"UUID: ([0-9a-f-]{36})", said).group(1)


def test_a_worker_runs_the_deployments_prefect_yaml_declares(tmp_path):
    checkout = fresh_copy(tmp_path / "copy")
    with prefect_server(tmp_path / "prefect-home") as (api, env):
        env = env | {"PYTHONPATH": str(checkout)}  # the copy's packages, not this checkout's
        prefect("work-pool", "create", POOL, "--type", "process", env=env)
        prefect("--no-prompt", "deploy", "--all", env=env, cwd=checkout)
        found = {d["name"]: d for d in api_post(api, "/deployments/filter")}
        assert {d["work_pool_name"] for d in found.values()} == {POOL}
        assert {str(d["pull_steps"]) for d in found.values()} == {str(
            [{"prefect.deployments.steps.set_working_directory": {"directory": str(checkout)}}])}
        watcher = found["mlperf-watch-rounds"]
        assert [s["schedule"]["cron"] for s in watcher["schedules"]] == [DEFAULT_CRON]

        elsewhere = tmp_path / "worker"
        elsewhere.mkdir()
        worker = start([str(BIN / "prefect"), "worker", "start", "--pool", POOL], env, tmp_path / "worker.log",
                       cwd=elsewhere)
        try:
            db = tmp_path / "warehouse.duckdb"
            run_id = trigger("scheduled-backfill/mlperf-backfill", "backfill-v6.0", env, rounds="v6.0",
                             trees="false", source=str(MIRROR), db_file=str(db))
            assert api_call("GET", f"{api}/flow_runs/{run_id}")["name"] == "backfill-v6.0"  # at creation
            state = wait_for("the backfill run", lambda: finished_state(api, run_id), STARTUP_SECONDS, [worker])
            assert state["type"] == "COMPLETED", run_logs(api, run_id)
            with duckdb.connect(str(db), read_only=True) as con:
                assert con.execute("SELECT round, count(*) FROM results GROUP BY round").fetchall() == [("v6.0", 520)]
                assert con.execute("SELECT DISTINCT flow_run_id, round FROM load_events").fetchall() == [(run_id, "v6.0")]

            empty = tmp_path / "no-rounds-here"
            empty.mkdir()
            run_id = trigger("watch-rounds/mlperf-watch-rounds", "watch-rounds-now", env, source=str(empty),
                             db_file=str(tmp_path / "watched.duckdb"))
            state = wait_for("the watch-rounds run", lambda: finished_state(api, run_id), STARTUP_SECONDS, [worker])
            assert state["type"] == "COMPLETED", run_logs(api, run_id)
            assert named_runs(api, watcher["id"]), [r["name"] for r in api_post(api, "/flow_runs/filter")]
        finally:
            stop(worker)
