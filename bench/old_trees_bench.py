"""Rebuilding every shared old round from its tree (v0.5, v0.7, v1.1, v2.0, v2.1: the rounds MLCommons
published no table of), whole processes, against the plain reader (bench/trees_floor.py) that reads
the same files (every system description and performance run_1 summary), parses the primary figure
with a regular expression and json.loads and writes the rows to DuckDB in one transaction (issue 56).

- cold: `mlperf-wh trees --rounds <old rounds> --source ../shared/mlcommons/trees` into a copy of a
  warehouse holding the three table rounds (the copy made before the clock starts), marts included,
  against the plain reader into a new file; alternated A B A B, best of MLPERF_BENCH_REPEAT (3).
  Target <= 2x the plain reader's time.
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
        print(f"old rounds {', '.join(OLD_ROUNDS)} from {TREES}, whole processes, best of {REPEAT} (A B A B ...); "
              f"load average {load()}")
        last = {}

        def trees_cold():
            db = str(scratch / f"w{next(NUMBERS)}.duckdb")
            shutil.copyfile(base, db)
            last["db"] = db
            return run_once(trees_command(db), env)

        def floor():
            return run_once([sys.executable, str(ROOT / "bench" / "trees_floor.py"), str(scratch / f"f{next(NUMBERS)}.duckdb"),
                             *(str(TREES / f"inference_results_{r}") for r in OLD_ROUNDS)], env)
        pair = alternate(trees_cold, floor, REPEAT)
        cold, plain = min(pair.a, key=lambda r: r.wall), min(pair.b, key=lambda r: r.wall)
        ratio = cold.wall / plain.wall
        print(f"cold rebuild, marts included: {cold.wall:.2f} s, {cold.peak_mib:.0f} MiB against the plain reader's "
              f"{plain.wall:.2f} s, {plain.peak_mib:.0f} MiB: {ratio:.2f}x the time (target <= {TARGET_COLD_RATIO}x) "
              f"{'ok' if ratio <= TARGET_COLD_RATIO else 'MISSED'}; median of pairs {pair.ratio:.2f}x")
        reruns = [run_once(trees_command(last["db"]), env) for _ in range(REPEAT)]
        rerun = min(reruns, key=lambda r: r.wall)
        share = rerun.wall / cold.wall
        print(f"nothing changed, the same command again: {rerun.wall:.2f} s, {rerun.peak_mib:.0f} MiB: {share:.2f}x "
              f"the cold run (target <= {TARGET_RERUN_SHARE}x) {'ok' if share <= TARGET_RERUN_SHARE else 'MISSED'}")
        print(f"load average at the end {load()}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def trees_command(db: str) -> list[str]:
    return [str(BIN / "mlperf-wh"), "--quiet", "--db", db, "trees", "--rounds", ",".join(OLD_ROUNDS),
            "--source", str(TREES)]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
