"""The core path beside MLCommons' final-report tool (issue 34, item 2), both measured here.

A: the core path, whole process (bench/core_path.py): v6.0's final table (520 rows) read, parsed,
   validated, loaded and every model built; no Prefect. In .venv, what `make run` builds, and in
   .venv-test where it exists (its test extra brings pandas, which Pandera imports when installed).
   Two cases: a new warehouse, and the round loaded into a warehouse that holds v5.1 (a watcher's
   case: the tables are rebuilt, the views whose definition is unchanged stay).
B: the yardstick, `generate_final_report.py` of mlcommons/inference (../shared/anchors, never copied
   here) on v6.0's table in the checker's format (520 rows), in .venv-yardstick (`make yardstick`),
   in a new directory each run (it writes its spreadsheet and JSON there).

Targets (guards against drifting back; issue 43 withdrew parity, the tool doing a fraction of the
work): A's wall time <= 2.5x B's, its peak memory <= 3.0x, in .venv (the test environment's lines
have none: they show what the test extra adds).

    .venv/bin/python bench/run.py core       (MLPERF_BENCH_REPEAT pairs, median; default 5)
"""
from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path

from pairs import REPEAT, alternate, line, load, run_once

ROOT = Path(__file__).resolve().parents[1]
MIRROR = (ROOT.parent / "shared" / "mlcommons" / "mirror").resolve()
TABLE = MIRROR / "inference_results_v6.0" / "main" / "summary_results.json"
EARLIER = MIRROR / "inference_results_v5.1" / "main" / "summary_results.json"
ANCHOR = Path(os.environ.get("MLPERF_BENCH_ANCHOR", ROOT.parent / "shared" / "anchors" / "mlcommons-final-report")).resolve()
YARDSTICK_PYTHON = ROOT / ".venv-yardstick" / "bin" / "python"
TARGET_RATIO, TARGET_MEMORY_RATIO = 2.5, 3.0
INTERPRETERS = {"run environment (.venv)": ROOT / ".venv" / "bin" / "python",
                "test environment (.venv-test)": ROOT / ".venv-test" / "bin" / "python"}
# The guard holds for what `make run` builds; the test environment's line shows what the test extra
# costs (Pandera imports pandas when it is installed: 0.5 s and 100-125 MiB), with no target.
GUARDED = "run environment (.venv)"
NUMBERS = itertools.count()


def core_path(python: Path, scratch: Path, into: Path | None = None):
    """A run of the core path into a new warehouse, or into a copy of `into`."""
    def run():
        db_file = scratch / f"w{next(NUMBERS)}.duckdb"
        if into is not None:
            shutil.copyfile(into, db_file)
        return run_once([str(python), str(ROOT / "bench" / "core_path.py"), "v6.0", str(TABLE), str(db_file)])
    return run


def yardstick(scratch: Path):
    checker = ANCHOR / "summary_v6.0_checker.csv"

    def run():
        where = scratch / f"tool{next(NUMBERS)}"
        where.mkdir()
        shutil.copyfile(checker, where / checker.name)
        return run_once([str(YARDSTICK_PYTHON), str(ANCHOR / "generate_final_report.py"), "--input", checker.name,
                         "--version", "6.0", "--repository", "inference_results_v6.0"], cwd=str(where))
    return run


def main(argv: list[str]) -> int:
    if not YARDSTICK_PYTHON.exists() or not (ANCHOR / "generate_final_report.py").is_file():
        print(f"the yardstick is missing: {YARDSTICK_PYTHON} (`make yardstick`) or {ANCHOR}")
        return 1
    print(f"v6.0, 520 rows, whole process, {REPEAT} pairs (A B A B ...), medians; load average {load()}")
    with tempfile.TemporaryDirectory(prefix="mlperf-core-bench-") as scratch:
        scratch = Path(scratch)
        for name, python in INTERPRETERS.items():
            if not python.exists():
                print(f"{name}: not built")
                continue
            earlier = scratch / f"earlier{next(NUMBERS)}.duckdb"
            run_once([str(python), str(ROOT / "bench" / "core_path.py"), "v5.1", str(EARLIER), str(earlier)])
            for case, into in (("new warehouse", None), ("into a warehouse holding v5.1", earlier)):
                pair = alternate(core_path(python, scratch, into), yardstick(scratch))
                targets = (TARGET_RATIO, TARGET_MEMORY_RATIO) if python == INTERPRETERS[GUARDED] else (None, None)
                print(line(f"core path, {name}, {case} / MLCommons' tool", pair, *targets))
    print(f"load average at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
