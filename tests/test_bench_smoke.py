"""`make bench` runs nowhere in CI, so a section that raises was found only by the next person to run
it (the notify section died in a NameError for days). The sections that take seconds, not
minutes, run here once with a single pair: each must finish and print its lines with their
targets. Whether a target is met is `make bench`'s business on a quiet machine, not CI's."""
from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import ROOT

RUN_ENVIRONMENT = ROOT / ".venv" / "bin" / "python"


@pytest.mark.slow  # each section starts a dozen whole processes (~5-20 s)
@pytest.mark.parametrize("section", ["query", "export", "notify", "power"])
def test_a_quick_bench_section_runs_to_its_end(section):
    assert RUN_ENVIRONMENT.exists(), "make bench times the run environment: `make install` (make test-slow does)"
    env = {**os.environ, "MLPERF_BENCH_REPEAT": "1"}
    done = subprocess.run([str(RUN_ENVIRONMENT), str(ROOT / "bench" / "run.py"), section], capture_output=True,
                          text=True, timeout=600, env=env, cwd=ROOT)
    # ok, or a guard missed (make bench's business, on a quiet machine: bench/run.py exits 1 for it);
    # never FAILED, the section's own error
    ended = [line for line in done.stdout.splitlines() if line.startswith(f"== {section}: ")]
    assert ended and ended[-1].split(": ", 1)[1].startswith(("ok", "guard missed")), done.stdout[-2000:] + done.stderr[-2000:]
    assert done.returncode == (0 if ended[-1].split(": ", 1)[1].startswith("ok") else 1)
    assert "Traceback" not in done.stdout + done.stderr
    assert sum("target" in line for line in done.stdout.splitlines()) >= 1
