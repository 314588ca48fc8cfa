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
