"""Rebuilding every shared old round from its tree (v0.5, v0.7, v1.1, v2.0, v2.1: the rounds MLCommons
published no table of), whole processes, against the plain reader (bench/trees_floor.py) that reads
the same files (every system description and performance run_1 summary, and a power run's spl.txt and
detail log), parses the primary figure with a regular expression and json.loads, and each power run
as the checker does, and writes the rows to DuckDB in one transaction (issue 56; power: issue 62).

- cold: `mlperf-wh trees --rounds <old rounds> --source ../shared/mlcommons/trees` into a copy of a
  warehouse holding the three table rounds (the copy made before the clock starts), marts included,
  against the plain reader into a new file; alternated A B A B, best of MLPERF_BENCH_REPEAT (3). Cold
  means what a first rebuild on a machine meets: the kernel's page cache is dropped before each side
  (`sync; echo 3 > /proc/sys/vm/drop_caches`, where this process may write it: root), so both read the
  trees, and load their modules, from the disk. Target <= 2x the plain reader's time. The same pair is
  then timed warm (every file in the page cache), for what a rebuild costs beyond the disk.
- nothing changed: the same command again on the warehouse the cold run left. Target <= 0.15x the
  cold run.

    .venv/bin/python bench/run.py old_trees
"""
from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path

from pairs import alternate, load, run_once

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SHARED = (ROOT.parent / "shared" / "mlcommons").resolve()
TREES = SHARED / "trees"
OLD_ROUNDS = ("v0.5", "v0.7", "v1.1", "v2.0", "v2.1")
REPEAT = int(os.environ.get("MLPERF_BENCH_REPEAT", "3"))
TARGET_COLD_RATIO = 2.0
TARGET_RERUN_SHARE = 0.15
NUMBERS = itertools.count()


def main(argv: list[str]) -> int:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    scratch = Path(tempfile.mkdtemp(prefix="mlperf-old-trees-bench-"))
    try:
        base = str(scratch / "tables.duckdb")
        run_once([str(BIN / "mlperf-wh"), "--quiet", "--db", base, "backfill", "--source", str(SHARED / "mirror")], env)
        can_drop = drop_page_cache()
        print(f"old rounds {', '.join(OLD_ROUNDS)} from {TREES}, whole processes, best of {REPEAT} (A B A B ...); "
              f"load average {load()}")
        if not can_drop:
            print("the page cache cannot be dropped here (not root): 'cold' below is a new warehouse over warm files")
        cold, warehouse = _alternated(scratch, base, env, can_drop, "cold" if can_drop else "cold warehouse, warm files",
                                      target=True)
        if can_drop:
            _alternated(scratch, base, env, False, "warm files", target=False)
        rerun = min((run_once(trees_command(warehouse), env) for _ in range(REPEAT)), key=lambda r: r.wall)
        share = rerun.wall / cold.wall
        print(f"nothing changed, the same command again: {rerun.wall:.2f} s, {rerun.peak_mib:.0f} MiB: {share:.2f}x "
              f"the cold run (target <= {TARGET_RERUN_SHARE}x) {'ok' if share <= TARGET_RERUN_SHARE else 'MISSED'}")
        print(f"load average at the end {load()}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _alternated(scratch: Path, base: str, env: dict, drop: bool, label: str, target: bool):
    """The rebuild and the plain reader, alternated, the page cache dropped before each side when
    `drop`: the best rebuild and the warehouse it left."""
    left: dict[int, str] = {}   # a rebuild's run -> the warehouse it wrote

    def rebuild():
        warehouse = str(scratch / f"w{next(NUMBERS)}.duckdb")
        shutil.copyfile(base, warehouse)
        if drop:
            drop_page_cache()
        run = run_once(trees_command(warehouse), env)
        left[id(run)] = warehouse
        return run

    def floor():
        out = str(scratch / f"f{next(NUMBERS)}.duckdb")
        if drop:
            drop_page_cache()
        return run_once([sys.executable, str(ROOT / "bench" / "trees_floor.py"), out,
                         *(str(TREES / f"inference_results_{r}") for r in OLD_ROUNDS)], env)
    pair = alternate(rebuild, floor, REPEAT)
    cold, plain = min(pair.a, key=lambda r: r.wall), min(pair.b, key=lambda r: r.wall)
    ratio = cold.wall / plain.wall
    verdict = (f"(target <= {TARGET_COLD_RATIO}x) {'ok' if ratio <= TARGET_COLD_RATIO else 'MISSED'}" if target
               else "(what a rebuild costs beyond the disk)")
    print(f"{label}: rebuild, marts included, {cold.wall:.2f} s, {cold.peak_mib:.0f} MiB against the plain reader's "
          f"{plain.wall:.2f} s, {plain.peak_mib:.0f} MiB: {ratio:.2f}x the time {verdict}; median of pairs "
          f"{pair.ratio:.2f}x; load average {load()}")
    return cold, left[id(cold)]


def drop_page_cache() -> bool:
    """Empty the kernel's page cache (after a sync), as after a reboot; False where that is not allowed."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as control:
            control.write("3\n")
        return True
    except OSError:
        return False


def trees_command(db: str) -> list[str]:
    return [str(BIN / "mlperf-wh"), "--quiet", "--db", db, "trees", "--rounds", ",".join(OLD_ROUNDS),
            "--source", str(TREES)]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
