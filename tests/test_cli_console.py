"""The console as a user sees it: a closed pipe is not an error, no third party prints on it, and a
long step shows itself on a terminal."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


def test_no_third_party_notice_or_telemetry_from_a_command():
    # Prefect's client printed "Prefect collects anonymous usage data..." on a terminal in the middle
    # of `mlperf-wh trees`, and both its client and server try the network to report usage.
    from tests.conftest import ROOT
    script = ("import os; os.environ.pop('DO_NOT_TRACK', None); os.environ.pop('PREFECT_SERVER_ANALYTICS_ENABLED', None)\n"
              "import warehouse.cli\n"
              "from prefect._internal.analytics.enabled import is_telemetry_enabled\n"
              "print(is_telemetry_enabled(), os.environ['PREFECT_SERVER_ANALYTICS_ENABLED'])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.stdout.split() == ["False", "false"], done.stderr


def test_a_long_step_shows_what_it_does_on_a_terminal_only(tmp_path):
    # A cold backfill showed a blank screen for ~13 s. On a terminal (a pseudo-terminal here, from
    # util-linux `script`) the step is drawn on stderr while it lasts; through a pipe nothing is.
    import shutil

    from tests.conftest import ROOT
    if shutil.which("script") is None:
        pytest.skip("util-linux script is not installed")
    code = ("import time; from warehouse.cli.progress import step\n"
            "with step('starting the slow part'): time.sleep(0.6)\n"
            "print('done')")
    typescript = tmp_path / "tty.txt"
    subprocess.run(["script", "-qec", f"{sys.executable} -c \"{code}\"", str(typescript)], cwd=ROOT,
                   capture_output=True, timeout=120, check=True)
    assert "starting the slow part" in typescript.read_text(errors="replace")
    piped = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (piped.stdout, piped.stderr) == ("done\n", "")
