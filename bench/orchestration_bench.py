"""Whole-process orchestration cost, side by side: `mlperf-wh backfill` of the shared rounds (cold and
no-change) and a no-change `mlperf-wh watch`, with Prefect's temporary server and against a running
`prefect server start`; the plain-function floor; and a trivial eight-task flow in each mode.

    .venv/bin/python bench/run.py orchestration        (MLPERF_BENCH_REPEAT runs each, median; default 3)
"""
from __future__ import annotations

import itertools
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import requests

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MIRROR = (ROOT.parent / "shared" / "mlcommons" / "mirror").resolve()
REPEAT = int(os.environ.get("MLPERF_BENCH_REPEAT", "3"))
TARGET_RUNNING_WATCH = 2.5      # s, no-change watch against a running server
TARGET_RUNNING_COLD = 3.0       # s, cold backfill of the shared rounds against a running server
TARGET_TEMPORARY_MARGIN = 1.5   # s above the trivial flow, cold backfill with the temporary server
TARGET_NO_CHANGE = 1.5          # s, no-change backfill or watch with no server running (issue 24: look first)
DB_NUMBERS = itertools.count()


class Timing(NamedTuple):
    wall: float
    cpu: float   # user + system of the process and the children it waited for (a temporary server)


def timed(args: list[str], env: dict) -> Timing:
    cpu_before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])} exited {done.returncode}: {done.stderr[-500:]}")
    return Timing(elapsed, _children_cpu() - cpu_before)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_of(run) -> Timing:
    runs = [run() for _ in range(REPEAT)]
    return Timing(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs))


def measure(env: dict, scratch: Path) -> dict[str, Timing]:
    cli = [str(BIN / "mlperf-wh")]
    trivial = [sys.executable, str(ROOT / "bench" / "trivial_flow.py")]
    def fresh_db() -> str:
        # unique across both modes: a name reused from the other mode's runs would make "cold" a no-change run
        path = scratch / f"w{next(DB_NUMBERS)}.duckdb"
        assert not path.exists(), path
        return str(path)

    def cold() -> Timing:
        return timed(cli + ["backfill", "--source", str(MIRROR), "--db", fresh_db()], env)

    timed(trivial, env)  # untimed: a new Prefect home's database is created (migrations) on first use
    warm_db = fresh_db()
    timed(cli + ["backfill", "--source", str(MIRROR), "--db", warm_db], env)
    return {
        "trivial 8-task flow": median_of(lambda: timed(trivial, env)),
        "  same, as mlperf-wh runs": median_of(lambda: timed(trivial + ["--as-mlperf-wh"], env)),
        "backfill, cold": median_of(cold),
        "backfill, no change": median_of(lambda: timed(cli + ["backfill", "--source", str(MIRROR), "--db", warm_db], env)),
        "watch, no change": median_of(lambda: timed(cli + ["watch", "--source", str(MIRROR), "--db", warm_db], env)),
    }


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


def main(argv: list[str]) -> int:
    base = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    # the CLI's own start-up bound for the temporary server (warehouse/cli.py), for the trivial flow too
    base.update(PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_UI_ENABLED="false",
                PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120")
    scratch = Path(tempfile.mkdtemp(prefix="mlperf-orch-bench-"))
    print(f"load average at start {_load()}")
    try:
        floor = median_of(lambda: timed([sys.executable, str(ROOT / "bench" / "plain_floor.py"), str(MIRROR),
                                         str(scratch / f"floor{time.monotonic_ns()}.duckdb")], base))
        temporary = measure({**base, "PREFECT_HOME": str(scratch / "temporary-home")}, scratch)
        server, api = running_server(scratch / "server-home", base)
        try:
            running = measure({**base, "PREFECT_HOME": str(scratch / "client-home"), "PREFECT_API_URL": api}, scratch)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"whole process, median of {REPEAT}, shared rounds v4.1 v5.1 v6.0 from {MIRROR.name}/; "
          f"wall (cpu: user + system, the process and its children); load average {_load()}")
    print(f"{'':28}{'no server (temporary)':>24}{'running server':>24}")
    for name in temporary:
        print(f"{name:28}{_cell(temporary[name]):>24}{_cell(running[name]):>24}")
    print(f"{'plain functions (floor)':28}{_cell(floor):>24}")
    checks = [
        ("no server: no-change backfill", temporary["backfill, no change"].wall, TARGET_NO_CHANGE),
        ("no server: no-change watch", temporary["watch, no change"].wall, TARGET_NO_CHANGE),
        ("running server: no-change watch", running["watch, no change"].wall, TARGET_RUNNING_WATCH),
        ("running server: cold backfill", running["backfill, cold"].wall, TARGET_RUNNING_COLD),
        ("temporary server: cold backfill - trivial flow",
         temporary["backfill, cold"].wall - temporary["trivial 8-task flow"].wall, TARGET_TEMPORARY_MARGIN),
    ]
    for name, value, target in checks:
        print(f"{name}: {value:.2f} s (target < {target} s) {'ok' if value < target else 'MISSED'}")
    like = temporary["backfill, cold"].wall - temporary["  same, as mlperf-wh runs"].wall
    print(f"  (cold backfill above the trivial flow run as mlperf-wh runs: {like:.2f} s)")
    return 0


def _cell(timing: Timing) -> str:
    return f"{timing.wall:.2f} s ({timing.cpu:.2f} s)"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
