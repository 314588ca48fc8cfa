"""`mlperf-wh sql` beside the same query through DuckDB's Python API (issue 34, item 3).

A: `.venv/bin/mlperf-wh --db W sql QUERY`, as the README runs it (a table on stdout).
B: bench/plain_query.py: the published copy opened read-only with DuckDB's Python API, the same query,
   its rows printed.
QUERY is the README's first question; W a warehouse of the shared rounds built once by the plain
functions (bench/plain_floor.py). Target: A <= 1.5x B's wall time.

    .venv/bin/python bench/run.py query       (MLPERF_BENCH_REPEAT pairs, median; default 5)
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from pairs import alternate, line, load, run_once

ROOT = Path(__file__).resolve().parents[1]
MIRROR = (ROOT.parent / "shared" / "mlcommons" / "mirror").resolve()
BIN = ROOT / ".venv" / "bin"
TARGET_RATIO = 1.5
REPEAT = 10  # a query is quick: more pairs for the same time


def readme_question(number: int = 1) -> str:
    """The query of the README's `number`th `mlperf-wh sql "..."` command."""
    found = re.findall(r'mlperf-wh sql "([^"]+)"', (ROOT / "README.md").read_text(encoding="utf-8"))
    return found[number - 1]


def main(argv: list[str]) -> int:
    query = readme_question()
    with tempfile.TemporaryDirectory(prefix="mlperf-query-bench-") as scratch:
        db_file = Path(scratch) / "w.duckdb"
        subprocess.run([str(BIN / "python"), str(ROOT / "bench" / "plain_floor.py"), str(MIRROR), str(db_file)],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(BIN / "mlperf-wh"), "--db", str(db_file), "views"], check=True,
                       stdout=subprocess.DEVNULL)  # publishes the read-only copy both sides read
        published = db_file.with_name("w.read.duckdb")
        print(f"README question 1 on the shared rounds, whole process, {REPEAT} pairs, medians; load average {load()}")
        pair = alternate(lambda: run_once([str(BIN / "mlperf-wh"), "--db", str(db_file), "sql", query]),
                         lambda: run_once([str(BIN / "python"), str(ROOT / "bench" / "plain_query.py"),
                                           str(published), query]), REPEAT)
        print(line("mlperf-wh sql / DuckDB's Python API", pair, TARGET_RATIO))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
