"""Benchmark rebuilding every shared submission tree into result rows (../shared/mlcommons/trees: v0.5,
v0.7, v2.1, v4.1, v5.1, v6.0, ~12,800 files), as `mlperf-wh trees` does for a round with no table
(warehouse/trees/rebuilding.py: list, parse, build the checker's rows; nothing written).

(a) in this process, one thread (threads only contended for the GIL). Target: every tree in under 30 s;
(b) on a Dask LocalCluster of 2 worker processes, one thread each; the cluster's start-up is timed
    apart and not counted. Target: at least as fast as (a).

    .venv/bin/python bench/rebuild_bench.py      (or: .venv/bin/python bench/run.py rebuild)
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TREES = (ROOT.parent / "shared" / "mlcommons" / "trees").resolve()
ROUNDS = ("v0.5", "v0.7", "v2.1", "v4.1", "v5.1", "v6.0")
TARGET_SECONDS = 30.0
WORKERS = 2


def rebuild_all(client=None) -> tuple[float, int, int, int]:
    """Seconds, files, rows, quarantined for every shared tree."""
    from warehouse.identity.reference import load_reference
    from warehouse.trees.rebuilding import rebuild_trees
    reference = load_reference()
    started = time.perf_counter()
    rebuilt = rebuild_trees([(name, TREES / f"inference_results_{name}") for name in ROUNDS], workers=WORKERS,
                            client=client, reference=reference)
    files, rows = sum(r.files for r in rebuilt), sum(len(r.rows) for r in rebuilt)
    quarantined = sum(len(r.quarantined) for r in rebuilt)
    return time.perf_counter() - started, files, rows, quarantined


def main(argv: list[str] | None = None) -> int:
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rebuild_all()  # warm the file cache and the imports: both runs read the same warm files
    seconds, files, rows, quarantined = rebuild_all()
    ok = seconds < TARGET_SECONDS
    print(f"rebuild, in one thread: {files} files -> {rows} rows, {quarantined} quarantined in "
          f"{seconds:.1f} s ({files / seconds:.0f} files/s; target < {TARGET_SECONDS:.0f} s) {'ok' if ok else 'MISSED'}")
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        print("rebuild on Dask: skipped (distributed not installed: pip install -e '.[dask]')")
        return 0 if ok else 1
    # Dask's statistical profiler samples every worker thread's stack every 10 ms: on pure-Python
    # parsing it cost the workers a quarter of their speed (bench/README.md).
    dask.config.set({"distributed.worker.profile.enabled": False})
    started = time.perf_counter()
    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        print(f"Dask LocalCluster of {WORKERS} worker processes started in {time.perf_counter() - started:.1f} s "
              "(not counted)")
        rebuild_all(client)  # the workers' first imports and file reads, not counted
        dask_seconds, files, rows, _ = rebuild_all(client)
    as_fast = dask_seconds <= seconds
    print(f"rebuild, Dask {WORKERS} workers: {files} files -> {rows} rows in {dask_seconds:.1f} s "
          f"({files / dask_seconds:.0f} files/s; target <= one thread's {seconds:.1f} s) "
          f"{'ok' if as_fast else 'MISSED'}")
    print(f"machine load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok and as_fast else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
