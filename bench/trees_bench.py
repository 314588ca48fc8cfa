"""Benchmark the tree ingest on every shared submission tree (../shared/mlcommons/trees + mirror/).

The trees are laid out as the round repositories (symbolic links, nothing copied) and served by a
loopback HTTP server in its own process (`python -m http.server --bind 127.0.0.1`; HTTP/1.0, one
connection per file: its HTTP/1.1 mode stalls ~40 ms a response on delayed ACKs), so the server
does not share the ingest's interpreter.

(a) files per second of the Prefect tree-ingest flow (thread-pool task runner) at concurrency 1, 4
    and 16, each into a fresh copy of a warehouse holding the three shared rounds (every file
    fetched, parsed, validated and loaded; views rebuilt);
(b) the same flow on a Dask LocalCluster of 1, 2 and 4 worker processes (one thread each), measured
    as (a): the flow's own seconds, plan to views; each cluster's start-up is timed apart and not
    counted. Target: 2 workers reach at least half the thread pool's best files/s;
(c) the wall time of a whole `mlperf-wh trees --source <server> --db <copy>` in a subprocess
    (interpreter and Prefect start-up included), target < 30 s.

    .venv/bin/python bench/trees_bench.py      (or every benchmark: make bench)
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from ingest_bench import core_once

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT.parent / "shared" / "mlcommons").resolve()
ROUNDS = ("v4.1", "v5.1", "v6.0")
CONCURRENCY = (1, 4, 16)
CHUNK_SIZE = 32
DASK_WORKERS = (1, 2, 4)
DASK_TARGET_SHARE = 0.5   # of the thread pool's best files/s, by the 2-worker cluster
WALL_TARGET_SECONDS = 30.0


def lay_out(root: Path) -> Path:
    """inference_results_vX.Y/main/{summary_results.json, closed/, open/} as links into shared/."""
    for name in ROUNDS:
        branch = root / f"inference_results_{name}" / "main"
        branch.mkdir(parents=True)
        (branch / "summary_results.json").symlink_to(
            SHARED / "mirror" / f"inference_results_{name}" / "main" / "summary_results.json")
        for division in (SHARED / "trees" / f"inference_results_{name}").iterdir():
            (branch / division.name).symlink_to(division)
    return root


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def http_server(directory: Path):
    """`python -m http.server` on 127.0.0.1 in a child process; stopped on exit."""
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                "--directory", str(directory)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the loopback HTTP server did not start")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def flow_run(url: str, base_db: Path, path: Path, run) -> dict:
    """The tree-ingest flow into a fresh copy of the base warehouse: files, the flow's seconds, counts."""
    from flows.trees import run_trees
    from warehouse.identity.rounds import load_registry
    registry = load_registry()
    shutil.copyfile(base_db, path)
    outcome = run_trees([registry[name] for name in ROUNDS], url, str(path), run)
    return {"files": outcome.files, "seconds": outcome.seconds, "counts": outcome.counts}


def flow_runs(url: str, base_db: Path, workdir: Path) -> dict[int, dict]:
    """The tree-ingest flow on the thread pool at each concurrency."""
    from flows.trees import TreeRun
    return {concurrency: flow_run(url, base_db, workdir / f"concurrency{concurrency}.duckdb",
                                  TreeRun(concurrency=concurrency, chunk_size=CHUNK_SIZE))
            for concurrency in CONCURRENCY}


def dask_runs(url: str, base_db: Path, workdir: Path) -> dict[int, dict]:
    """The tree-ingest flow on a fresh LocalCluster of each size (worker processes, one thread
    each); the cluster's start-up is timed apart."""
    from distributed import LocalCluster

    from flows.trees import TreeRun
    results = {}
    for workers in DASK_WORKERS:
        started = time.perf_counter()
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            startup = time.perf_counter() - started
            run = TreeRun(dask_address=cluster.scheduler_address)
            results[workers] = flow_run(url, base_db, workdir / f"dask{workers}.duckdb", run) | {"startup": startup}
    return results


def files_per_second(run: dict) -> float:
    return run["files"] / run["seconds"]


def print_dask(runs: dict[int, dict], threads: dict[int, dict]) -> None:
    for workers, run in runs.items():
        print(f"tree ingest flow, Dask {workers} worker{'s' if workers > 1 else ' '} (LocalCluster, processes, "
              f"1 thread each): {files_per_second(run):.0f} files/s ({run['files']} files in {run['seconds']:.2f} s; "
              f"{run['counts']}) [cluster start-up {run['startup']:.1f} s, not counted]")
    best = max(files_per_second(r) for r in threads.values())
    share = files_per_second(runs[2]) / best
    verdict = "ok" if share >= DASK_TARGET_SHARE else "UNDER TARGET"
    print(f"Dask, 2 workers, against the thread pool's best: {share:.2f}x ({files_per_second(runs[2]):.0f} vs "
          f"{best:.0f} files/s; target >= {DASK_TARGET_SHARE}x) {verdict}")


def cli_wall(url: str, base_db: Path, workdir: Path) -> dict:
    path = workdir / "cli.duckdb"
    shutil.copyfile(base_db, path)
    command = Path(sys.executable).parent / "mlperf-wh"
    started = time.perf_counter()
    done = subprocess.run([str(command), "trees", "--source", url, "--db", str(path),
                           "--rounds", ",".join(ROUNDS)], capture_output=True, text=True)
    return {"seconds": time.perf_counter() - started, "returncode": done.returncode,
            "stdout": done.stdout, "stderr": done.stderr}


def has_distributed() -> bool:
    return importlib.util.find_spec("distributed") is not None


def main(argv: list[str] | None = None) -> int:
    if not (SHARED / "trees").is_dir():
        print(f"trees bench: shared trees not found at {SHARED / 'trees'}")
        return 1
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # As mlperf-wh does (warehouse/cli/__init__.py): Prefect's 20 s is too short on a busy 2-core machine.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    workdir = Path(tempfile.mkdtemp(prefix="trees-bench-"))
    try:
        base_db = workdir / "baseline.duckdb"
        core_once(str(base_db), ROUNDS)
        with http_server(lay_out(workdir / "repositories")) as url:
            wall = cli_wall(url, base_db, workdir)
            runs = flow_runs(url, base_db, workdir)
            clusters = dask_runs(url, base_db, workdir) if has_distributed() else None
        for concurrency, run in runs.items():
            print(f"tree ingest flow, thread pool, concurrency {concurrency:>2} (chunks of {CHUNK_SIZE} files): "
                  f"{run['files'] / run['seconds']:.0f} files/s ({run['files']} files in {run['seconds']:.2f} s; "
                  f"{run['counts']})")
        sequential, best = runs[1]["seconds"], min(r["seconds"] for r in runs.values())
        print(f"concurrency beats sequential: {'yes' if best < sequential else 'NO'} "
              f"(best {best:.2f} s vs {sequential:.2f} s at concurrency 1)")
        if clusters is None:
            print("tree ingest flow on Dask: skipped, distributed is not installed (pip install 'mlperf-warehouse[dask]')")
        else:
            print_dask(clusters, runs)
        verdict = "ok" if wall["seconds"] < WALL_TARGET_SECONDS and wall["returncode"] == 0 else "MISSED"
        flow_line = next((line for line in wall["stdout"].splitlines() if " files in " in line), "?")
        print(f"mlperf-wh trees, every shared tree (subprocess, wall): {wall['seconds']:.2f} s "
              f"(target < {WALL_TARGET_SECONDS:g} s) {verdict}  [the flow itself: {flow_line}; the rest "
              f"is interpreter and Prefect start-up, as for `mlperf-wh backfill`]")
        if wall["returncode"] != 0:
            print(wall["stderr"][-2000:])
            return 1
        return 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
