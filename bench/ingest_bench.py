"""Benchmark the ingest spine on the real shared rounds (../shared/mlcommons/mirror).

(a) core: read + parse + validate + load the three shared rounds from local files into a fresh
    temporary DuckDB with the plain functions (warehouse.ingest.fetch/pipeline/db; no Prefect, no views),
    best of N runs, with per-round times;
(b) the wall time of a whole `mlperf-wh backfill --source <mirror dir> --db <tmp>` in a subprocess
    (Prefect start-up, every registered round, the views), as a user runs it.

    .venv/bin/python bench/ingest_bench.py      (or every benchmark: make bench)
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from warehouse.identity.rounds import load_registry
from warehouse.ingest.fetch import FetchSettings
from warehouse.ingest.pipeline import ingest_location
from warehouse.store import db

ROOT = Path(__file__).resolve().parents[1]
MIRROR = (ROOT.parent / "shared" / "mlcommons" / "mirror").resolve()
SHARED_ROUNDS = ("v4.1", "v5.1", "v6.0")
CORE_TARGET_SECONDS = 1.5
REPEATS = 5


def core_once(db_file: str, rounds=SHARED_ROUNDS) -> tuple[float, dict[str, float], dict[str, int]]:
    """One run into a new warehouse file: (total seconds, seconds per round, records per round)."""
    registry, settings = load_registry(), FetchSettings()
    per_round, records = {}, {}
    started = time.perf_counter()
    with db.connect(db_file) as con:
        for name in rounds:
            round_started = time.perf_counter()
            file_name, location = registry[name].locations(str(MIRROR))[0]
            outcome = ingest_location(con, name, "official", file_name, location, settings)
            per_round[name] = time.perf_counter() - round_started
            records[name] = outcome.rows_read
    return time.perf_counter() - started, per_round, records


def core(repeats: int = REPEATS) -> dict:
    """Best of `repeats` runs, each into a fresh temporary DuckDB."""
    totals, rounds, records = [], {}, {}
    for i in range(repeats):
        with tempfile.TemporaryDirectory(prefix="ingest-bench-") as tmp:
            total, per_round, records = core_once(str(Path(tmp) / f"run{i}.duckdb"))
        totals.append(total)
        for name, seconds in per_round.items():
            rounds[name] = min(seconds, rounds.get(name, float("inf")))
    return {"best": min(totals), "runs": totals, "rounds": rounds, "records": records}


def backfill_wall() -> dict:
    """Wall time of the installed `mlperf-wh backfill` on the mirror directory, in a subprocess."""
    command = Path(sys.executable).parent / "mlperf-wh"
    with tempfile.TemporaryDirectory(prefix="ingest-bench-") as tmp:
        started = time.perf_counter()
        done = subprocess.run([str(command), "backfill", "--source", str(MIRROR),
                               "--db", str(Path(tmp) / "warehouse.duckdb")],
                              capture_output=True, text=True)
        seconds = time.perf_counter() - started
    return {"seconds": seconds, "returncode": done.returncode, "stderr": done.stderr}


def main(argv: list[str] | None = None) -> int:
    if not MIRROR.is_dir():
        print(f"ingest bench: shared data not found at {MIRROR}")
        return 1
    result = core()
    n = len(result["records"])
    verdict = "ok" if result["best"] < CORE_TARGET_SECONDS else "MISSED"
    print(f"core parse+validate+load ({n} rounds): {result['best']:.2f} s "
          f"(target < {CORE_TARGET_SECONDS} s) {verdict}  [best of {len(result['runs'])}: "
          + ", ".join(f"{t:.2f}" for t in result["runs"]) + "]")
    for name, seconds in result["rounds"].items():
        print(f"  {name}: {seconds:.2f} s ({result['records'][name]} records)")
    wall = backfill_wall()
    print(f"mlperf-wh backfill --source <mirror dir> (subprocess, wall): {wall['seconds']:.2f} s"
          + ("" if wall["returncode"] == 0 else f"  FAILED with exit code {wall['returncode']}"))
    if wall["returncode"] != 0:
        print(wall["stderr"][-2000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
