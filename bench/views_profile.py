"""Where does a materialize spend its time? Seconds per model, on the 1M-row warehouse of views_bench.

Builds the synthetic warehouse (or opens a copy of one kept with `views_bench.py --keep PATH`),
materializes every model in dependency order once as warehouse.views.materialize does, and prints
per model: wall-clock seconds, CPU seconds of every thread (on a machine others share, the CPU
seconds move less than the wall clock), how it is stored, and its share of the total.

    .venv/bin/python bench/views_profile.py [--rows N] [--db KEPT.duckdb] [--snapshot-max-rows M]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from views_bench import build as build_rows  # noqa: E402

from warehouse.identity.resolve import load_reference_tables  # noqa: E402
from warehouse.store import db  # noqa: E402
from warehouse.views import BuildTime, materialize  # noqa: E402

materialize_module = sys.modules["warehouse.views.materialize"]  # warehouse.views exports the function


def profile(path: Path, rows: int | None) -> tuple[list[BuildTime], float]:
    """Per-model build times, and the whole materialize's seconds (reference tables, commit and
    column comments included)."""
    con = db.connect(str(path))
    try:
        if rows is not None:
            load_reference_tables(con)
            build_rows(con, rows)
            con.execute("CHECKPOINT")
        timings: list[BuildTime] = []
        started = time.perf_counter()
        materialize(con, profile=timings)
        return timings, time.perf_counter() - started
    finally:
        con.close()


def report(timings: list[BuildTime]) -> list[str]:
    total = sum(t.seconds for t in timings) or 1.0
    lines = [f"{'model':32} {'layer':13} {'stored':6} {'wall s':>7} {'cpu s':>7} {'share':>6}"]
    for t in timings:
        lines.append(f"{t.view.name:32} {t.view.layer:13} {t.view.kind:6} {t.seconds:7.2f} "
                     f"{t.cpu_seconds:7.2f} {100 * t.seconds / total:5.1f}%")
    lines.append(f"{'every model':32} {'':13} {'':6} {sum(t.seconds for t in timings):7.2f} "
                 f"{sum(t.cpu_seconds for t in timings):7.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="performance rows to generate")
    parser.add_argument("--db", help="a warehouse kept by views_bench.py --keep (copied, never written)")
    parser.add_argument("--snapshot-max-rows", type=int, default=None,
                        help="build the tables from snapshots of the views they share below this many result rows "
                             f"(default {materialize_module.SNAPSHOT_MAX_ROWS:,}; 0: never)")
    args = parser.parse_args(argv)
    if args.snapshot_max_rows is not None:
        materialize_module.SNAPSHOT_MAX_ROWS = args.snapshot_max_rows
    workdir = Path(tempfile.mkdtemp(prefix="views_profile_"))
    try:
        path = workdir / "profile.duckdb"
        if args.db:
            shutil.copyfile(args.db, path)
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
        timings, seconds = profile(path, None if args.db else args.rows)
        print("\n".join(report(timings)))
        print(f"materialize, end to end (reference tables, commit and comments included): {seconds:.2f} s")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
