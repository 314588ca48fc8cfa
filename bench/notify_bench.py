"""What telling people costs a run (issue 42): `.venv/bin/python bench/run.py notify`.

(a) a loading run that notifies against the same run with no target: `mlperf-wh backfill --rounds
    v6.0` into a copy of a warehouse holding v5.1, MLPERF_NOTIFY a JSON webhook on 127.0.0.1 (a
    receiver in this process) or unset, whole processes in turn (pairs.py). Both sides take the
    answers before and after the load and record the changes; side A composes and delivers.
(b) the parts every loading run pays, in this process: one snapshot of the answers (leaders per
    accelerator and per rack, grades, decisions due) on the shared rounds, and the field-by-field
    change rows of a million-row reload against itself.
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pairs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests.webhook_receiver
from tests.webhook_receiver import receiving  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MIRROR = (ROOT.parent / "shared" / "mlcommons" / "mirror").resolve()
RATIO_TARGET = 1.10          # notifying adds at most a tenth to a loading run
SNAPSHOT_TARGET = 0.5        # seconds, one snapshot of the answers on the shared rounds
MILLION_TARGET = 5.0         # seconds, the change rows of a million-row reload


def warehouse_with(rounds: tuple[str, ...], path: Path) -> None:
    from warehouse.identity.rounds import load_registry
    from warehouse.ingest.history import Run, ingest_location_with_history
    from warehouse.store import db
    from warehouse.views import materialize
    with db.connect(str(path)) as con:
        for name in rounds:
            file_name, location = load_registry()[name].locations(str(MIRROR))[0]
            ingest_location_with_history(con, name, "official", file_name, location, Run("backfill"))
        materialize(con)


def loading_runs(tmp: Path) -> str:
    base = tmp / "v51.duckdb"
    warehouse_with(("v5.1",), base)
    with receiving() as receiver:
        return _loading_pair(tmp, base, receiver)


def _loading_pair(tmp: Path, base: Path, receiver) -> str:
    command = Path(sys.executable).parent / "mlperf-wh"
    run = (f'cp {base} {tmp}/w.duckdb && rm -f {tmp}/w.read.duckdb && '
           f'{command} backfill --rounds v6.0 --source {MIRROR} --db {tmp}/w.duckdb -q')
    quiet = {k: v for k, v in os.environ.items() if not k.startswith("MLPERF_NOTIFY")}
    notifying = {**quiet, "MLPERF_NOTIFY": f"json://127.0.0.1:{receiver.port}/hook"}
    pair = pairs.alternate(lambda: pairs.run_once(["bash", "-c", run], env=notifying),
                           lambda: pairs.run_once(["bash", "-c", run], env=quiet))
    return pairs.line("backfill v6.0 onto v5.1, notifying a loopback webhook vs no target", pair, RATIO_TARGET)


def parts(tmp: Path) -> list[str]:
    import polars as pl

    from warehouse.ingest import changes
    from warehouse.notify import answers
    from warehouse.store import db
    shared = tmp / "shared.duckdb"
    warehouse_with(("v4.1", "v5.1", "v6.0"), shared)
    with db.connect(str(shared)) as con:
        seconds = []
        for _ in range(5):
            started = time.perf_counter()
            answers.take(con)
            seconds.append(time.perf_counter() - started)
        rows = db.query_frame(con, "SELECT * FROM results")
    snapshot = statistics.median(seconds)
    million = pl.concat([rows] * (1_000_000 // rows.height + 1)).head(1_000_000).with_columns(
        pl.int_range(pl.len()).cast(pl.String).alias("entry_id"))
    started = time.perf_counter()
    changes.field_changes(million, million)
    diff = time.perf_counter() - started
    return [f"one snapshot of the answers, shared rounds: {snapshot:.2f} s (median of 5; target < {SNAPSHOT_TARGET} s) "
            f"{'ok' if snapshot < SNAPSHOT_TARGET else 'MISSED'}",
            f"change rows of a 1,000,000-row reload: {diff:.2f} s (target < {MILLION_TARGET} s) "
            f"{'ok' if diff < MILLION_TARGET else 'MISSED'}"]


def main(argv: list[str] | None = None) -> int:
    if not MIRROR.is_dir():
        print(f"notify bench: shared data not found at {MIRROR}")
        return 1
    with tempfile.TemporaryDirectory(prefix="notify-bench-") as tmp:
        for line in [loading_runs(Path(tmp)), *parts(Path(tmp))]:
            print(line)
    print(f"load average: {pairs.load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
