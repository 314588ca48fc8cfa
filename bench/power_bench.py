"""Reading every shared power run (v1.1 and v2.1: 385 runs, 114 MB of spl.txt and detail logs) as the
tree pass reads them (bench/power_read.py: the pass's listing and its own power-file reader, every
figure computed), against the plain reader of the same files (bench/power_floor.py: a loop that opens
each pair, parses it as the checker does and averages), whole processes alternated A B A B, median of
MLPERF_BENCH_REPEAT (5) pairs (issue 62, item 5). Target: within 2x the floor.

    .venv/bin/python bench/run.py power
"""
from __future__ import annotations

import sys
from pathlib import Path

from pairs import alternate, line, load, run_once

ROOT = Path(__file__).resolve().parents[1]
TREES = (ROOT.parent / "shared" / "mlcommons" / "trees").resolve()
POWER_ROUNDS = ("v1.1", "v2.1")
TARGET = 2.0


def main(argv: list[str]) -> int:
    roots = [str(TREES / f"inference_results_{name}") for name in POWER_ROUNDS]
    print(f"power files of {', '.join(POWER_ROUNDS)} from {TREES}, whole processes; load average {load()}")
    pair = alternate(lambda: run_once([sys.executable, str(ROOT / "bench" / "power_read.py"), *roots]),
                     lambda: run_once([sys.executable, str(ROOT / "bench" / "power_floor.py"), *roots]))
    print(line("the tree pass's power read against the plain reader", pair, TARGET))
    print(f"load average at the end {load()}")
    return 0
