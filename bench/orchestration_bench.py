"""What a run costs beside the work it does (issue 34, item 1): `mlperf-wh backfill` of the shared
rounds into a new warehouse (what `make run` does after install), whole process, against the
plain-function floor (bench/plain_floor.py: fetch, parse, validate, load, every model; no CLI, no
Prefect), in pairs A B A B ...; then the runs that find nothing new, alone.

- no Prefect API configured (a user's first run): a plain run (flows/local_runs.py). Target <= 1.5x.
- against a running `prefect server start` (PREFECT_API_URL): a Prefect flow run. Target <= 2.0x.
- with Prefect's temporary server (MLPERF_PREFECT_TEMPORARY_SERVER=1): what a run without an API cost
  before; no target, printed to show what the plain run avoids.
- a no-change backfill and watch: no flow, no server (look first). Target < 1.5 s; a no-change watch
  against the running server < 2.5 s.

    .venv/bin/python bench/run.py orchestration     (MLPERF_BENCH_REPEAT pairs, median; default 5)
"""
from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from pairs import REPEAT, alternate, line, load, run_once

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MIRROR = (ROOT.parent / "shared" / "mlcommons" / "mirror").resolve()
TARGET_COLD_RATIO = 1.5          # cold backfill, no Prefect API / the plain-function floor
TARGET_FLOW_RUN_RATIO = 2.0      # cold backfill as a flow run on a running server / the same floor
TARGET_NO_CHANGE = 1.5           # s, no-change backfill or watch, no server
TARGET_RUNNING_WATCH = 2.5       # s, no-change watch against a running server
DB_NUMBERS = itertools.count()


def main(argv: list[str]) -> int:
    base = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "MLPERF_PREFECT_TEMPORARY_SERVER")}
    base.update(PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_UI_ENABLED="false")
    scratch = Path(tempfile.mkdtemp(prefix="mlperf-orch-bench-"))
    print(f"shared rounds v4.1 v5.1 v6.0 v6.1 from {MIRROR.name}/, whole process, {REPEAT} pairs (A B A B ...), "
          f"medians; load average {load()}")
    try:
        plain = {**base, "PREFECT_HOME": str(scratch / "plain-home")}
        print(line("cold backfill, no Prefect API (plain run) / floor", cold_pair(plain, scratch), TARGET_COLD_RATIO))
        no_change = no_change_runs(plain, scratch)
        server, api = running_server(scratch / "server-home", base)
        try:
            client = {**base, "PREFECT_HOME": str(scratch / "client-home"), "PREFECT_API_URL": api}
            print(line("cold backfill, running Prefect server (flow run) / floor", cold_pair(client, scratch),
                       TARGET_FLOW_RUN_RATIO))
            running_watch = no_change_runs(client, scratch)["watch"]
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        temporary = {**plain, "PREFECT_HOME": str(scratch / "temporary-home"), "MLPERF_PREFECT_TEMPORARY_SERVER": "1"}
        print(line("cold backfill, Prefect's temporary server (flow run) / floor", cold_pair(temporary, scratch), None))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for name, seconds in no_change.items():
        print(f"no-change {name}, no server: {seconds:.2f} s (target < {TARGET_NO_CHANGE} s) "
              f"{'ok' if seconds < TARGET_NO_CHANGE else 'MISSED'}")
    print(f"no-change watch, running server: {running_watch:.2f} s (target < {TARGET_RUNNING_WATCH} s) "
          f"{'ok' if running_watch < TARGET_RUNNING_WATCH else 'MISSED'}")
    print(f"load average at the end {load()}")
    return 0


def fresh_db(scratch: Path) -> str:
    return str(scratch / f"w{next(DB_NUMBERS)}.duckdb")


def cold_pair(env: dict, scratch: Path):
    return alternate(
        lambda: run_once([str(BIN / "mlperf-wh"), "--db", fresh_db(scratch), "backfill", "--source", str(MIRROR)], env),
        lambda: run_once([sys.executable, str(ROOT / "bench" / "plain_floor.py"), str(MIRROR), fresh_db(scratch)], env))


def no_change_runs(env: dict, scratch: Path) -> dict[str, float]:
    """Median wall seconds of a backfill and a watch that find every round as loaded."""
    db_file = fresh_db(scratch)
    cli = [str(BIN / "mlperf-wh"), "--db", db_file]
    run_once(cli + ["backfill", "--source", str(MIRROR)], env)
    return {kind: statistics.median(run_once(cli + [kind, "--source", str(MIRROR)], env).wall for _ in range(REPEAT))
            for kind in ("backfill", "watch")}


def running_server(home: Path, env: dict):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    api = f"http://127.0.0.1:{port}/api"
    server = subprocess.Popen([str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                              env={**env, "PREFECT_HOME": str(home)}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{api}/health", timeout=2).status_code == 200:
                return server, api
        except requests.RequestException:
            pass
        time.sleep(0.5)
    os.killpg(server.pid, signal.SIGTERM)
    raise RuntimeError("the Prefect server did not start within 240 s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
