"""The console as a user sees it: a closed pipe is not an error."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

COMMAND = Path(sys.executable).parent / "mlperf-wh"


def test_a_reader_that_closes_after_one_line_ends_the_command_quietly(shared_warehouse):
    process = subprocess.Popen([str(COMMAND), "sql", "SELECT * FROM results", "--db", shared_warehouse],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()  # like `| head -1`
    _, err = process.communicate(timeout=120)
    assert first.strip()
    assert process.returncode == 0
    assert err == b""


def test_the_command_exits_with_its_code_and_all_its_output(shared_warehouse):
    # The console script ends without the interpreter's teardown (warehouse.interrupt.exit_without_teardown):
    # what it wrote, well past any buffer, and its exit code still reach the caller.
    rows = 200_000
    done = subprocess.run([str(COMMAND), "sql", f"SELECT range AS n FROM range({rows})", "--format", "csv",
                           "--db", shared_warehouse], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["n", *map(str, range(rows))]
    failed = subprocess.run([str(COMMAND), "sql", "SELECT nope", "--db", shared_warehouse],
                            capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    assert failed.stderr.startswith("error: ") and failed.stderr.endswith("\n")


def test_a_long_table_is_a_row_per_line_with_cut_cells_and_right_aligned_numbers():
    import polars as pl

    from warehouse.cli.console import long_table
    frame = pl.DataFrame({"name": ["a", "b" * 80, "c\nd"], "value": [1.5, 22.25, None], "n": [1, 2, 3]})
    assert long_table(frame, widest=12).splitlines() == [
        "┌──────────────┬───────┬───┐",
        "│ name         ┆ value ┆ n │",
        "╞══════════════╪═══════╪═══╡",
        "│ a            ┆   1.5 ┆ 1 │",
        "│ bbbbbbbbbbb… ┆  22.2 ┆ 2 │",
        "│ c d          ┆       ┆ 3 │",
        "└──────────────┴───────┴───┘"]
