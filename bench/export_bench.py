"""`mlperf-wh export` beside its plain floor (issue 43, item 1), each format, whole processes in turn.

A: `.venv/bin/mlperf-wh --db W export OUT --format F`, every mart, a new directory each run: the files,
   the manifest, Parquet's key-value metadata, text made safe for spreadsheets, the typed workbook.
B: bench/export_floor.py F: only the writing, with DuckDB's COPY (Parquet partitioned by round, CSV)
   or xlsxwriter's constant-memory mode (XLSX), from the same published copy.
W: a warehouse of the shared rounds built by the plain functions (bench/plain_floor.py), its read-only
copy published once (both sides read it). Targets: A <= 1.5x B's wall time and <= 1.5x its peak memory.

    .venv/bin/python bench/run.py export       (MLPERF_BENCH_REPEAT pairs, median; default 5)
"""
from __future__ import annotations

import itertools
import subprocess
import sys
import tempfile
from pathlib import Path

from pairs import REPEAT, alternate, line, load, run_once

ROOT = Path(__file__).resolve().parents[1]
MIRROR = (ROOT.parent / "shared" / "mlcommons" / "mirror").resolve()
BIN = ROOT / ".venv" / "bin"
FORMATS = ("parquet", "csv", "xlsx")
TARGET_RATIO, TARGET_MEMORY_RATIO = 1.5, 1.5
NUMBERS = itertools.count()


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="mlperf-export-bench-") as scratch:
        scratch = Path(scratch)
        db_file = scratch / "w.duckdb"
        subprocess.run([str(BIN / "python"), str(ROOT / "bench" / "plain_floor.py"), str(MIRROR), str(db_file)],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(BIN / "mlperf-wh"), "--db", str(db_file), "views"], check=True,
                       stdout=subprocess.DEVNULL)  # publishes the read-only copy both sides read
        published = db_file.with_name("w.read.duckdb")
        print(f"every mart of the shared rounds, whole process, {REPEAT} pairs (A B A B ...), medians; "
              f"load average {load()}")
        for fmt in FORMATS:
            pair = alternate(
                lambda: run_once([str(BIN / "mlperf-wh"), "--quiet", "--db", str(db_file), "export",
                                  str(scratch / f"export{next(NUMBERS)}"), "--format", fmt]),
                lambda: run_once([str(BIN / "python"), str(ROOT / "bench" / "export_floor.py"), fmt, str(published),
                                  str(scratch / f"floor{next(NUMBERS)}")]))
            print(line(f"export --format {fmt} / its floor", pair, TARGET_RATIO, TARGET_MEMORY_RATIO))
    print(f"load average at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
